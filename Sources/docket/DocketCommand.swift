import ArgumentParser
import Docket
import DocketGit

@main
struct DocketCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "docket",
        abstract: "Todo lists and projects kept as JSON files in a git repository, synced through git remotes.",
        version: "0.1.0 (libgit2 \(LibGit2.version))")
}
