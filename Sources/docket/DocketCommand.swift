import ArgumentParser
import Docket
import Foundation

@main
struct DocketCommand: ParsableCommand {
    /// Runs docket, reading the command line as people type it (`CommandLineHabits`).
    static func main() {
        ProgressLine.started = Date()
        do {
            let commands = configuration.subcommands.compactMap { $0.configuration.commandName } + ["help"]
            let arguments = try CommandLineHabits.rewrite(Array(CommandLine.arguments.dropFirst()), commands: commands)
            var command = try parseAsRoot(arguments)
            try command.run()
            ProgressLine.clear()
        } catch let error as StoreError {
            ProgressLine.clear()
            exit(withError: ShownError(message: Output.safeLines(error.description)))
        } catch {
            ProgressLine.clear()
            exit(withError: error)
        }
    }

    static let configuration = CommandConfiguration(
        commandName: "docket",
        abstract: "Todo lists and projects kept as JSON files in a git repository.",
        discussion: """
            Every command takes -C <dir>, before or after its name: the store's folder. \
            Without it the store is $DOCKET_DIR, else the store the working folder is in \
            (as git finds its repository), else ~/.docket, which is created on first use. \
            Ids are UUIDs; any unique prefix of 4 or more characters will do.

            Example:
              docket add "Buy milk" --due tomorrow
              docket list
              docket commit
            """,
        version: "0.2.0, store format \(Store.format) (libgit2 \(LibGit2.version))",
        subcommands: [
            Today.self, Init.self, Add.self, List.self, Show.self, Done.self, Reopen.self, Edit.self, Due.self,
            Tag.self, SetPriority.self, Wait.self, Schedule.self, Depend.self,
            NoteCommand.self, Repeat.self, Remove.self, Fork.self, Undo.self,
            ProjectCommand.self, TaskCommand.self, Report.self, Status.self, Commit.self, Log.self, Pack.self,
            Clone.self, RemoteCommand.self, Pull.self, Push.self, Sync.self, Autosync.self, Monitor.self, Merges.self,
            MergeDriver.self,
            ImportCommand.self, ExportCommand.self, ICalCommand.self,
        ],
        defaultSubcommand: Today.self)

    /// `-C <dir>`, read here wherever it stands, before or after the command's name; every command's own `StoreOptions`
    /// is this one.
    @OptionGroup var store: StoreOptions
}

/// A store error as it is shown: its text made safe for a terminal (it may name files and remotes from elsewhere).
struct ShownError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
