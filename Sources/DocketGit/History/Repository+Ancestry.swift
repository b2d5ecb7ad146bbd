import DocketCGit2

extension Repository {
    /// Whether `ancestor` is `commit` or in its history; nil when that cannot be told (a shallow clone's history
    /// stops short of it, an object is missing).
    public func isInHistory(_ ancestor: ObjectID, of commit: ObjectID) -> Bool? {
        if ancestor == commit { return true }
        var (a, c) = (ancestor.oid, commit.oid)
        let code = git_graph_descendant_of(pointer, &c, &a)
        return code < 0 ? nil : code == 1
    }

    /// The commits a reference pointed at, newest first, as its reflog recorded them (each entry's new and old
    /// value), at most `limit` entries back; none when it has no reflog. With `fetchedOnly`, only the values
    /// fetches set (not a push's "update by push", nor what an entry moved from).
    public func reflogTargets(_ name: String, limit: Int = 100, fetchedOnly: Bool = false) throws -> [ObjectID] {
        var log: OpaquePointer?
        try check(git_reflog_read(&log, pointer, name), "git_reflog_read")
        defer { git_reflog_free(log) }
        var targets: [ObjectID] = []
        for index in 0..<min(git_reflog_entrycount(log), limit) {
            guard let entry = git_reflog_entry_byindex(log, index) else { continue }
            let message = git_reflog_entry_message(entry).map { String(cString: $0) } ?? ""
            if fetchedOnly && message.hasPrefix("update by push") { continue }
            for oid in [git_reflog_entry_id_new(entry)] + (fetchedOnly ? [] : [git_reflog_entry_id_old(entry)]) {
                guard var oid = oid?.pointee, git_oid_is_zero(&oid) == 0 else { continue }
                let id = ObjectID(oid)
                if !targets.contains(id) { targets.append(id) }
            }
        }
        return targets
    }
}
