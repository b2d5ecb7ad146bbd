import ArgumentParser
import Docket
import Foundation

/// The command line as people type it, made into what the parser reads: one ordered list of habits, each a rewrite
/// of the words with the habit it serves, and after the parser, its messages said as docket says its own.
///
/// What a habit knows of the commands comes from their declarations: the command names from each command's
/// configuration, and options, value names and how each option takes its value from ArgumentParser's description
/// of the command (`CommandMetadata`), so a new option or command needs no list kept here.
enum FrontDoor {
    /// One habit: what people type, and the rewrite that hands it to the parser.
    struct Habit: Sendable {
        /// The habit, in the words of its user.
        let serves: String
        /// The command line read with the habit, from the one the habit before it left.
        let rewrite: @Sendable ([String]) throws -> [String]
    }

    /// The habits, in the order they apply; each reads the words the one before it left.
    static let habits: [Habit] = [
        Habit(
            serves: "a filter first, as in Taskwarrior's `task +work list`: `docket +work list`, `docket -home today`, "
                + "or `docket +work` alone for the day's view",
            rewrite: filterFirst),
        Habit(
            serves: "the id first, as Taskwarrior and dstask take it: `docket 3f2a done`; `docket 3f2a` shows it",
            rewrite: idFirst),
        Habit(
            serves: "a mistyped command answered with the nearest one, and a sentence with how to add it as a todo",
            rewrite: nearestCommand),
        Habit(
            serves: "a date of several words after a date option, quotes optional: `--due next week`, `--due fri 9am`; "
                + "and a date that starts with a dash (`--since -7d`) taken as the date it is",
            rewrite: dateWords),
        Habit(
            serves: "`-tag` to leave a tag out of a filter, which the parser would read as short options (`-new` as "
                + "`-n ew`)",
            rewrite: dashWords),
    ]

    /// The command line with every habit read, in order. The shells' completion scripts call back with their own
    /// syntax, which is the parser's alone.
    static func read(_ arguments: [String]) throws -> [String] {
        guard arguments.first != "---completion" else { return arguments }
        return try habits.reduce(arguments) { words, habit in try habit.rewrite(words) }
    }

    /// The names of the root's commands, as their configurations declare them, and `help`.
    static var commandNames: [String] {
        DocketCommand.configuration.subcommands.compactMap { $0.configuration.commandName } + ["help"]
    }

    // MARK: Habits that read a line without a command's name first

    /// A command line whose first word after the root's own options (`-C <dir>`) names no command: those options as
    /// the parser read them (they go back in front as they were read, so nothing can move an option's value), and
    /// the words after them. nil for a line that starts with a command's name, which is the parser's alone, for one
    /// the root's options do not parse (the parser names what is wrong), and for `docket` alone.
    struct Unnamed {
        let leading: [String]
        let rest: [String]
        /// The help flag, if asked for: it goes after the words the line is made of.
        let help: [String]
        var first: String { rest[0] }

        init?(_ arguments: [String]) {
            let commands = FrontDoor.commandNames
            guard let head = arguments.first, !commands.contains(head) else { return nil }
            // `-C <dir>` alone or before a command's name, as scripts type it, is the parser's alone too: reading it
            // with the parser here first was a sixth of what `docket -C <dir> status` did.
            if head == StoreOptions.folderOption, arguments.count >= 2, !arguments[1].hasPrefix("-"),
                arguments.count == 2 || commands.contains(arguments[2])
            {
                return nil
            }
            // The help flag asks for the help of the command the line names (`docket 3f2a done --help`): it is set
            // aside while the root's options are read, and goes after the words.
            let end = arguments.firstIndex(of: "--") ?? arguments.endIndex
            let help = (try? CommandMetadata.of(LeadingWords.self).options.filter { !$0.takesValue }.flatMap(\.names))
            let asked = arguments[..<end].filter { help?.contains($0) == true }
            let read =
                asked.isEmpty
                ? arguments
                : arguments.enumerated().filter { $0.offset >= end || !asked.contains($0.element) }.map(\.element)
            guard let parsed = try? LeadingWords.parse(read), let first = parsed.rest.first, !commands.contains(first)
            else { return nil }
            leading = parsed.store.arguments
            rest = parsed.rest
            self.help = asked
        }
    }

