import CGit2
import DocketSystem
import Foundation

/// What a push to a repository on this machine did itself.
enum FolderPush {
    /// The remote branch now names the commit.
    case pushed
    /// The branch already named it.
    case upToDate
    /// Not a case it takes: a new branch, a branch that does not fast-forward,
    /// a remote that is not bare or is shallow, or one where `git receive-pack`
    /// would do more (run a hook, check objects…). The push goes on as before:
    /// through `git receive-pack`, else libgit2, which say why when they cannot.
    case leftToGit
}

extension Repository {
    /// Pushes `local` to the branch `remoteReference` of the bare repository
    /// at `folder`, when that branch exists and the push fast-forwards it:
    /// writes the objects the remote lacks, flushes them to disk, then moves
    /// the branch only if it still names what it named when the push began.
    ///
    /// NB: libgit2's local transport pushes to a folder as to a server: it
    /// searches all new objects for deltas (a third of a push at 100,000
    /// items, among folder trees that share nothing), deflates them, and its
    /// indexer then inflates and hashes each again into the remote. What the
    /// remote lacks is known without a search: the objects of each new commit
    /// that none of its parents has at the same path (a parent is either new
    /// too, or reachable from the branch, so in the remote). They are read
    /// once and written as they are: one pack without deltas, as a commit's
    /// pack is, or loose files for fewer than 100, as `git receive-pack` does.
    ///
    /// Afterwards, as `git receive-pack` does (`receive.autogc`), `git gc
    /// --auto` tidies the remote when it holds many loose objects or packs.
    func pushToFolder(_ folder: String, local: ObjectID, remoteReference: String, git: String?,
                      progress: (TransferProgress) -> Void = { _ in }) throws -> FolderPush {
        guard folder.hasPrefix("/"), !FileManager.default.fileExists(atPath: folder + "/shallow") else { return .leftToGit }
        var remotePointer: OpaquePointer?
        guard git_repository_open_ext(&remotePointer, folder, GIT_REPOSITORY_OPEN_NO_SEARCH.rawValue, nil) == 0,
              let remotePointer else { return .leftToGit }
        let remote = Repository(owning: remotePointer)
        guard git_repository_is_bare(remote.pointer) == 1, git_repository_is_shallow(remote.pointer) == 0,
              let receiving = ReceiveSettings(remote) else { return .leftToGit }
        var reference: OpaquePointer?
        guard git_reference_lookup(&reference, remote.pointer, remoteReference) == 0 else { return .leftToGit }
        defer { git_reference_free(reference) }
        guard git_reference_type(reference) == GIT_REFERENCE_DIRECT, let tip = ObjectID(git_reference_target(reference)) else {
            return .leftToGit
        }
        if tip == local { return .upToDate }
        var localOID = local.oid, tipOID = tip.oid
        guard exists(tip), git_graph_descendant_of(pointer, &localOID, &tipOID) == 1,
              let objects = try? objectsMissing(from: tip, upTo: local) else { return .leftToGit }

        try remote.writingObjectsTogether {
            let report = { (done: Int, bytes: Int) in
                progress(TransferProgress(stage: .sending, objectsDone: done, objectsTotal: objects.count, bytes: bytes))
            }
            if objects.count < receiving.unpackLimit {
                try remote.writeLoose(objects, from: self, report: report)
            } else {
                try remote.writePack(objects, from: self, report: report)
            }
        }
        Fault.point("after-push-objects")
        var odb: OpaquePointer?
        try check(git_repository_odb(&odb, remote.pointer), "git_repository_odb")
        defer { git_odb_free(odb) }
        try check(git_odb_refresh(odb), "git_odb_refresh")
        var moved: OpaquePointer?
        defer { git_reference_free(moved) }
        try check(git_reference_create_matching(&moved, remote.pointer, remoteReference, &localOID, 1, &tipOID, "push"),
                  "git_reference_create_matching")
        if let git, receiving.autoGC, remote.wantsGC() {
            _ = try? Spawn.run([git, "gc", "--auto", "--quiet"], environment: ["GIT_DIR": nil, "GIT_WORK_TREE": nil], folder: remote.commonDir)
        }
        return .pushed
    }

