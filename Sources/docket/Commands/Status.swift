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

    struct Shown: Encodable {
        struct Change: Encodable { let path: String; let change: String; let item: String?; let description: String }
        let unfinishedGitOperation: String?
        let changes: [Change]
    }

    func run() throws {
        let store = try self.store.open()
        if json {
            let changes = try store.status().filter { $0.kind != .removalRecorded }.map { change -> Shown.Change in
                let (word, item): (String, ItemDecision.Kind?) = switch change.kind {
                case let .added(kind): ("added", kind)
                case let .changed(kind): ("changed", kind)
                case let .removed(kind): ("removed", kind)
                case .unreadable: ("unreadable", nil)
                case let .conflicted(kind): ("conflicted", kind)
                case .removalRecorded, .file: ("file", nil)
                }
                return Shown.Change(path: change.path, change: word, item: item?.rawValue, description: change.description)
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
            print("A pull was interrupted while it wrote the store's files; the next command that changes the store "
                + "(a commit, sync, edit, add, done…) finishes it first.")
        }
        if let operation = store.unfinishedGitOperation {
            print(Output.safe(StoreError.state(.unfinishedGitOperation(operation)).description.prefix(1).uppercased()
                + StoreError.state(.unfinishedGitOperation(operation)).description.dropFirst()) + ".")
        }
        let changes = try store.status().filter { $0.kind != .removalRecorded }
        if changes.isEmpty { return print("Nothing to commit; the store matches its last commit.") }
        print("Not committed yet:")
        for change in changes { print("  \(Output.safe(change.description))") }
    }
}

struct Commit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "commit",
        abstract: "Commit the store's changes (also those made by hand) to its git repository.",
        discussion: "Without -m the message summarises the change, such as \"Add 2 todos, complete 1\".\n\nExample: docket commit -m \"Plan the week\"")

    @OptionGroup var store: StoreOptions
    @Option(name: .shortAndLong, help: "The commit message.") var message: String?
    @Flag(help: "Skip git's pre-commit and commit-msg hooks, as 'git commit --no-verify' does.") var noVerify = false

    func run() throws {
        let store = try self.store.open()
        store.verifiesWithGitHooks = !noVerify
        switch try store.commit(message: message) {
        case .nothingToCommit: print("Nothing to commit.")
        case let .committed(id, message): print("Committed \(id.prefix(7)): \(Output.safe(message))")
        }
        store.packInBackgroundIfNeeded()
    }
}

struct Log: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract: "Show the store's history, newest first.",
        discussion: """
            --json prints an array of {commit, date, author: {name, email}, message, parents}.

            Example: docket log -n 5
            """)

    @OptionGroup var store: StoreOptions
    @Option(name: .customShort("n"), help: "How many commits to show.") var count = 10
    @Flag(help: "Print JSON for scripts.") var json = false

    struct Shown: Encodable {
        struct Author: Encodable { let name: String; let email: String }
        let commit: String
        let date: String
        let author: Author
        let message: String
        let parents: [String]
    }

    func run() throws {
        let commits = try store.open().log(limit: count)
        if json {
            return try Output.json(commits.map {
                Shown(commit: $0.id.description, date: ISODate.string(from: $0.date), author: Shown.Author(name: $0.authorName, email: $0.authorEmail),
                      message: $0.message, parents: $0.parents.map(\.description))
            })
        }
        for commit in commits {
            print("\(Output.yellow(commit.id.short))  \(DateInput.show(commit.date))  \(Output.safe(commit.summary))")
        }
    }
}
