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

    /// Commands that take a filter (`+tag`, `-tag`) before their name, as in Taskwarrior's `task +work list`.
    static let filtering = ["list", "today"]

    /// Reads `docket <id> <command>`, `docket <id>`, a filter before `list` or `today` (or alone, for the day's
    /// view: `docket +work`) and a mistyped command.
    /// A command line that starts with a command is the parser's alone; any
    /// other is parsed first for the root's own options (`-C`), by the parser,
    /// so that the first word after them can be looked at. Those options go
    /// back in front of the command as the parser read them: nothing can move
    /// an option's value. `docket` alone, or with options only, is the day's
    /// view (the root's default command).
    static func rewrite(_ arguments: [String], commands: [String]) throws -> [String] {
        // The shells' completion scripts call back with their own syntax.
        guard let head = arguments.first, head != "---completion", !commands.contains(head) else { return arguments }
        // `-C <dir>` alone or before a command's name, as scripts type it, is left as it is below too; reading it with
        // the parser first was a sixth of what `docket -C <dir> status` did.
        if head == "-C", arguments.count >= 2, !arguments[1].hasPrefix("-"),
            arguments.count == 2 || commands.contains(arguments[2])
        {
            return arguments
        }
        // A line the root's options do not parse is left for the parser to name what is wrong.
        guard let leading = try? LeadingWords.parse(arguments), let first = leading.rest.first,
            !commands.contains(first)
        else { return arguments }
        let rest = leading.rest
        if FilterOptions.isTagWord(first) {
            guard let at = rest.firstIndex(where: commands.contains) else {
                return leading.store.arguments + ["today"] + rest
            }
            guard filtering.contains(rest[at]) else {
                throw ValidationError(
                    "'\(Output.safe(rest[at]))' takes no filter; +tag and -tag go with list and today: docket list \(Output.safe(first))"
                )
            }
            return leading.store.arguments + [rest[at]] + rest[..<at] + rest[(at + 1)...]
        }
        guard !first.hasPrefix("-") else { return arguments }
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

extension CommandLineHabits {
    /// A word the filter reads that the parser would take for short options (`-new` as `-n ew`, `-home` as
    /// `-h -o …`): a dash and two or more characters, not a second dash, and not `-C<dir>` (the store's folder).
    static func isDashWord(_ word: String) -> Bool { FilterOptions.isExclusion(word) && !word.hasPrefix("-C") }

    /// `words` for `command`, each dash word before any `--` handed over as `--filter-word=<word>` for
    /// `FilterOptions` to read; the values of options (`--due-before -1d`) stay as they are.
    static func dashWords(_ words: [String], command: ParsableCommand.Type) -> [String] {
        guard words.contains(where: isDashWord) else { return words }
        let valued = Set(DeclaredOptions.valued(of: command))
        var read: [String] = []
        var index = words.startIndex
        while index < words.endIndex {
            let word = words[index]
            if word == "--" { return read + words[index...] }
            if valued.contains(word) {
                read += words[index..<min(index + 2, words.endIndex)]
                index += 2
                continue
            }
            read.append(isDashWord(word) ? "--filter-word=" + word : word)
            index += 1
        }
        return read
    }

    /// The command line with `dashWords` applied to the words of `list`, `today` (and `docket` alone) and
    /// `context set`.
    static func filterWords(_ arguments: [String]) -> [String] {
        guard arguments.first != "---completion" else { return arguments }
        var index = 0
        // The root's own option before the command's name: -C <dir> or -C<dir>.
        while index < arguments.count, arguments[index].hasPrefix("-C") { index += arguments[index] == "-C" ? 2 : 1 }
        guard index < arguments.count else { return arguments }
        let command: ParsableCommand.Type
        var start = index + 1
        switch arguments[index] {
        case "list": command = List.self
        case "today": command = Today.self
        case "context" where arguments.dropFirst(index + 1).first == "set":
            command = ContextSet.self
            start += 1
        case let word where word.hasPrefix("-"):
            // `docket` alone with options: the day's view.
            command = Today.self
            start = index
        default: return arguments
        }
        return Array(arguments[..<start]) + dashWords(Array(arguments[start...]), command: command)
    }
}