    /// Whether `git gc --auto` would act: more loose objects than `gc.auto`
    /// (counted in one of the 256 folders, as git estimates them) or more packs
    /// than `gc.autoPackLimit`.
    private func wantsGC() -> Bool {
        let objects = commonDir + "objects/"
        let auto = (try? configInt("gc.auto")).flatMap { $0 } ?? 6_700
        if auto > 0 {
            let sample = ((try? FileManager.default.contentsOfDirectory(atPath: objects + "17")) ?? []).filter { $0.count == 38 }
            if sample.count > (auto + 255) / 256 { return true }
        }
        let packLimit = (try? configInt("gc.autoPackLimit")).flatMap { $0 } ?? 50
        let packs = (try? FileManager.default.contentsOfDirectory(atPath: objects + "pack")) ?? []
        return packLimit > 0 && packs.filter { $0.hasSuffix(".pack") }.count > packLimit
    }

    /// The commits reachable from `local` but not from `tip`, and the trees and
    /// blobs each has that none of its parents has at the same path: commits
    /// first, each id once, with the bytes of the trees (read here already).
    ///
    /// NB: an object whose id any parent's tree holds is in the remote whatever
    /// its name, so entries are matched by id; names only pair a changed
    /// folder with the parents' folders of its name.
    private func objectsMissing(from tip: ObjectID, upTo local: ObjectID) throws -> [Outgoing] {
        let commits = try self.commits(from: local, excluding: [tip])
        var objects = commits.map { Outgoing(id: $0, type: GIT_OBJECT_COMMIT, bytes: nil) }
        var listed = Set(commits.map { ShortID($0.bytes[...]) })
        var read: [ObjectID: StoredTree] = [:]
        func tree(_ id: ObjectID) throws -> StoredTree {
            if let known = read[id] { return known }
            let tree = try withRawObject(id) { try StoredTree($0, id: id) }
            read[id] = tree
            return tree
        }
        // A tree no parent has: it, and what in it no parent has.
        func add(_ id: ObjectID, parents: [ObjectID]) throws {
            guard !parents.contains(id), listed.insert(ShortID(id.bytes[...])).inserted else { return }
            let new = try tree(id)
            objects.append(Outgoing(id: id, type: GIT_OBJECT_TREE, bytes: new.bytes))
            let theirs = try parents.map(tree)
            let held = Set(theirs.flatMap { $0.entries.map(\.id) })
            for entry in new.entries where !entry.isSubmodule && !held.contains(entry.id) {
                if entry.isTree {
                    let name = new.name(of: entry)
                    let same = theirs.compactMap { parent in parent.entries.first { $0.isTree && parent.name(of: $0) == name }.map { parent.objectID(of: $0) } }
                    try add(new.objectID(of: entry), parents: same)
                } else if listed.insert(entry.id).inserted {
                    objects.append(Outgoing(id: new.objectID(of: entry), type: GIT_OBJECT_BLOB, bytes: nil))
                }
            }
        }
        for commit in commits {
            try add(try self.tree(ofCommit: commit), parents: try commitInfo(commit).parents.map { try self.tree(ofCommit: $0) })
        }
        return objects
    }

    /// Writes these objects of `source` as one pack with its index.
    private func writePack(_ objects: [Outgoing], from source: Repository, report: (Int, Int) -> Void) throws {
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
    }

    /// Writes these objects of `source` one file each, as git's `receive-pack`
    /// keeps a push of fewer than 100 objects (`transfer.unpackLimit`), so
    /// that small pushes do not leave a pack each.
    private func writeLoose(_ objects: [Outgoing], from source: Repository, report: (Int, Int) -> Void) throws {
        var odb: OpaquePointer?
        try check(git_repository_odb(&odb, pointer), "git_repository_odb")
        defer { git_odb_free(odb) }
        var total = 0
        for (done, object) in objects.enumerated() {
            var written = git_oid()
            try source.withBytes(of: object) { bytes in
                try check(git_odb_write(&written, odb, bytes.baseAddress, bytes.count, object.type), "git_odb_write")
                total += bytes.count
            }
            report(done + 1, total)
        }
    }

