import ArgumentParser
import Docket
import Foundation

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Say what changed since the last commit.",
        discussion: """
            --json prints {unfinishedGitOperation, changes}: the git operation left \
            unfinished (merge, rebase, cherry-pick, revert, other) or null, and per \
            changed file {path, change, item, description}: change is added, changed, \
            removed, unreadable, conflicted or file; item is todo, project, task or null.

            Example: docket status
            """)

    @OptionGroup var store: StoreOptions
    @Flag(help: "Print JSON for scripts.") var json = false

    /// What --json prints: every key always there, `null` where there is no value (as the help promises).
    struct Shown: Encodable {
        struct Change: Encodable {
            let path: String
            let change: String
            let item: String?
            let description: String

            private enum CodingKeys: String, CodingKey { case path, change, item, description }

            func encode(to encoder: Encoder) throws {
                var keys = encoder.container(keyedBy: CodingKeys.self)
                try keys.encode(path, forKey: .path)
                try keys.encode(change, forKey: .change)
                try keys.encode(item, forKey: .item)
                try keys.encode(description, forKey: .description)
            }
        }
        let unfinishedGitOperation: String?
        let changes: [Change]

        private enum CodingKeys: String, CodingKey { case unfinishedGitOperation, changes }

        func encode(to encoder: Encoder) throws {
            var keys = encoder.container(keyedBy: CodingKeys.self)
            try keys.encode(unfinishedGitOperation, forKey: .unfinishedGitOperation)
            try keys.encode(changes, forKey: .changes)
        }
    }

    func run() throws {
        let store = try self.store.open()
        if json {
            let changes = try store.status().filter { $0.kind != .removalRecorded }.map { change -> Shown.Change in
                let (word, item): (String, ItemDecision.Kind?) =
                    switch change.kind {
                    case let .added(kind): ("added", kind)
                    case let .changed(kind): ("changed", kind)
                    case let .removed(kind): ("removed", kind)
                    case .unreadable: ("unreadable", nil)
                    case let .conflicted(kind): ("conflicted", kind)
                    case .removalRecorded, .file: ("file", nil)
                    }
                return Shown.Change(
                    path: change.path, change: word, item: item?.rawValue, description: change.description)
            }
            let operation = store.unfinishedGitOperation.map { operation -> String in
                switch operation {
                case .merge: "merge"
                case .rebase: "rebase"
                case .cherryPick: "cherry-pick"
                case .revert: "revert"
                case .other: "other"
                }
            }
            return try Output.json(Shown(unfinishedGitOperation: operation, changes: changes))
        }
        if store.hasInterruptedUpdate {
            print(
                "A pull was interrupted while it wrote the store's files; the next command that changes the store "
                    + "(a commit, sync, edit, add, done…) finishes it first.")
        }
        if let operation = store.unfinishedGitOperation {
            print(
                Output.safe(
                    StoreError.state(.unfinishedGitOperation(operation)).description.prefix(1).uppercased()
                        + StoreError.state(.unfinishedGitOperation(operation)).description.dropFirst()) + ".")
        }
        if let line = setAsideLine(store) { print(Output.safe(line)) }
        if let ahead = try? store.writersAhead(), !ahead.isEmpty {
            let said = ahead.map { "\($0.writer) (\($0.commits) commit\($0.commits == 1 ? "" : "s"))" }
            print(
                "Writers whose work the shared branch does not hold yet, at the last sync: \(said.joined(separator: ", ")); "
                    + "the next sync that pushes to the branch carries it there.")
        }
        let changes = try store.status().filter { $0.kind != .removalRecorded }
        if changes.isEmpty { return print("Nothing to commit; the store matches its last commit.") }
        print("Not committed yet:")
        for change in changes { print("  \(Output.safe(change.description))") }
    }
}
