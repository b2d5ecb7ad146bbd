import DocketCGit2
import DocketSystem
import Foundation

// Objects copied between two repositories on this machine, as a push to a
// folder and a fetch from one do: which objects the receiving side lacks,
// read from the sending side once and written as they are.

extension Repository {
    /// The objects reachable from `tips` and not from `known`, as git's
    /// `rev-list --objects <tips> --not <known>` lists them for a repository
    /// that holds all of `known` whole: commits first (newest first), then
    /// each tree and blob once, with the bytes of the trees (read here already).
    ///
    /// NB: an entry is left out only when a tree of a boundary commit (a
    /// known parent of a listed commit) holds the same id at the same path,
    /// so the receiving side has it and all it holds; and a tree is left out
    /// when listed already, because a tree is listed with all it holds that
    /// the boundary does not. (Skipping what a commit's *listed* parents hold,
    /// as an earlier copier did, left out a subtree that came back in a
    /// revert: each listing leaned on another that had leaned on it.)
    func objectsMissing(upTo tips: [ObjectID], known: [ObjectID]) throws -> [Outgoing] {
        let walk = try walkObjects(from: tips, notFrom: known, checking: false)
        guard walk.absent.isEmpty else { throw LackingObjects(absent: walk.absent) }
        return walk.found
    }

    /// Copies to `receiver` the objects reachable from `tips` and not from
    /// `known` (which it holds whole): one pack, or loose files for fewer
    /// than `unpackLimit`. What this repository lacks and `receiver` has is
    /// not sent (a repository an earlier copier left without it); what neither
    /// has throws `LackingObjects`, before any reference could name it.
    func copyObjects(
        to receiver: Repository, upTo tips: [ObjectID], known: [ObjectID], unpackLimit: Int,
        report: @escaping (_ done: Int, _ total: Int, _ bytes: Int) -> Void
    ) throws {
        func write(_ objects: [Outgoing]) throws {
            guard !objects.isEmpty else { return }
            let report = { done, bytes in report(done, objects.count, bytes) }
            try receiver.writingObjectsTogether {
                if objects.count < unpackLimit {
                    try receiver.writeLoose(objects, from: self, report: report)
                } else {
                    try receiver.writePack(objects, from: self, report: report)
                }
            }
        }
        do {
            return try write(objectsMissing(upTo: tips, known: known))
        } catch  where error is LackingObjects || (error as? GitError)?.isNotFound == true {
            // This side lacks some of them: each is looked up, here and there.
        }
        let walk = try walkObjects(from: tips, notFrom: known, checking: true)
        let lacking = walk.absent.filter { !receiver.exists($0.id) }
        guard lacking.isEmpty else { throw LackingObjects(absent: lacking) }
        try write(walk.found)
        // A tree the receiver had and this side lacks was not walked into here: what it holds is looked up there.
        let rest = try receiver.copyLacking(under: tips, notUnder: known, from: self)
        guard rest.absent.isEmpty else { throw LackingObjects(absent: rest.absent) }
    }

    /// The objects under `tips` and not under `known` that this repository
    /// lacks, each with a commit and path that name it, checking each one it
    /// meets (`known` is taken as whole here, as a note of commits found whole says).
    public func objectsLacking(under tips: [ObjectID], notUnder known: [ObjectID]) throws -> [AbsentObject] {
        try walkObjects(from: tips, notFrom: known.filter(exists), checking: true).absent
    }

