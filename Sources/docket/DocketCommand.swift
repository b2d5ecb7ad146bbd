import ArgumentParser
import Docket
import Foundation

@main
struct DocketCommand: ParsableCommand {
    /// Runs docket, reading the command line as people type it (`FrontDoor`), and saying the parser's errors as
    /// docket says its own.
    static func main() {
        ProgressLine.started = Date()
        var arguments = Array(CommandLine.arguments.dropFirst())
        // Whether an error is the parser's own: thrown while it parsed the line the front door made.
        var parsing = false
        do {
            try FixedNow.apply(ProcessInfo.processInfo.environment)
            try refuseArgumentsNotUTF8()
            arguments = try FrontDoor.read(arguments)
            parsing = true
            var command = try FrontDoor.parsedDirectly(arguments) ?? parseAsRoot(arguments)
            parsing = false
            try command.run()
            ProgressLine.clear()
        } catch let error as StoreError {
            ProgressLine.clear()
            exit(withError: ShownError(message: Output.safeLines(error.description)))
        } catch {
            ProgressLine.clear()
            let said: String?
            do {
                said = try FrontDoor.said(error, arguments: arguments, byParser: parsing)
            } catch let internalError {
                exit(withError: internalError)
            }
            if let said {
                FileHandle.standardError.write(Data((said + "\n").utf8))
                Foundation.exit(exitCode(for: error).rawValue)
            }
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
            Ids are UUIDs; any unique prefix of 4 or more characters will do. \
            Todos and project tasks share one space of ids: a command that takes \
            a todo's id takes a task's, as the day's view shows them together.

            Dates, in the local time zone: a day (today, tomorrow, a weekday such as fri, \
            next week, next month, in 3 days, in 2 weeks, +3d, eow, eom, eoy, 2026-12-03), \
            or a day and a time (tomorrow 9am, fri 14:00, tomorrow at 9:30pm, 2026-12-03 17:30). \
            A time alone is the next one: 9am is today's until it has passed, then tomorrow's. \
            Quotes are optional: --due takes the longest run of words after it that reads \
            as one date (docket add Call mom --due next week); --due=fri takes one word. \
            A day without a time is due all that day and overdue once it has ended; \
            a time is overdue once it has passed; a done item is never overdue.

            Example:
              docket add "Buy milk" --due tomorrow
              docket add Call mom --due fri 14:00
              docket list
              docket commit
            """,
        version: "0.2.0, store format \(Store.format) (libgit2 \(LibGit2.version))",
        subcommands: [
            Today.self, Init.self, Add.self, List.self, Show.self, Done.self, Reopen.self, Edit.self, Due.self,
            Tag.self, SetPriority.self, Wait.self, Schedule.self, Depend.self, ClaimCommand.self, Heartbeat.self,
            Release.self, Ready.self, MCPCommand.self,
            NoteCommand.self, Repeat.self, Remove.self, Fork.self, Undo.self, ContextCommand.self,
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
/// Refuses an argument whose bytes are not UTF-8 (a folder's name from another system, say): Swift reads it with
/// U+FFFD in place of those bytes, so docket would work on another path than the one named.
func refuseArgumentsNotUTF8() throws {
    for index in 1..<Int(CommandLine.argc) {
        guard let raw = CommandLine.unsafeArgv[index], String(validatingCString: raw) == nil else { continue }
        throw ShownError(
            message:
                "argument \(index) (\(Output.safe(String(cString: raw)))) is not UTF-8 text, so docket would read another "
                + "name than the one given; rename the folder or give the text in UTF-8")
    }
}

/// `DOCKET_NOW`: the moment docket takes as now, for a script or spec that must give the same answer on every day
/// of the week (the clock runs on from it, so edits keep their order).
enum FixedNow {
    static func apply(_ environment: [String: String]) throws {
        guard let text = environment["DOCKET_NOW"], !text.isEmpty else { return }
        guard let start = ISODate.date(from: text) else {
            throw ShownError(
                message:
                    "DOCKET_NOW is '\(Output.safeLines(text))', not a time such as 2026-11-28T12:00:00+01:00; "
                    + "set one, or unset DOCKET_NOW to use the system clock")
        }
        let began = Date()
        DocketClock.use { start.addingTimeInterval(Date().timeIntervalSince(began)) }
    }
}

struct ShownError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
