import ArgumentParser
import Docket
import DocketGit

@main
struct DocketCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "docket",
        abstract: "Todo lists and projects kept as JSON files in a git repository.",
        discussion: """
            The store is the folder given with -C, else $DOCKET_DIR, else ~/.docket, \
            which is created on first use. Ids are UUIDs; any unique prefix of 4 or \
            more characters will do.

            Example:
              docket add "Buy milk" --due tomorrow
              docket list
              docket commit
            """,
        version: "0.1.0 (libgit2 \(LibGit2.version))",
        subcommands: [
            Init.self, Add.self, List.self, Show.self, Done.self, Reopen.self, Edit.self, Due.self, Remove.self, Fork.self,
            ProjectCommand.self, TaskCommand.self, Report.self, Status.self, Commit.self, Log.self,
        ])
}