    /// One walk for both: listing what to send (`checking` false: what a
    /// tree names is taken as present) or finding what is absent (each blob
    /// looked up; a tree or blob absent here is noted and not walked into).
    private func walkObjects(from tips: [ObjectID], notFrom known: [ObjectID], checking: Bool) throws -> ObjectWalk {
        let commits = try self.commits(from: tips, excluding: known)
        var walk = ObjectWalk()
        walk.found = commits.map { Outgoing(id: $0, type: GIT_OBJECT_COMMIT, bytes: nil) }
        let new = Set(commits)
        var listed = new
        var read: [ObjectID: StoredTree] = [:]
        func tree(_ id: ObjectID) throws -> StoredTree? {
            if let cached = read[id] { return cached }
            let tree: StoredTree
            do {
                tree = try withRawObject(id) { try StoredTree($0, id: id) }
            } catch let error as GitError where error.isNotFound {
                return nil
            }
            read[id] = tree
            return tree
        }
        // The boundary: known parents of listed commits, whose trees the receiving side holds whole.
        var roots: [StoredTree] = []
        var boundaryRoots = Set<ObjectID>()
        var boundaryCommits = Set<ObjectID>()
        for commit in commits {
            for parent in try commitInfo(commit).parents
            where !new.contains(parent) && boundaryCommits.insert(parent).inserted {
                // NB: a boundary tree this side cannot read only makes the walk list more.
                if let root = try? self.tree(ofCommit: parent), boundaryRoots.insert(root).inserted,
                    let stored = try tree(root)
                {
                    roots.append(stored)
                }
            }
        }
        // The boundary's distinct trees at each path met, and every id they hold, each found once per path.
        // NB: many boundary commits share most folders; without this, a fetch of 50 commits of eight machines'
        // merges compared each folder met with each boundary tree's folders one by one (seconds, not milliseconds).
        var boundaryAt: [String: (trees: [StoredTree], held: Set<ObjectID>)] = [:]
        func boundary(at path: String, trees: () throws -> [StoredTree]) rethrows -> (
            trees: [StoredTree], held: Set<ObjectID>
        ) {
            if let known = boundaryAt[path] { return known }
            let found = try trees()
            let side = (found, Set(found.lazy.flatMap { $0.entries.lazy.map(\.id) }))
            boundaryAt[path] = side
            return side
        }

        // NB: a stack of its own, not recursion: a remote decides how deep its trees go (5,000 folders deep
        // overflowed the thread's stack).
        func visit(_ root: ObjectID, commit: ObjectID) throws {
            var pending = [(id: root, path: "")]
            while let (id, path) = pending.popLast() {
                guard listed.insert(id).inserted else { continue }
                guard let new = try tree(id) else {
                    walk.absent.append(
                        AbsentObject(id: id, kind: "tree", commit: commit, path: path.isEmpty ? "/" : path))
                    continue
                }
                walk.found.append(Outgoing(id: id, type: GIT_OBJECT_TREE, bytes: new.bytes))
                let side = boundary(at: path) { roots }
                for entry in new.entries where !entry.isSubmodule && !side.held.contains(entry.id) {
                    let name = new.name(of: entry)
                    if entry.isTree {
                        let folder = path + String(decoding: name, as: UTF8.self) + "/"
                        _ = try boundary(at: folder) {
                            var ids = Set<ObjectID>()
                            return try side.trees.compactMap { theirs in
                                guard let id = theirs.subtree(named: name), ids.insert(id).inserted else { return nil }
                                return try tree(id)
                            }
                        }
                        if !listed.contains(entry.id) { pending.append((entry.id, folder)) }
                    } else if listed.insert(entry.id).inserted {
                        if checking && !exists(entry.id) {
                            walk.absent.append(
                                AbsentObject(
                                    id: entry.id, kind: "blob", commit: commit,
                                    path: path + String(decoding: name, as: UTF8.self)))
                        } else {
                            walk.found.append(Outgoing(id: entry.id, type: GIT_OBJECT_BLOB, bytes: nil))
                        }
                    }
                }
            }
        }
        for commit in commits {
            let root = try self.tree(ofCommit: commit)
            guard !boundaryRoots.contains(root) else { continue }
            try visit(root, commit: commit)
        }
        return walk
    }

