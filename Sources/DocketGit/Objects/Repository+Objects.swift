import DocketCGit2
import Foundation

extension Repository {
    /// Writes a blob and returns its id.
    public func writeBlob(_ data: Data) throws -> ObjectID {
        var oid = git_oid()
        _ = try data.withUnsafeBytes { raw in
            try check(
                git_blob_create_from_buffer(&oid, pointer, raw.baseAddress, raw.count), "git_blob_create_from_buffer")
        }
        return ObjectID(oid)
    }

    /// The size of a blob in bytes, from the object's header alone (its contents are not inflated).
    public func blobSize(_ id: ObjectID) throws -> Int {
        try objectHeader(id).size
    }

    /// An object's size and type, from its header alone.
    func objectHeader(_ id: ObjectID) throws -> (size: Int, type: git_object_t) {
        var odb: OpaquePointer?
        try check(git_repository_odb(&odb, pointer), "git_repository_odb")
        defer { git_odb_free(odb) }
        var oid = id.oid
        var size = 0
        var type = GIT_OBJECT_ANY
        try check(git_odb_read_header(&size, &type, odb, &oid), "git_odb_read_header")
        return (size, type)
    }

    /// Lists the object folder's packs again, so that one written by Docket is read without a miss first.
    func refreshObjects() throws {
        var odb: OpaquePointer?
        try check(git_repository_odb(&odb, pointer), "git_repository_odb")
        defer { git_odb_free(odb) }
        try check(git_odb_refresh(odb), "git_odb_refresh")
    }

    /// The contents of a blob.
    public func blob(_ id: ObjectID) throws -> Data {
        var oid = id.oid
        var blob: OpaquePointer?
        try check(git_blob_lookup(&blob, pointer, &oid), "git_blob_lookup")
        defer { git_blob_free(blob) }
        let size = Int(git_blob_rawsize(blob))
        guard size > 0, let raw = git_blob_rawcontent(blob) else { return Data() }
        return Data(bytes: raw, count: size)
    }

    /// The id of a commit's tree.
    public func tree(ofCommit id: ObjectID) throws -> ObjectID {
        try withCommit(id) { ObjectID(git_commit_tree_id($0))! }
    }

    /// The entries of a tree under the given folders (every entry when
    /// `folders` is empty), by path, with what each is; throws `TooManyFiles` as soon as the walk has looked at more
    /// than `limit` entries (files and folders, each time a folder is named), before looking at the rest.
    public func entries(inTree tree: ObjectID, under folders: [String] = [], limit: Int = .max) throws -> [String:
        TreeEntry]
    {
        final class Walk {
            var limit = Int.max
            /// The entries looked at.
            var walked = 0
            /// Whether the walk stopped at `limit`.
            var tooMany = false
            var prefix = ""
            /// The folders `prefix` is deep.
            var prefixDepth = 0
            var found: [String: TreeEntry] = [:]
            /// A folder deeper than `TreeTooDeep.limit`, where the walk stopped.
            var tooDeep: String?
        }
        let walk = Walk()
        walk.limit = limit
        try withTree(tree) { root in
            for folder in folders.isEmpty ? [""] : folders {
                var subtree: OpaquePointer?
                if !folder.isEmpty {
                    var entry: OpaquePointer?
                    let code = git_tree_entry_bypath(&entry, root, folder)
                    if code == GIT_ENOTFOUND.rawValue { continue }
                    try check(code, "git_tree_entry_bypath")
                    defer { git_tree_entry_free(entry) }
                    guard git_tree_entry_type(entry) == GIT_OBJECT_TREE else {
                        walk.found[folder] = TreeEntry(
                            id: ObjectID(git_tree_entry_id(entry))!,
                            mode: TreeEntry.Mode(git_tree_entry_filemode(entry)))
                        continue
                    }
                    try check(git_tree_lookup(&subtree, pointer, git_tree_entry_id(entry)), "git_tree_lookup")
                }
                walk.prefix = folder.isEmpty ? "" : (folder.hasSuffix("/") ? folder : folder + "/")
                walk.prefixDepth = walk.prefix.utf8.lazy.filter { $0 == UInt8(ascii: "/") }.count
                defer { git_tree_free(subtree) }
                // NB: bounded as a pull's diff is (`TreeTooDeep`): a clone once took in trees a pull refused.
                let code = git_tree_walk(
                    subtree ?? root, GIT_TREEWALK_PRE,
                    { parent, entry, payload in
                        guard let parent, let entry, let payload else { return 0 }
                        let mode = TreeEntry.Mode(git_tree_entry_filemode(entry))
                        let walk = Unmanaged<Walk>.fromOpaque(payload).takeUnretainedValue()
                        walk.walked += 1
                        guard walk.walked <= walk.limit else {
                            walk.tooMany = true
                            return -1
                        }
                        if mode == .folder {
                            var depth = walk.prefixDepth + 1
                            var byte = parent
                            while byte.pointee != 0 {
                                if byte.pointee == CChar(UInt8(ascii: "/")) { depth += 1 }
                                byte += 1
                            }
                            guard depth > TreeTooDeep.limit else { return 0 }
                            walk.tooDeep = walk.prefix + String(cString: parent)
                            return -1
                        }
                        walk.found[
                            walk.prefix + String(cString: parent) + String(cString: git_tree_entry_name(entry))] =
                            TreeEntry(id: ObjectID(git_tree_entry_id(entry))!, mode: mode)
                        return 0
                    }, Unmanaged.passUnretained(walk).toOpaque())
                if let path = walk.tooDeep { throw TreeTooDeep(path: path) }
                if walk.tooMany { throw TooManyFiles(limit: limit) }
                try check(code, "git_tree_walk")
            }
        }
        return walk.found
    }

