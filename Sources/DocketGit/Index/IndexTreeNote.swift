import DocketCGit2
import DocketSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

// Knowing that the index holds HEAD's tree, without comparing them.
//
// NB: the note is only trusted while the index file is byte for byte the one
// Docket wrote (its checksum) and HEAD still names that tree; `git add`,
// `git reset` or a commit by another program changes one of them, and then a
// full status runs once and notes again.
extension Repository {
    /// Where Docket notes which tree the index held when Docket last wrote it:
    /// the index file's checksum, then the tree's id.
    var indexTreeNote: String { gitdir + "docket/index-tree" }

    /// Notes that the index, as it is on disk now, holds exactly `tree`.
    public func noteIndexHolds(_ tree: ObjectID) throws {
        // The index Docket wrote last, still in place: its checksum is known without libgit2 reading it.
        if let written = caches.writtenIndex, Self.checksum(ofIndexAt: gitdir + "index") == written {
            return note(checksum: ObjectID(bytes: written), tree: tree)
        }
        try withIndex { index in
            guard let checksum = git_index_checksum(index) else { return }
            note(checksum: ObjectID(checksum.pointee), tree: tree)
        }
    }

    /// `noteIndexHolds`, and then the index written again with git's tree cache
    /// for `tree` (libgit2's checkout writes none), so that plain `git status`
    /// need not read HEAD's trees. Only an index Docket reads (`IndexFile`) is
    /// written again; any other keeps the note alone.
    public func noteIndexHoldsWithTreeCache(_ tree: ObjectID) throws {
        try noteIndexHolds(tree)
        guard let index = try notedIndexHoldingHead() else { return }
        _ = try writeIndex(index, changes: [], noting: tree)
    }

    func note(checksum: ObjectID, tree: ObjectID) {
        try? AtomicFile.write(Data("\(checksum) \(tree)\n".utf8), to: indexTreeNote, durable: false)
    }

    /// The index checksum and tree Docket last noted, if any.
    func indexTreeNoted() -> (checksum: ObjectID, tree: ObjectID)? {
        guard let data = try? Folder.readFile(indexTreeNote, limit: 1 << 10) else { return nil }
        let parts = String(decoding: data, as: UTF8.self).split(separator: " ").map {
            $0.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard parts.count == 2, let checksum = ObjectID(hex: parts[0]), let tree = ObjectID(hex: parts[1]) else {
            return nil
        }
        return (checksum, tree)
    }

    /// Whether the index in `gitdir` is the one Docket last noted (so Docket
    /// read or wrote it, and can read it), judged by its checksum alone,
    /// without libgit2.
    public static func indexIsNoted(gitdir: String) -> Bool {
        guard let data = try? Folder.readFile(gitdir + "docket/index-tree", limit: 1 << 10),
            let noted = String(decoding: data, as: UTF8.self).split(separator: " ").first.flatMap({
                ObjectID(hex: String($0))
            }),
            let checksum = checksum(ofIndexAt: gitdir + "index")
        else { return false }
        return noted.bytes == checksum
    }

    /// HEAD's tree when it is the tree Docket noted the index as holding.
    func headTreeIfNoted(_ tree: ObjectID) throws -> ObjectID? {
        guard let head = try head() else { return nil }
        let headTree = try self.tree(ofCommit: head)
        return headTree == tree ? headTree : nil
    }

    /// HEAD's tree when the index just read is still the one Docket noted as holding it, else nil.
    func headTreeIfIndexHoldsIt(_ index: OpaquePointer) throws -> ObjectID? {
        guard let checksum = git_index_checksum(index), let noted = indexTreeNoted(),
            ObjectID(checksum.pointee) == noted.checksum
        else { return nil }
        return try headTreeIfNoted(noted.tree)
    }

    /// Whether the index is the one Docket noted as holding HEAD's tree.
    public func indexHoldsHeadTree() throws -> Bool {
        try withIndex { try headTreeIfIndexHoldsIt($0) != nil }
    }
}