    /// Copies into this repository what it lacks under `tips` (beyond what
    /// `known` holds whole) from `source`, until nothing more is absent or
    /// `source` lacks it too: the objects copied, and those no side holds.
    func copyLacking(under tips: [ObjectID], notUnder known: [ObjectID], from source: Repository) throws -> (
        copied: Int, absent: [AbsentObject]
    ) {
        var copied = 0
        while true {
            let absent = try objectsLacking(under: tips, notUnder: known)
            let held = absent.filter { source.exists($0.id) }
            if held.isEmpty { return (copied, absent) }
            // NB: a tree copied may name objects absent here too: the next walk looks into it.
            try writingObjectsTogether {
                try writeLoose(
                    held.map {
                        Outgoing(id: $0.id, type: $0.kind == "tree" ? GIT_OBJECT_TREE : GIT_OBJECT_BLOB, bytes: nil)
                    },
                    from: source, report: { _, _ in })
            }
            copied += held.count
        }
    }

    /// Writes these objects of `source` as one pack with its index, then lists the packs again.
    func writePack(_ objects: [Outgoing], from source: Repository, report: (Int, Int) -> Void) throws {
        var pack = try PackFileWriter(folder: commonDir + "objects/pack/")
        var sent = 0
        do {
            for (done, object) in objects.enumerated() {
                try source.withBytes(of: object) { bytes in
                    guard let entry = PackFileWriter.entry(type: object.type, bytes) else {
                        throw UnwritableObject(id: object.id)
                    }
                    try pack.append(id: object.id.oid, entry: entry)
                    sent += entry.count
                }
                report(done + 1, sent)
            }
            try pack.finish()
        } catch {
            pack.abandon()
            throw error
        }
        try refreshObjects()
    }

    /// Writes these objects of `source` one file each, as git keeps a push or
    /// fetch of fewer than 100 objects (`transfer.unpackLimit`), so that small
    /// transfers do not leave a pack each: the trees and blobs first, then the
    /// commits, each after its parents.
    ///
    /// NB: a process killed part way leaves the files written so far. A fetch
    /// (libgit2's too) takes a branch's commit being here as having all it
    /// holds, and moves the branch without copying anything: so no commit is
    /// written before what it names.
    func writeLoose(_ objects: [Outgoing], from source: Repository, report: (Int, Int) -> Void) throws {
        var odb: OpaquePointer?
        try check(git_repository_odb(&odb, pointer), "git_repository_odb")
        defer { git_odb_free(odb) }
        // `objectsMissing` lists the commits first, each before its parents.
        let ordered =
            objects.filter { $0.type != GIT_OBJECT_COMMIT } + objects.filter { $0.type == GIT_OBJECT_COMMIT }.reversed()
        var total = 0
        for (done, object) in ordered.enumerated() {
            var written = git_oid()
            try source.withBytes(of: object) { bytes in
                try check(git_odb_write(&written, odb, bytes.baseAddress, bytes.count, object.type), "git_odb_write")
                total += bytes.count
            }
            report(done + 1, total)
            if done == 0 { Fault.point("amid-loose-objects") }
        }
    }

    /// Runs `body` with an outgoing object's bytes: those read already, else read now.
    ///
    /// NB: an object is read whole into memory: its size is read from its header first, and one over
    /// `ObjectTooLarge.limit` is refused (a 2 GiB blob of zeros packs into 9 MB).
    private func withBytes(of object: Outgoing, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        if let bytes = object.bytes { return try bytes.withUnsafeBytes(body) }
        if let size = try? objectHeader(object.id).size, size > ObjectTooLarge.limit {
            throw ObjectTooLarge(id: object.id, size: size)
        }
        try withRawObject(object.id, body)
    }

    /// Whether the object is in this repository.
    public func exists(_ id: ObjectID) -> Bool {
        var odb: OpaquePointer?
        guard git_repository_odb(&odb, pointer) == 0 else { return false }
        defer { git_odb_free(odb) }
        var oid = id.oid
        return git_odb_exists(odb, &oid) == 1
    }

    /// Runs `body` with an object's bytes as stored (no header).
    func withRawObject<T>(_ id: ObjectID, _ body: (UnsafeRawBufferPointer) throws -> T) throws -> T {
        var odb: OpaquePointer?
        try check(git_repository_odb(&odb, pointer), "git_repository_odb")
        defer { git_odb_free(odb) }
        var object: OpaquePointer?
        var oid = id.oid
        try check(git_odb_read(&object, odb, &oid), "git_odb_read")
        defer { git_odb_object_free(object) }
        return try body(UnsafeRawBufferPointer(start: git_odb_object_data(object), count: git_odb_object_size(object)))
    }
}