    /// The blobs of a tree under the given folders (every blob when `folders` is empty): path → blob id.
    public func blobs(inTree tree: ObjectID, under folders: [String] = []) throws -> [String: ObjectID] {
        try entries(inTree: tree, under: folders).compactMapValues { $0.mode.isBlob ? $0.id : nil }
    }

    /// The entry at `path` in a tree, or nil when there is none.
    public func entry(inTree tree: ObjectID, at path: String) throws -> TreeEntry? {
        try withTree(tree) { root in
            var entry: OpaquePointer?
            let code = git_tree_entry_bypath(&entry, root, path)
            if code == GIT_ENOTFOUND.rawValue { return nil }
            try check(code, "git_tree_entry_bypath")
            defer { git_tree_entry_free(entry) }
            return TreeEntry(
                id: ObjectID(git_tree_entry_id(entry))!, mode: TreeEntry.Mode(git_tree_entry_filemode(entry)))
        }
    }

    /// The blob id at `path` in a tree, or nil when there is none.
    public func blobID(inTree tree: ObjectID, at path: String) throws -> ObjectID? {
        guard let entry = try entry(inTree: tree, at: path), entry.mode.isBlob else { return nil }
        return entry.id
    }
}

/// One entry of a git tree.
public struct TreeEntry: Equatable, Sendable {
    /// What an entry is.
    public enum Mode: Equatable, Sendable {
        /// A plain file.
        case file
        /// An executable file.
        case executable
        /// A symbolic link.
        case link
        /// A folder (a tree).
        case folder
        /// A submodule (a commit of another repository).
        case submodule
        /// A mode git does not write.
        case unknown

        init(_ mode: git_filemode_t) {
            switch mode {
            case GIT_FILEMODE_BLOB: self = .file
            case GIT_FILEMODE_BLOB_EXECUTABLE: self = .executable
            case GIT_FILEMODE_LINK: self = .link
            case GIT_FILEMODE_TREE: self = .folder
            case GIT_FILEMODE_COMMIT: self = .submodule
            default: self = .unknown
            }
        }

        /// Whether the entry's object is a blob (a file or a link).
        public var isBlob: Bool { self == .file || self == .executable || self == .link }
    }

    /// The object the entry names.
    public let id: ObjectID
    /// What it is.
    public let mode: Mode
}
