import ArgumentParser
import Docket
import Foundation

struct RemoteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remote",
        abstract: "Add, list and remove the git remotes a store syncs with.",
        discussion: "Example: docket remote add origin ssh://me@example.org/srv/lists.git",
        subcommands: [AddRemote.self, ListRemotes.self, RemoveRemote.self])

    struct AddRemote: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Add a remote.",
            discussion: "Example: docket remote add origin /srv/lists.git")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The remote's name, such as origin.") var name: String
        @Argument(help: "Its URL or path.") var url: String

        func run() throws {
            let added = try store.open().addRemote(name, url: url)
            ProgressLine.clear()
            print(
                "Added remote \(Output.safe(name)): \(Output.safe(RemoteURL.redacted(added.url)))"
                    + (added.followed.map { "; the store follows its branch \(Output.safe($0))" } ?? ""))
            if let problem = added.unreachable {
                Output.warning("\(problem); the remote is kept, and the first 'docket sync' tries it again")
            }
        }
    }

    struct ListRemotes: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the remotes.",
            discussion: "--json prints an array of {name, url}.\n\nExample: docket remote list")
        @OptionGroup var store: StoreOptions
        @Flag(help: "Print JSON for scripts.") var json = false

        struct Shown: Encodable {
            let name: String
            let url: String
        }

        func run() throws {
            let remotes = try store.open().remotes()
            if json { return try Output.json(remotes.map { Shown(name: $0.name, url: RemoteURL.redacted($0.url)) }) }
            if remotes.isEmpty { return print("No remotes; add one with 'docket remote add origin <url>'.") }
            for remote in remotes {
                print("\(Output.safe(remote.name))  \(Output.safe(RemoteURL.redacted(remote.url)))")
            }
        }
    }

    struct RemoveRemote: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove", abstract: "Remove a remote.",
            discussion: "Example: docket remote remove origin")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The remote's name.") var name: String

        func run() throws {
            try store.open().removeRemote(name)
            print("Removed remote \(name)")
        }
    }
}