/// An object larger than a copy between repositories takes.
public struct ObjectTooLarge: Error, Sendable {
    /// The largest object copied: GitHub's limit for a file too.
    public static let limit = 100 << 20
    public let id: ObjectID
    public let size: Int
}

/// A tree whose bytes do not read as git writes trees: the repository holding it is damaged.
public struct DamagedTree: Error, CustomStringConvertible, Sendable {
    /// The tree's id.
    public let id: ObjectID
    public var description: String {
        "the tree \(id.short) does not read as a git tree, so the repository holding it is damaged; nothing was "
            + "copied; 'git fsck' there names what is wrong"
    }
}

/// An object zlib could not compress into a pack (it runs out of memory): nothing of the pack is kept.
public struct UnwritableObject: Error, CustomStringConvertible, Sendable {
    /// The object's id.
    public let id: ObjectID
    public var description: String {
        "zlib could not compress object \(id.short) (out of memory); nothing was copied; try again with more memory free"
    }
}

/// Objects a copy needs that neither side holds.
struct LackingObjects: Error {
    let absent: [AbsentObject]
}

/// What a walk of the objects under some commits found.
private struct ObjectWalk {
    /// The objects this repository holds, commits first (newest first), each once.
    var found: [Outgoing] = []
    /// Those it lacks.
    var absent: [AbsentObject] = []
}

/// An object a repository lacks, and where it was met: a path in a commit's tree.
public struct AbsentObject: Equatable, Sendable, CustomStringConvertible {
    /// The object's id.
    public let id: ObjectID
    /// "tree" or "blob".
    public let kind: String
    /// A commit whose tree names it.
    public let commit: ObjectID
    /// Its path in that tree ("/" for the tree itself, a folder ending in "/").
    public let path: String

    public var description: String { "\(kind) \(id.short) (\(path) in commit \(commit.short))" }
}

/// An object sent to another repository: its id, its type, and its bytes when read already.
struct Outgoing {
    let id: ObjectID
    let type: git_object_t
    let bytes: [UInt8]?
}

/// A tree object's bytes and where each entry ("<mode> <name>\0<20-byte id>") lies in them.
struct StoredTree {
    struct Entry {
        let name: Range<Int>
        let id: ObjectID
        let isTree: Bool
        let isSubmodule: Bool
    }

    let bytes: [UInt8]
    let entries: [Entry]
    /// The ids of the entries that are trees, by name.
    private let subtrees: [ArraySlice<UInt8>: ObjectID]

    init(_ raw: UnsafeRawBufferPointer, id: ObjectID) throws {
        let bytes = [UInt8](raw)
        var entries: [Entry] = []
        var at = 0
        while at < bytes.count {
            guard let space = bytes[at...].firstIndex(of: 0x20), let nul = bytes[space...].firstIndex(of: 0),
                nul + 21 <= bytes.count
            else {
                throw DamagedTree(id: id)
            }
            let mode = bytes[at..<space]
            entries.append(
                Entry(
                    name: (space + 1)..<nul, id: bytes[(nul + 1)..<(nul + 21)].withUnsafeBytes { ObjectID(raw: $0) },
                    isTree: mode.elementsEqual("40000".utf8), isSubmodule: mode.elementsEqual("160000".utf8)))
            at = nul + 21
        }
        self.bytes = bytes
        self.entries = entries
        var subtrees: [ArraySlice<UInt8>: ObjectID] = [:]
        for entry in entries where entry.isTree { subtrees[bytes[entry.name]] = entry.id }
        self.subtrees = subtrees
    }

    func name(of entry: Entry) -> ArraySlice<UInt8> { bytes[entry.name] }

    /// The id of the tree named `name` in this one, if any.
    func subtree(named name: ArraySlice<UInt8>) -> ObjectID? { subtrees[name] }
}
