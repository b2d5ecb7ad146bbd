import CGit2
import DocketSystem
import Foundation

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
        try withIndex { index in
            guard let checksum = git_index_checksum(index) else { return }
            try? AtomicFile.write(Data("\(ObjectID(checksum.pointee)) \(tree)\n".utf8), to: indexTreeNote, durable: false)
        }
    }

    /// The index checksum and tree Docket last noted, if any.
    func indexTreeNoted() -> (checksum: ObjectID, tree: ObjectID)? {
        guard let data = try? Folder.readFile(indexTreeNote, limit: 1 << 10) else { return nil }
        let parts = String(decoding: data, as: UTF8.self).split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        guard parts.count == 2, let checksum = ObjectID(hex: parts[0]), let tree = ObjectID(hex: parts[1]) else { return nil }
        return (checksum, tree)
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
              ObjectID(checksum.pointee) == noted.checksum else { return nil }
        return try headTreeIfNoted(noted.tree)
    }

    /// Whether the index is the one Docket noted as holding HEAD's tree.
    public func indexHoldsHeadTree() throws -> Bool {
        try withIndex { try headTreeIfIndexHoldsIt($0) != nil }
    }
}
