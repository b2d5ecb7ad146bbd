import ArgumentParser
import Docket

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Say what changed since the last commit.",
        discussion: "Example: docket status")

    @OptionGroup var store: StoreOptions

    func run() throws {
        let store = try self.store.open()
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

    func run() throws {
        let store = try self.store.open()
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
        discussion: "Example: docket log -n 5")

    @OptionGroup var store: StoreOptions
    @Option(name: .customShort("n"), help: "How many commits to show.") var count = 10

    func run() throws {
        for commit in try store.open().log(limit: count) {
            print("\(Output.yellow(commit.id.short))  \(DateInput.show(commit.date))  \(Output.safe(commit.summary))")
        }
    }
}