    /// Commands that take a filter before their name.
    static let filtering = ["list", "today"]

    /// `docket +work list` as `docket list +work`; `docket +work` as `docket today +work`.
    static func filterFirst(_ arguments: [String]) throws -> [String] {
        guard let line = Unnamed(arguments), FilterOptions.isTagWord(line.first) else { return arguments }
        let rest = line.rest
        guard let at = rest.firstIndex(where: commandNames.contains) else {
            return line.leading + ["today"] + rest + line.help
        }
        guard filtering.contains(rest[at]) else {
            throw ValidationError(
                "'\(Output.safe(rest[at]))' takes no filter; +tag and -tag go with list and today: docket list \(Output.safe(line.first))"
            )
        }
        return line.leading + [rest[at]] + rest[..<at] + rest[(at + 1)...] + line.help
    }

    /// Commands that take a todo's id first, and what `docket <id> <word>` runs.
    static let idFirstCommands: [String: [String]] = [
        "done": ["done"], "reopen": ["reopen"], "edit": ["edit"], "due": ["due"], "rm": ["rm"], "fork": ["fork"],
        "show": ["show"], "start": ["task", "start"], "stop": ["task", "stop"],
        "tag": ["tag"], "priority": ["priority"], "note": ["note"], "repeat": ["repeat"],
        "wait": ["wait"], "schedule": ["schedule"], "depend": ["depend"],
    ]

    /// `docket 3f2a done` as `docket done 3f2a`; `docket 3f2a` as `docket show 3f2a`.
    static func idFirst(_ arguments: [String]) throws -> [String] {
        guard let line = Unnamed(arguments), looksLikeID(line.first) else { return arguments }
        let rest = line.rest
        if rest.count == 1 { return line.leading + ["show", line.first] + line.help }
        guard let words = idFirstCommands[rest[1]] else {
            throw ValidationError(
                "'\(Output.safe(rest[1]))' cannot follow an id; after an id come \(idFirstCommands.keys.sorted().joined(separator: ", "))"
            )
        }
        return line.leading + words + [line.first] + rest.dropFirst(2) + line.help
    }

    /// A first word that is no command, no option and no id: the nearest command, or how to add the words as a todo.
    static func nearestCommand(_ arguments: [String]) throws -> [String] {
        guard let line = Unnamed(arguments), !line.first.hasPrefix("-") else { return arguments }
        let near = Suggest.nearest(
            line.first, among: commandNames.filter { $0 != MergeDriver.configuration.commandName })
        throw ValidationError(
            "'\(Output.safe(line.first))' is not a docket command"
                + (near.map { "; did you mean '\($0)'?" }
                    ?? "; 'docket --help' lists the commands (to add a todo: docket add \(Output.safe(line.rest.joined(separator: " "))))")
        )
    }

    /// Four or more hex digits, or a whole UUID: what an id prefix looks like.
    static func looksLikeID(_ word: String) -> Bool {
        word.count >= 4 && word.allSatisfy { $0.isHexDigit || $0 == "-" } && word.contains(where: \.isHexDigit)
            && !word.hasPrefix("-")
    }

    // MARK: Habits that read a command's own words

