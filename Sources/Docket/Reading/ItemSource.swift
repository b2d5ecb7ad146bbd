import DocketGit
import DocketSystem
import Foundation

/// Where store files are read from: the working tree, or the tree of a commit.
/// Either way a file is read only when it is a regular file (no link, no
/// submodule, under no link) within `Store.maximumFileSize`.
protocol ItemSource {
    /// The store paths of the files under `folder`, at any depth; none when it is missing.
    func files(under folder: String) throws -> [String]
    /// The bytes of the file at a store path; throws a `FileProblem` for anything else.
    func read(_ path: String) throws -> Data
    /// The item in the file at a store path, as `StoredItem.decode` reads it.
    func decoded(_ path: String, as item: StoreLayout.Item) throws -> StoredItem
}

extension ItemSource {
    func decoded(_ path: String, as item: StoreLayout.Item) throws -> StoredItem {
        try StoredItem.decode(try read(path), at: item)
    }
}

/// Items decoded from commits, by path and blob. A blob never changes, so a
/// pull that reads the same file in its check, in its merge (as the base and
/// on either side) and in its undo record decodes it once. Each store keeps
/// its own (`StoreGit.decodedBlobs`): no store's reads fill or empty another's.
final class DecodedBlobs: @unchecked Sendable {
    /// The most kept; past it the cache starts again (a pull of a few hundred changes stays well within).
    static let limit = 4096

    struct Key: Hashable {
        let path: String
        let blob: ObjectID
    }

    private let lock = NSLock()
    private var items: [Key: StoredItem] = [:]

    func item(_ key: Key) -> StoredItem? { lock.withLock { items[key] } }

    func keep(_ item: StoredItem, _ key: Key) {
        lock.withLock {
            if items.count >= Self.limit { items.removeAll(keepingCapacity: true) }
            items[key] = item
        }
    }
}

extension Store {
    /// Files larger than this are not read: no item is anywhere near it.
    public static let maximumFileSize = 1 << 20
}

/// The store's working tree, read through an open folder that never follows a link.
final class WorkingTreeSource: ItemSource {
    let root: Folder
    /// The folder of the last file read, kept open: files are mostly read folder by folder.
    private var last: (path: String, folder: Folder?)?

    init(root: Folder) {
        self.root = root
    }

    func files(under folder: String) throws -> [String] {
        guard let start = try root.folder(folder) else { return [] }
        var found: [String] = []
        func walk(_ current: Folder, _ prefix: String) throws {
            for entry in try current.entries() {
                if entry.isFolder, let inner = try current.folder(entry.name) {
                    try walk(inner, prefix + entry.name + "/")
                } else {
                    found.append(prefix + entry.name)
                }
            }
        }
        try walk(start, folder + "/")
        return found
    }

    func read(_ path: String) throws -> Data {
        let (folderPath, name) = split(path)
        let folder: Folder?
        if let last, last.path == folderPath {
            folder = last.folder
        } else {
            folder = try root.folder(folderPath)
            last = (folderPath, folder)
        }
        guard let folder else { throw FileProblem.missing }
        return try folder.read(name, limit: Store.maximumFileSize)
    }
}

/// The tree of one commit, read from the object database.
final class CommitSource: ItemSource {
    let git: StoreGit
    let commit: ObjectID
    let tree: ObjectID
    /// The blob of each file read, by store path.
    private(set) var blobs: [String: ObjectID] = [:]
    /// The bytes of each file read, by blob, when `keepsContents`.
    private(set) var contents: [ObjectID: Data] = [:]
    /// Whether to keep the bytes read, for a checkout that follows.
    var keepsContents = false
    /// Whether to count the bytes of every file read, a decoded one found in the cache too, in `bytesRead`.
    var countsBytes = false
    /// The bytes of the files read, when `countsBytes`.
    private(set) var bytesRead = 0

    init(git: StoreGit, commit: ObjectID) throws {
        self.git = git
        self.commit = commit
        self.tree = try git.tree(ofCommit: commit)
    }

    func files(under folder: String) throws -> [String] {
        Array(try git.entries(inTree: tree, under: [folder]).keys)
    }

    func read(_ path: String) throws -> Data {
        guard let entry = try git.entry(inTree: tree, at: path) else { throw FileProblem.missing }
        return try read(path, entry)
    }

    func decoded(_ path: String, as item: StoreLayout.Item) throws -> StoredItem {
        guard let entry = try git.entry(inTree: tree, at: path) else { throw FileProblem.missing }
        let key = DecodedBlobs.Key(path: path, blob: entry.id)
        if !keepsContents, entry.mode == .file || entry.mode == .executable, let known = git.decodedBlobs.item(key) {
            if countsBytes { bytesRead += try git.blobSize(entry.id) }
            blobs[path] = entry.id
            return known
        }
        let stored = try StoredItem.decode(try read(path, entry), at: item)
        git.decodedBlobs.keep(stored, key)
        return stored
    }

    private func read(_ path: String, _ entry: TreeEntry) throws -> Data {
        switch entry.mode {
        case .file, .executable: break
        case .link: throw FileProblem.link
        default: throw FileProblem.notRegular
        }
        let size = try git.blobSize(entry.id)
        guard size <= Store.maximumFileSize else {
            throw FileProblem.tooLarge(size: size, limit: Store.maximumFileSize)
        }
        blobs[path] = entry.id
        if countsBytes { bytesRead += size }
        let data = try git.blob(entry.id)
        if keepsContents { contents[entry.id] = data }
        return data
    }
}

/// The working tree, except that a file holding git's conflict markers is
/// read from the last commit instead (when it has one there).
final class LastCommittedWhenConflicted: ItemSource {
    let working: ItemSource
    private let makeHead: () throws -> CommitSource?
    private var head: CommitSource??
    /// The paths read from the last commit.
    private(set) var shownAsCommitted: [String] = []

    init(_ working: ItemSource, head: @escaping () throws -> CommitSource?) {
        self.working = working
        self.makeHead = head
    }

    /// What a reader says about the files read from the last commit.
    var problems: [StoreProblem] {
        shownAsCommitted.sorted().map { StoreProblem(path: $0, reason: StoredItem.shownAsCommittedReason) }
    }

    func files(under folder: String) throws -> [String] { try working.files(under: folder) }

    func read(_ path: String) throws -> Data {
        let data = try working.read(path)
        guard StoredItem.hasConflictMarkers(data) else { return data }
        if head == nil { head = .some(try makeHead()) }
        guard let commit = head ?? nil, let committed = try? commit.read(path) else { return data }
        shownAsCommitted.append(path)
        return committed
    }
}

/// A store path as its folder and its file name.
func split(_ path: String) -> (folder: String, name: String) {
    guard let slash = path.lastIndex(of: "/") else { return ("", path) }
    return (String(path[..<slash]), String(path[path.index(after: slash)...]))
}
