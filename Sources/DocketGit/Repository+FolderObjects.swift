import CGit2
import DocketSystem
import Foundation

// Objects copied between two repositories on this machine, as a push to a
// folder and a fetch from one do: which objects the receiving side lacks,
// read from the sending side once and written as they are.

extension Repository {
    /// The commits reachable from `tips` but not from `known` (commits the
    /// receiving side has, with all they hold), and the trees and blobs each
    /// has that none of its parents has at the same path: commits first, each
    /// id once, with the bytes of the trees (read here already).
    ///
    /// NB: a parent is either listed too, or reachable from `known`, so what
    /// its tree holds is on the receiving side. An object whose id any
    /// parent's tree holds is there whatever its name, so entries are matched
    /// by id; names only pair a changed folder with the parents' folders of its name.
    func objectsMissing(upTo tips: [ObjectID], known: [ObjectID]) throws -> [Outgoing] {
        let commits = try self.commits(from: tips, excluding: known)
        var objects = commits.map { Outgoing(id: $0, type: GIT_OBJECT_COMMIT, bytes: nil) }
        var listed = Set(commits)
        var read: [ObjectID: StoredTree] = [:]
        func tree(_ id: ObjectID) throws -> StoredTree {
            if let cached = read[id] { return cached }
            let tree = try withRawObject(id) { try StoredTree($0, id: id) }
            read[id] = tree
            return tree
        }
        // A tree no parent has: it, and what in it no parent has.
        func add(_ id: ObjectID, parents: [ObjectID]) throws {
            guard !parents.contains(id), listed.insert(id).inserted else { return }
            let new = try tree(id)
            objects.append(Outgoing(id: id, type: GIT_OBJECT_TREE, bytes: new.bytes))
            let theirs = try parents.map(tree)
            let held = Set(theirs.flatMap { $0.entries.map(\.id) })
            for entry in new.entries where !entry.isSubmodule && !held.contains(entry.id) {
                if entry.isTree {
                    let name = new.name(of: entry)
                    let same = theirs.compactMap { parent in parent.entries.first { $0.isTree && parent.name(of: $0) == name }?.id }
                    try add(entry.id, parents: same)
                } else if listed.insert(entry.id).inserted {
                    objects.append(Outgoing(id: entry.id, type: GIT_OBJECT_BLOB, bytes: nil))
                }
            }
        }
        for commit in commits {
            try add(try self.tree(ofCommit: commit), parents: try commitInfo(commit).parents.map { try self.tree(ofCommit: $0) })
        }
        return objects
    }

    /// Writes these objects of `source` as one pack with its index, then lists the packs again.
    func writePack(_ objects: [Outgoing], from source: Repository, report: (Int, Int) -> Void) throws {
        var pack = try PackFileWriter(folder: commonDir + "objects/pack/")
        var sent = 0
        do {
            for (done, object) in objects.enumerated() {
                try source.withBytes(of: object) { bytes in
                    guard let entry = PackFileWriter.entry(type: object.type, bytes) else {
                        throw GitError(code: -1, function: "deflate", message: "could not deflate object \(object.id)")
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
        let ordered = objects.filter { $0.type != GIT_OBJECT_COMMIT } + objects.filter { $0.type == GIT_OBJECT_COMMIT }.reversed()
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
    private func withBytes(of object: Outgoing, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        if let bytes = object.bytes { return try bytes.withUnsafeBytes(body) }
        try withRawObject(object.id, body)
    }

    /// Whether the object is in this repository.
    func exists(_ id: ObjectID) -> Bool {
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

    init(_ raw: UnsafeRawBufferPointer, id: ObjectID) throws {
        let bytes = [UInt8](raw)
        var entries: [Entry] = []
        var at = 0
        while at < bytes.count {
            guard let space = bytes[at...].firstIndex(of: 0x20), let nul = bytes[space...].firstIndex(of: 0), nul + 21 <= bytes.count else {
                throw GitError(code: -1, function: "tree", message: "tree \(id) does not parse")
            }
            let mode = bytes[at..<space]
            entries.append(Entry(name: (space + 1)..<nul, id: bytes[(nul + 1)..<(nul + 21)].withUnsafeBytes { ObjectID(raw: $0) },
                                 isTree: mode.elementsEqual("40000".utf8), isSubmodule: mode.elementsEqual("160000".utf8)))
            at = nul + 21
        }
        self.bytes = bytes
        self.entries = entries
    }

    func name(of entry: Entry) -> ArraySlice<UInt8> { bytes[entry.name] }
}
