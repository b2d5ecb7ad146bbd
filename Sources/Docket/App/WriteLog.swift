import DocketModel
import Foundation

/// The item writes one `StoreQueue` call made through `Store.write(from:to:)`, in order: what observers hear of, and
/// what a `write {}` that throws takes back.
final class WriteLog {
    /// One write: the items it started from (a partial state, with their order keys) and what it left.
    struct Entry {
        let before: StoreSnapshot
        let after: StoreSnapshot
        /// The `docket undo` record the write made, if any.
        var undoPage: UndoJournal.Page?
    }

    var entries: [Entry] = []

    /// Ties the undo record `page` to the last write.
    func noteUndoPage(_ page: UndoJournal.Page) {
        guard !entries.isEmpty else { return }
        entries[entries.count - 1].undoPage = page
    }

    /// What the writes changed, item by item, as the store's model takes it in.
    var deltas: [StoreModel.Delta] { entries.flatMap { StoreModel.deltas(from: $0.before, to: $0.after) } }
}

extension Store {
    /// Takes back the writes in `log`, newest first: each item as it was before, and each undo record dropped.
    /// Called holding the lock the writes were made under, so no other process's edit comes between.
    func takeBack(_ log: WriteLog) throws {
        let saved = writeLog
        writeLog = nil
        defer { writeLog = saved }
        for entry in log.entries.reversed() {
            // NB: an item the write removed gets its old order key back; one it kept, the key it has now.
            let after = StoreSnapshot(
                state: entry.after.state, order: entry.before.order.merging(entry.after.order), problems: [])
            try write(from: after, to: entry.before.state)
            if let page = entry.undoPage { dropUndoEntry(page) }
        }
    }
}
