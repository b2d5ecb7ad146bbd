import DocketMerge
import DocketModel
import DocketSystem
import Foundation

/// Something an import or a calendar sync could not read: the file, where in
/// it (a line, an item), what is wrong, and what was skipped.
public struct ExchangeProblem: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file, as the user named it.
    public let file: String
    /// Where in the file: "line 3", "task 5 (uuid 7c1e…)", or empty for the whole file.
    public let place: String
    /// What is wrong.
    public let reason: String
    /// What was left out because of it.
    public let skipped: String

    public init(file: String, place: String = "", reason: String, skipped: String) {
        self.file = file
        self.place = place
        self.reason = reason
        self.skipped = skipped
    }

    /// "tasks.json, task 3: due "soon" is not a date".
    public var description: String {
        "\(file)\(place.isEmpty ? "" : ", \(place)"): \(reason)"
    }

    /// "Skipped that task: tasks.json, task 3: due "soon" is not a date".
    public var skippedLine: String { "Skipped \(skipped): \(description)" }
}

/// What a reader made of a file: the items it holds and what it could not read.
public struct ExchangeBatch: Sendable {
    /// The items read, as the store would hold them; tombstones for items the source removed.
    public var state: AppState
    /// What could not be read, in file order.
    public var problems: [ExchangeProblem]
    public init(state: AppState = AppState(), problems: [ExchangeProblem] = []) {
        self.state = state
        self.problems = problems
    }
}

/// An import refused because some of its input did not read: nothing was changed.
public struct ImportRefused: Error, Sendable, CustomStringConvertible {
    /// Each problem found.
    public let problems: [ExchangeProblem]
    /// The option that goes on with the rest anyway.
    public let option: String
    /// What was refused: "import" or "sync".
    public var action = "import"

    public var description: String {
        let shown = problems.prefix(20).map { "  " + $0.description }
        let more = problems.count > 20 ? ["  … and \(problems.count - 20) more"] : []
        let done = action == "sync" ? "synced" : "imported"
        return (["\(problems.count == 1 ? "1 entry" : "\(problems.count) entries") could not be read, so nothing was \(done):"] + shown + more
            + ["Fix the input, or run again with \(option) to \(action) the rest."]).joined(separator: "\n")
    }
}

extension Store {
    /// Puts every store file back as the last commit has it, removing those it lacks: for a change of a clean store that failed part way.
    func putBackStoreFiles() throws {
        let changed = try git.status(under: StoreLayout.folders).filter(\.isStoreFile)
        let tracked = changed.filter { $0.kind != .new }.map(\.path)
        for entry in changed where entry.kind == .new { try? FileManager.default.removeItem(at: root.appendingPathComponent(entry.path)) }
        if let head = try git.head(), !tracked.isEmpty { try git.checkout(head, force: true, only: tracked) }
    }
}

/// What an import did.
public struct ImportOutcome: Sendable {
    /// The commit made, if anything changed.
    public let commit: String?
    /// The commit's first line: "Import from Taskwarrior: add 3 todos, complete 1".
    public let summary: String
    /// Where the imported version met a different one in the store: the merge's decisions, also in the commit message.
    public let report: MergeReport
    /// What was skipped (only with the option that allows it).
    public let skipped: [ExchangeProblem]
}

extension Store {
    /// Brings `batch` into the store as one commit, item by item through the
    /// merge rules (with no common ancestor: where an item differs, the later
    /// `alterDate` wins each field, and what lost is recorded in the commit).
    /// Items already there unchanged stay unchanged, so importing the same file
    /// twice changes nothing. Refuses, changing nothing, while the store has
    /// uncommitted changes, or when the batch has problems and `skippingBad` is false.
    public func importBatch(_ batch: ExchangeBatch, from source: String, skippingBad: Bool = false,
                            option: String = "--skip-bad") throws -> ImportOutcome {
        if !batch.problems.isEmpty && !skippingBad { throw ImportRefused(problems: batch.problems, option: option) }
        return try withLock {
            try finishInterruptedUpdate()
            try refuseUnfinishedGitOperation()
            guard try git.status(under: StoreLayout.folders).filter(\.isStoreFile).isEmpty else {
                throw StoreError.state(.uncommittedChanges)
            }
            let incoming = batch.state
            let ids = incoming.todos.map(\.id) + incoming.removed.map(\.id)
            let taskIDs = incoming.projects.flatMap { $0.tasks.map(\.id) }
            let before = try snapshot(todos: ids, projects: incoming.projects.map(\.id) + incoming.removed.compactMap(\.projectID),
                                      tombstones: ids + taskIDs + incoming.projects.map(\.id))
            let merged = merge(base: nil, ours: before.state, theirs: incoming)
            // NB: a tombstone for an item the store never had changes nothing: it is not kept.
            let known = Set(before.state.todos.map(\.id) + before.state.projects.flatMap { [$0.id] + $0.tasks.map(\.id) }
                + before.state.removed.map(\.id))
            // NB: nor does a project brought only to carry such a tombstone.
            let result = AppState(todos: merged.state.todos, projects: merged.state.projects.filter { !$0.tasks.isEmpty || known.contains($0.id) },
                                  removed: merged.state.removed.filter { known.contains($0.id) })
            guard result != before.state else {
                return ImportOutcome(commit: nil, summary: "Nothing to import from \(source): the store already has it all.",
                                     report: merged.report, skipped: batch.problems)
            }
            // All or nothing: an import that cannot write every file puts back those it wrote (the store was clean),
            // and one that is committed is undone as one step.
            let recorded = recordForUndo(action: "import from \(source)", before: before.state, after: result)
            do {
                try write(from: before, to: result)
            } catch {
                if let recorded { dropUndoEntry(recorded) }
                try? putBackStoreFiles()
                throw error
            }
            let decisions = merged.report.items.flatMap(\.lines)
            var summary = ""
            let compose = { (change: String) -> String in
                summary = "Import from \(source): " + change.prefix(1).lowercased() + change.dropFirst()
                var lines = [summary]
                if !decisions.isEmpty { lines += [""] + decisions.map { "- " + $0 } }
                if !batch.problems.isEmpty { lines += [""] + batch.problems.map { "- " + $0.skippedLine } }
                return lines.joined(separator: "\n")
            }
            let outcome = try commitHoldingLock(message: nil, composing: compose)
            guard case let .committed(id, _) = outcome else {
                return ImportOutcome(commit: nil, summary: summary, report: merged.report, skipped: batch.problems)
            }
            return ImportOutcome(commit: id, summary: summary, report: merged.report, skipped: batch.problems)
        }
    }
}