    /// Runs `body` with an outgoing object's bytes: those read already, else read now.
    private func withBytes(of object: Outgoing, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        if let bytes = object.bytes { return try bytes.withUnsafeBytes(body) }
        try withRawObject(object.id, body)
    }

    /// Whether the object is in this repository.
    private func exists(_ id: ObjectID) -> Bool {
        var odb: OpaquePointer?
        guard git_repository_odb(&odb, pointer) == 0 else { return false }
        defer { git_odb_free(odb) }
        var oid = id.oid
        return git_odb_exists(odb, &oid) == 1
    }

    /// Runs `body` with an object's bytes as stored (no header).
    private func withRawObject<T>(_ id: ObjectID, _ body: (UnsafeRawBufferPointer) throws -> T) throws -> T {
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

/// What `git receive-pack` would do at a remote beyond storing objects and
/// moving a branch; nil when it would do more than a folder push does.
private struct ReceiveSettings {
    /// Fewer objects than this are stored loose (`receive.unpackLimit`, `transfer.unpackLimit`, 100).
    let unpackLimit: Int
    /// Whether `git gc --auto` runs after a push (`receive.autogc`).
    let autoGC: Bool

    /// The hooks `git receive-pack` runs.
    private static let hooks = ["pre-receive", "update", "proc-receive", "post-receive", "post-update", "reference-transaction", "push-to-checkout"]

    init?(_ remote: Repository) {
        do {
            if try remote.configBool("receive.fsckObjects") ?? remote.configBool("transfer.fsckObjects") ?? false { return nil }
            if try remote.configBool("receive.updateServerInfo") ?? false { return nil }
            // A size limit, or branches hidden from pushes, are receive-pack's to enforce.
            for name in ["receive.maxInputSize", "receive.hideRefs", "transfer.hideRefs"] where try remote.configString(name) != nil { return nil }
            if let shared = try remote.configString("core.sharedRepository"),
               !["false", "umask", "no", "off", "0"].contains(shared.lowercased()) { return nil }
            let hooks = try remote.configString("core.hooksPath").map { path in
                Home.expand(path).hasPrefix("/") ? Home.expand(path) : remote.commonDir + path
            } ?? remote.commonDir + "hooks"
            if Self.hooks.contains(where: { access(hooks + "/" + $0, X_OK) == 0 }) { return nil }
            unpackLimit = try remote.configInt("receive.unpackLimit") ?? remote.configInt("transfer.unpackLimit") ?? 100
            autoGC = try remote.configBool("receive.autogc") ?? true
        } catch {
            // A setting git would read differently, or fail on: git says what it makes of it.
            return nil
        }
    }
}

/// An object a push sends: its id, its type, and its bytes when read already.
private struct Outgoing {
    let id: ObjectID
    let type: git_object_t
    let bytes: [UInt8]?
}

/// An object id as three integers, cheap to hash (an `ObjectID` holds an array).
private struct ShortID: Hashable {
    let a: UInt64, b: UInt64, c: UInt32

    init(_ bytes: ArraySlice<UInt8>) {
        (a, b, c) = bytes.withUnsafeBytes { raw in
            (raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
             raw.loadUnaligned(fromByteOffset: 16, as: UInt32.self))
        }
    }
}

/// A tree object's bytes and where each entry ("<mode> <name>\0<20-byte id>") lies in them.
private struct StoredTree {
    struct Entry {
        let name: Range<Int>
        let id: ShortID
        let idStart: Int
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
            entries.append(Entry(name: (space + 1)..<nul, id: ShortID(bytes[(nul + 1)..<(nul + 21)]), idStart: nul + 1,
                                 isTree: mode.elementsEqual("40000".utf8), isSubmodule: mode.elementsEqual("160000".utf8)))
            at = nul + 21
        }
        self.bytes = bytes
        self.entries = entries
    }

    func name(of entry: Entry) -> ArraySlice<UInt8> { bytes[entry.name] }
    func objectID(of entry: Entry) -> ObjectID { ObjectID(bytes: Array(bytes[entry.idStart..<(entry.idStart + 20)])) }
}
