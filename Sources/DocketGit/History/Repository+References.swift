import DocketCGit2

extension Repository {
    /// The commit HEAD points at; nil while the branch has no commit yet.
    public func head() throws -> ObjectID? {
        try reference("HEAD")
    }

    /// The commit a reference points at (following symbolic references); nil when it does not exist.
    public func reference(_ name: String) throws -> ObjectID? {
        var oid = git_oid()
        let code = git_reference_name_to_id(&oid, pointer, name)
        if code == GIT_ENOTFOUND.rawValue || code == GIT_EUNBORNBRANCH.rawValue { return nil }
        try check(code, "git_reference_name_to_id")
        return ObjectID(oid)
    }

    /// The full name of the branch HEAD is on, such as "refs/heads/main"; nil when HEAD is detached.
    public func headBranch() throws -> String? {
        var ref: OpaquePointer?
        try check(git_reference_lookup(&ref, pointer, "HEAD"), "git_reference_lookup")
        defer { git_reference_free(ref) }
        return git_reference_symbolic_target(ref).map { String(cString: $0) }
    }

    /// The reference HEAD names (such as "refs/heads/main"), whether or not it exists; nil when HEAD is detached.
    public func headTarget() throws -> String? {
        var ref: OpaquePointer?
        try check(git_reference_lookup(&ref, pointer, "HEAD"), "git_reference_lookup")
        defer { git_reference_free(ref) }
        return git_reference_symbolic_target(ref).map { String(cString: $0) }
    }

    /// The references whose names start with `prefix`, with the commits they point at.
    public func references(startingWith prefix: String) throws -> [String: ObjectID] {
        var iterator: OpaquePointer?
        try check(git_reference_iterator_glob_new(&iterator, pointer, prefix + "*"), "git_reference_iterator_glob_new")
        defer { git_reference_iterator_free(iterator) }
        var found: [String: ObjectID] = [:]
        var ref: OpaquePointer?
        while git_reference_next(&ref, iterator) == 0 {
            defer { git_reference_free(ref) }
            let name = String(cString: git_reference_name(ref))
            if let id = ObjectID(git_reference_target(ref)) { found[name] = id }
        }
        return found
    }

    /// Points HEAD at a branch, which need not have a commit yet.
    public func setHead(_ branch: String) throws {
        try check(git_repository_set_head(pointer, branch), "git_repository_set_head")
    }

    /// Points a reference at a commit, creating it if needed.
    public func setReference(_ name: String, to id: ObjectID, message: String) throws {
        var oid = id.oid
        var ref: OpaquePointer?
        try check(git_reference_create(&ref, pointer, name, &oid, 1, message), "git_reference_create")
        git_reference_free(ref)
    }
}
