import DocketGit
import DocketMerge
import DocketModel
import DocketSystem
import Foundation

/// The record a commit of a calendar sync or an import carries: its decisions,
/// what it left out, and the two sides a lost value is restored from. It is
/// kept in `.git/docket/pending-record` from before the change's files are
/// written until the commit that carries it, so a change killed in between
/// leaves it for the next commit (`commit`, `sync`, another calendar sync).
struct PendingRecord: Codable {
    /// The commit's title before the change in words: "Calendar sync (calendar)", "Import from Taskwarrior".
    var title: String
    var report: MergeReport
    /// Lines after the decisions: what an import skipped, kept without using, or did not carry.
    var notes: [String]?
    /// HEAD when the record was made: a commit on another HEAD is not the change's.
    var head: String?
    var ours: String?
    var theirs: String?
}

extension Store {
    /// Where a record waits for its commit.
    var pendingRecordFile: String { gitdir + "docket/pending-record" }

    /// Notes the record of a change about to be written: with `theirs` (the other side's items), a commit of them on
    /// HEAD is made and kept reachable first, for `merges restore`.
    func notePendingRecord(
        title: String, report: MergeReport, notes: [String] = [], theirs: [UUID: CalendarEntry]?, side: String
    ) throws {
        let head = try git.head()
        var record = PendingRecord(
            title: title, report: report, notes: notes.isEmpty ? nil : notes, head: head?.description)
        if let theirs, let head {
            let commit = try sideCommit(theirs, on: head, message: side)
            try keepReachable(commit)
            (record.ours, record.theirs) = (head.description, commit.description)
        }
        try StoreError.gate(writing: true) {
            try AtomicFile.write(try JSONEncoder().encode(record), to: pendingRecordFile)
        }
    }

    /// The record of a change not committed yet, if any.
    func pendingRecord() -> PendingRecord? {
        guard let data = try? Folder.readFile(pendingRecordFile, limit: 1 << 24) else { return nil }
        return try? JSONDecoder().decode(PendingRecord.self, from: data)
    }

    /// Forgets a record once a commit carries it.
    func clearPendingRecord() { try? FileManager.default.removeItem(atPath: pendingRecordFile) }

    /// A commit of HEAD's tree carrying a record, where the store did not change (the other side's values lost).
    func commitPendingRecord(_ record: PendingRecord) throws -> CommitOutcome {
        guard let head = try git.head() else { return .nothingToCommit }
        guard let branch = try git.headBranch() else { throw StoreError.state(.detachedHead) }
        let message = Store.recordMessage(record, change: "Keep the store's values over the other side's") + "\n"
        let id = try git.writingObjectsTogether {
            try git.commit(tree: try git.tree(ofCommit: head), parents: [head], message: message)
        }
        let summary = String(message.prefix { $0 != "\n" })
        try moveBranchReference(branch, to: id, message: "commit: " + summary)
        return .committed(id: id.description, message: summary)
    }

    /// The message of a commit that carries a record: the title and the change in words, the decisions, the notes, and
    /// the sides.
    static func recordMessage(_ record: PendingRecord, change: String) -> String {
        var lines = [record.title + ": " + change.prefix(1).lowercased() + change.dropFirst()]
        let decisions = (record.report.items.flatMap(\.lines) + record.report.farAhead.map(\.line)).map { "- " + $0 }
        if !decisions.isEmpty { lines += [""] + decisions }
        if let notes = record.notes, !notes.isEmpty { lines += [""] + notes }
        if let ours = record.ours.flatMap(ObjectID.init(hex:)), let theirs = record.theirs.flatMap(ObjectID.init(hex:))
        {
            lines += ["", MergeHistory.replayTrailers(record.report, ours: ours, theirs: theirs)]
        }
        return lines.joined(separator: "\n")
    }

    /// A commit on `head` whose files hold these items (another side of a merge), so a value it lost can be restored
    /// from it.
    func sideCommit(_ theirs: [UUID: CalendarEntry], on head: ObjectID, message: String) throws -> ObjectID {
        try git.writingObjectsTogether {
            var blobs: [String: ObjectID] = [:]
            for entry in theirs.values {
                let item: StoredItem
                switch entry {
                case let .todo(todo): item = .todo(todo)
                case let .task(task, project): item = .task(task, project: project, position: nil)
                }
                blobs[item.path] = try git.writeBlob(try item.text(keeping: nil))
            }
            let tree = try git.tree(try git.tree(ofCommit: head), replacing: blobs)
            return try git.commit(tree: tree, parents: [head], message: message + "\n")
        }
    }
}