    /// The command a command line names, and where its own words start: its subcommand words followed from the root
    /// (after the root's own options), else the command docket alone runs, the day's view, whose words start after
    /// the root's options.
    static func named(_ arguments: [String]) throws -> (command: ParsableCommand.Type, start: Int) {
        var command: ParsableCommand.Type = DocketCommand.self
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            if let sub = command.configuration.subcommands.first(where: { $0.configuration.commandName == word }) {
                command = sub
                index += 1
                continue
            }
            guard command == DocketCommand.self, word.hasPrefix("-") else { break }
            // NB: `-C <dir>` (and `-C<dir>`), the one root option scripts type before every command, is read here
            // without the root's description: making that description (`_dumpHelp`) was 13.4 M instructions, about
            // a third of `docket -C <dir> show <id>`. Any other option before a command's name still comes from it.
            if word == StoreOptions.folderOption {
                index += 2
                continue
            }
            if word.hasPrefix(StoreOptions.folderOption) {
                index += 1
                continue
            }
            let root = try CommandMetadata.of(LeadingWords.self).valued
            if root[word] != nil {
                index += 2
            } else if root.keys.contains(where: { $0.count == 2 && word.hasPrefix($0) }) {
                // A one-letter option with its value joined: -C<dir>.
                index += 1
            } else {
                break
            }
        }
        guard command == DocketCommand.self else { return (command, index) }
        return (DocketCommand.configuration.defaultSubcommand ?? command, min(index, arguments.count))
    }

    /// `--due next week` as `--due "next week"`: an option whose value is a date (`CommandMetadata.dateOptions`)
    /// takes the longest run of the words after it (up to six, none that looks like an option) that reads as one
    /// date; the words after that run are the command's own, text included. `--due=fri` is that one value alone.
    /// The option's first word is its value whatever it is when the option takes it so (`parsing: .unconditional`,
    /// `--due -1d`), as the parser does; for any other, a word that reads as a date is its value too (`--since -7d`),
    /// handed over joined (`--since=-7d`) so the parser cannot take it for an option.
    static func dateWords(_ arguments: [String]) throws -> [String] {
        let (command, start) = try named(arguments)
        // NB: the line is left without reading the command's description (ArgumentParser's reflection of it: 17 M
        // instructions for `list`, a fifth of `docket list --all` at 1,000 todos) unless it could be rewritten: a
        // word that starts with a dash (only such a word can be an option), with a word after it that starts with a
        // dash too (`--since -7d`) or two words after it, the second no option (`--due next week`).
        guard (start..<arguments.count).contains(where: { Self.couldTakeDateWords(arguments, at: $0) }) else {
            return arguments
        }
        let dates = try CommandMetadata.of(command).dateOptions
        guard !dates.isEmpty else { return arguments }
        var out = Array(arguments[..<start])
        var index = start
        while index < arguments.count {
            let word = arguments[index]
            index += 1
            if word == "--" {
                out += arguments[(index - 1)...]
                break
            }
            out.append(word)
            guard let option = dates[word], index < arguments.count else { continue }
            let unconditional = option.takesAnyWord
            var value = arguments[index]
            guard unconditional || !value.hasPrefix("-") || (try? DatePhrase.read(value)) != nil else { continue }
            index += 1
            var joined = value
            var taken = 0
            for count in 1...6 {
                guard index + count <= arguments.count else { break }
                let next = arguments[index + count - 1]
                if next == "--" || TextWords.looksLikeOption(next) { break }
                joined += " " + next
                if (try? DatePhrase.read(joined)) != nil {
                    value = joined
                    taken = count
                }
            }
            index += taken
            if !unconditional, value.hasPrefix("-"), word.hasPrefix("--") {
                out[out.count - 1] = word + "=" + value
            } else {
                out.append(value)
            }
        }
        return out
    }

    /// Whether `dateWords` could rewrite the line from `index` on, were the word there a date option: it starts with a
    /// dash, and the word after it starts with a dash too (a date taken as the date it is), or is followed by a word
    /// that is no option (a date of several words).
    static func couldTakeDateWords(_ arguments: [String], at index: Int) -> Bool {
        guard arguments[index].hasPrefix("-"), index + 1 < arguments.count else { return false }
        if arguments[index + 1].hasPrefix("-") { return true }
        guard index + 2 < arguments.count else { return false }
        let next = arguments[index + 2]
        return next != "--" && !TextWords.looksLikeOption(next)
    }

    /// The words of a command that takes a filter (it declares `FilterOptions`' `--filter-word`), each `-tag` before
    /// any `--` handed over as `--filter-word=-tag`; the values of options (`--due-before -1d`) stay as they are.
    static func dashWords(_ arguments: [String]) throws -> [String] {
        let (command, start) = try named(arguments)
        guard arguments[start...].contains(where: isDashWord) else { return arguments }
        let metadata = try CommandMetadata.of(command)
        guard metadata.declaredNames.contains(FilterOptions.dashWordOption) else { return arguments }
        return Array(arguments[..<start]) + dashWords(Array(arguments[start...]), valued: Set(metadata.valued.keys))
    }

    /// `words` with each dash word before any `--` handed over as `--filter-word=<word>`, the value after each of
    /// `valued` left as it is.
    static func dashWords(_ words: [String], valued: Set<String>) -> [String] {
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
            read.append(isDashWord(word) ? FilterOptions.dashWordOption + "=" + word : word)
            index += 1
        }
        return read
    }

    /// A word the filter reads that the parser would take for short options (`-new` as `-n ew`, `-home` as
    /// `-h -o …`): a dash and two or more characters, not a second dash, and not `-C<dir>` (the store's folder).
    static func isDashWord(_ word: String) -> Bool { FilterOptions.isExclusion(word) && !word.hasPrefix("-C") }

    // MARK: The parser

    /// The command a line names, parsed by that command alone when the line is the store's folder (`-C <dir>`, if
    /// given) and a command's name (one of the root's, or a group's and one of its own) followed by that command's
    /// words; nil for any other line, and for one the command alone does not parse, help and version included, which
    /// the root parses as ever (its messages and help name the whole command).
    ///
    /// NB: the root's parse describes its default command, the day's view, twice for every line (ArgumentParser asks
    /// whether it takes all the words left), and the command named once more: 6 M instructions of ArgumentParser's
    /// reflection, a sixth of `docket done <id>` at 10,000 todos. The command parsed alone gets the same values: every
    /// command declares the root's one option (`StoreOptions`) itself.
    static func parsedDirectly(_ arguments: [String]) -> ParsableCommand? {
        var index = 0
        if arguments.first == StoreOptions.folderOption, arguments.count >= 2 {
            index = 2
        } else if let first = arguments.first, first.hasPrefix(StoreOptions.folderOption),
            first.count > StoreOptions.folderOption.count
        {
            index = 1
        }
        let leading = Array(arguments[..<index])
        var command: ParsableCommand.Type = DocketCommand.self
        while index < arguments.count,
            let sub = command.configuration.subcommands.first(where: {
                $0.configuration.commandName == arguments[index]
            })
        {
            command = sub
            index += 1
        }
        if command == DocketCommand.self {
            // `docket` alone, or with the folder alone: the day's view.
            guard index == arguments.count, let fallback = DocketCommand.configuration.defaultSubcommand else {
                return nil
            }
            command = fallback
        }
        guard command.configuration.subcommands.isEmpty else { return nil }
        // NB: ArgumentParser answers a help request with a command of its own (which prints the help of the command
        // parsed alone, as if it were the root): only the command named is taken.
        guard let parsed = try? command.parseAsRoot(leading + arguments[index...]), type(of: parsed) == command else {
            return nil
        }
        return parsed
    }

    // MARK: After the parser

    /// The parser's message for `error`, said as docket says its own: an option the command does not declare named
    /// with the nearest one it does (when the parser refused the line: `byParser`), and the parser's first word in
    /// lower case; its usage and help lines kept. nil when docket says it as the parser does.
    static func said(_ error: Error, arguments: [String], byParser: Bool) throws -> String? {
        guard DocketCommand.exitCode(for: error) == .validationFailure else { return nil }
        let full = DocketCommand.fullMessage(for: error)
        let message = DocketCommand.message(for: error)
        guard !message.isEmpty, let range = full.range(of: message) else { return nil }
        let said = try (byParser ? unknownOption(arguments) : nil) ?? lowered(message)
        return said == message ? nil : full.replacingCharacters(in: range, with: said)
    }

    /// What to say of the option the parser found unknown in a command line it refused: the first word that looks like
    /// an option and that the command does not declare, by its description, with the nearest it declares. The parser
    /// names an unknown option only once everything else in the line reads (words it has no place for come after),
    /// so one is named only when the line without such options, and without some of its last free words, parses.
    /// nil for a command that reads the words the parser does not recognise (it names such a word itself).
    static func unknownOption(_ arguments: [String]) throws -> String? {
        let (command, start) = try named(arguments)
        let metadata = try CommandMetadata.of(command)
        guard !metadata.readsUnrecognizedWords else { return nil }
        let declared = metadata.declaredNames
        let valued = metadata.valued
        var unknown: [Int] = []
        var free: [Int] = []
        var index = start
        while index < arguments.count, arguments[index] != "--" {
            let word = arguments[index]
            index += 1
            let name = word.hasPrefix("--") ? String(word.prefix { $0 != "=" }) : word
            if let option = valued[word], index < arguments.count,
                option.takesAnyWord || !arguments[index].hasPrefix("-")
            {
                index += 1
            } else if !word.hasPrefix("-") || word == "-" {
                free.append(index - 1)
            } else if declared.contains(name) {
                continue
            } else if !word.hasPrefix("--"), declared.contains(where: { $0.count == 2 && word.hasPrefix($0) }) {
                // One-letter options run together (-ab), or one with its value joined (-n5): the parser's to read.
                continue
            } else {
                unknown.append(index - 1)
            }
        }
        guard let first = unknown.first else { return nil }
        // The line without them, and without as many of its last free words as the command had no place for.
        let reads = (0...free.count).contains { extra in
            let left = Set(unknown + free.suffix(extra))
            let without = arguments.enumerated().filter { !left.contains($0.offset) }.map(\.element)
            return (try? DocketCommand.parseAsRoot(without)) != nil
        }
        guard reads else { return nil }
        let option = arguments[first].hasPrefix("--") ? String(arguments[first].prefix { $0 != "=" }) : arguments[first]
        return try UnknownOption.message(option, of: command)
    }

    /// A message's first word in lower case when it is a capitalised word (a capital, then small letters), as the
    /// parser begins its sentences ("Missing expected argument"); a name in capitals (`DOCKET_NOW`) keeps them.
    /// docket's own messages begin in lower case.
    static func lowered(_ message: String) -> String {
        let word = message.prefix { $0.isLetter }
        guard let first = word.first, first.isUppercase, word.dropFirst().allSatisfy(\.isLowercase) else {
            return message
        }
        return word.lowercased() + message.dropFirst(word.count)
    }
}

/// The root's own options, and the words after them: what the parser reads before a command's name.
struct LeadingWords: ParsableArguments {
    @OptionGroup var store: StoreOptions
    @Argument(parsing: .allUnrecognized) var rest: [String] = []
}

/// An option a command does not declare, said one way wherever it is found, by docket or by the parser:
/// "unknown option '--dew'; did you mean '--due'?".
enum UnknownOption {
    /// The message for `option`, with the nearest of the options `command` declares.
    static func message(_ option: String, of command: ParsableCommand.Type?) throws -> String {
        let declared = try command.map { try CommandMetadata.of($0).shownNames } ?? []
        let near = Suggest.nearest(option, among: declared).map { "; did you mean '\($0)'?" }
        return "unknown option '\(Output.safe(option))'\(near ?? "")"
    }
}
