import ArgumentParser
import Docket

@main
struct DocketCommand: ParsableCommand {
    /// Runs docket; `-C <dir>` may come before the subcommand, as with git.
    static func main() {
        do {
            var command = try parseAsRoot(movingStoreOption(Array(CommandLine.arguments.dropFirst())))
            try command.run()
        } catch let error as StoreError {
            exit(withError: ShownError(message: Output.safeLines(error.description)))
        } catch {
            exit(withError: error)
        }
    }

    /// `-C <dir> add x` becomes `add x -C <dir>`, since each subcommand owns the option.
    static func movingStoreOption(_ arguments: [String]) -> [String] {
        guard arguments.count >= 2, arguments[0] == "-C" || arguments[0].hasPrefix("-C") && arguments[0].count > 2 else { return arguments }
        let option = arguments[0] == "-C" ? Array(arguments[0...1]) : ["-C", String(arguments[0].dropFirst(2))]
        var rest = Array(arguments.dropFirst(arguments[0] == "-C" ? 2 : 1))
        if rest.isEmpty { return arguments }
        let end = rest.firstIndex(of: "--") ?? rest.endIndex
        rest.insert(contentsOf: option, at: end)
        return rest
    }

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
            ProjectCommand.self, TaskCommand.self, Report.self, Status.self, Commit.self, Log.self, Pack.self,
            Clone.self, RemoteCommand.self, Pull.self, Push.self, Sync.self, Merges.self, MergeDriver.self,
        ])
}

/// A store error as it is shown: its text made safe for a terminal (it may name files and remotes from elsewhere).
struct ShownError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
