import ArgumentParser

/// What people type, turned into what the parser reads: `docket <id>
/// <command>` (Taskwarrior's and dstask's order), `docket <id>` to show a
/// todo, and a mistyped command answered with the nearest one.
enum CommandLineHabits {
    /// Commands that take a todo's id first, and what `docket <id> <word>` runs.
    static let idFirst: [String: [String]] = [
        "done": ["done"], "reopen": ["reopen"], "edit": ["edit"], "due": ["due"], "rm": ["rm"], "fork": ["fork"],
        "show": ["show"], "start": ["task", "start"], "stop": ["task", "stop"],
        "tag": ["tag"], "priority": ["priority"], "note": ["note"], "repeat": ["repeat"],
        "wait": ["wait"], "schedule": ["schedule"], "depend": ["depend"],
    ]

    /// Reads `docket <id> <command>`, `docket <id>` and a mistyped command.
    /// A command line that starts with a command is the parser's alone; any
    /// other is parsed first for the root's own options (`-C`), by the parser,
    /// so that the first word after them can be looked at. Those options go
    /// back in front of the command as the parser read them: nothing can move
    /// an option's value. `docket` alone, or with options only, is the day's
    /// view (the root's default command).
    static func rewrite(_ arguments: [String], commands: [String]) throws -> [String] {
        // The shells' completion scripts call back with their own syntax.
        guard let head = arguments.first, head != "---completion", !commands.contains(head) else { return arguments }
        // A line the root's options do not parse is left for the parser to name what is wrong.
        guard let leading = try? LeadingWords.parse(arguments), let first = leading.rest.first,
            !first.hasPrefix("-"), !commands.contains(first)
        else { return arguments }
        let rest = leading.rest
        var command: [String]
        if looksLikeID(first) {
            if rest.count == 1 {
                command = ["show", first]
            } else if let words = idFirst[rest[1]] {
                command = words + [first] + rest.dropFirst(2)
            } else {
                throw ValidationError(
                    "'\(Output.safe(rest[1]))' cannot follow an id; after an id come \(idFirst.keys.sorted().joined(separator: ", "))"
                )
            }
        } else {
            let near = Suggest.nearest(first, among: commands.filter { $0 != "merge-driver" })
            throw ValidationError(
                "'\(Output.safe(first))' is not a docket command"
                    + (near.map { "; did you mean '\($0)'?" }
                        ?? "; 'docket --help' lists the commands (to add a todo: docket add \(Output.safe(rest.joined(separator: " "))))")
            )
        }
        return leading.store.arguments + command
    }

    /// The command a command line names: its subcommand words followed from the root (after the root's own options),
    /// else the command docket alone runs, the day's view.
    static func command(named arguments: [String]) -> ParsableCommand.Type {
        let words = (try? LeadingWords.parse(arguments))?.rest ?? arguments
        var command: ParsableCommand.Type = DocketCommand.self
        for word in words {
            guard let sub = command.configuration.subcommands.first(where: { $0.configuration.commandName == word })
            else { break }
            command = sub
        }
        return command == DocketCommand.self ? DocketCommand.configuration.defaultSubcommand ?? command : command
    }

    /// Four or more hex digits, or a whole UUID: what an id prefix looks like.
    static func looksLikeID(_ word: String) -> Bool {
        word.count >= 4 && word.allSatisfy { $0.isHexDigit || $0 == "-" } && word.contains(where: \.isHexDigit)
            && !word.hasPrefix("-")
    }
}

/// The root's own options, and the words after them: what the parser reads
/// before a command's name.
struct LeadingWords: ParsableArguments {
    @OptionGroup var store: StoreOptions
    @Argument(parsing: .allUnrecognized) var rest: [String] = []
}
