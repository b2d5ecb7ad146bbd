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

    /// HEAD's tree when the index just read is still the one Docket noted as holding it, else nil.
    func headTreeIfIndexHoldsIt(_ index: OpaquePointer) throws -> ObjectID? {
        guard let checksum = git_index_checksum(index),
              let data = try? Folder.readFile(indexTreeNote, limit: 1 << 10) else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        let parts = text.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        guard parts.count == 2, parts[0] == ObjectID(checksum.pointee).description, let head = try head() else { return nil }
        let headTree = try tree(ofCommit: head)
        return parts[1] == headTree.description ? headTree : nil
    }

    /// Whether the index is the one Docket noted as holding HEAD's tree.
    public func indexHoldsHeadTree() throws -> Bool {
        try withIndex { try headTreeIfIndexHoldsIt($0) != nil }
    }
}
