import ArgumentParser
import Docket
import Foundation

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
        struct Author: Encodable {
            let name: String
            let email: String
        }
        let commit: String
        let date: String
        let author: Author
        let message: String
        let parents: [String]
    }

    func run() throws {
        let commits = try store.open().log(limit: count)
        if json {
            return try Output.json(
                commits.map {
                    Shown(
                        commit: $0.id.description, date: ISODate.string(from: $0.date),
                        author: Shown.Author(name: $0.authorName, email: $0.authorEmail),
                        message: $0.message, parents: $0.parents.map(\.description))
                })
        }
        for commit in commits {
            print("\(Output.yellow(commit.id.short))  \(DateInput.show(commit.date))  \(Output.safe(commit.summary))")
        }
    }
}
