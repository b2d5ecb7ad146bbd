import ArgumentParser
import Docket
import Foundation

struct Commit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "commit",
        abstract: "Commit the store's changes (also those made by hand) to its git repository.",
        discussion:
            "Without -m the message summarises the change, such as \"Add 2 todos, complete 1\".\n\nExample: docket commit -m \"Plan the week\""
    )

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
