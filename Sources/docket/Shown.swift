import ArgumentParser
import Docket
import Foundation

// What items say of themselves, as they are shown to a person: escaped by `Output.safe`.

extension TodoItem {
    /// The text, safe for a terminal.
    var shownText: String { Output.safe(text) }
}

/// Tags, priorities and notes as a person reads them.
enum Shown {
    /// "+errand +shop", safe for a terminal.
    static func tags(_ tags: [String]) -> String { tags.map { "+" + Output.safe($0) }.joined(separator: " ") }

    /// "!high", coloured by how much it matters.
    static func priority(_ priority: Priority?) -> String {
        switch priority {
        case .high: Output.red("!high")
        case .medium: Output.yellow("!medium")
        case .low: Output.dim("!low")
        case nil: ""
        }
    }
}

extension Project {
    /// The title, safe for a terminal.
    var shownTitle: String { Output.safe(title) }
}

extension ProjectTask {
    /// The title, safe for a terminal.
    var shownTitle: String { Output.safe(title) }
}

extension Entry {
    /// The todo's text or the task's title, safe for a terminal.
    var shownText: String { Output.safe(text) }

    /// "3f2a1b9c is a todo", "5d2f0e11 is a task of Garden": what an id named, for a message.
    var whatItIs: String {
        switch self {
        case let .todo(todo): "\(Output.short(todo.id)) is a todo"
        case let .task(task, project): "\(Output.short(task.id)) is a task of \(project.shownTitle)"
        }
    }
}

/// A command given an item of a kind it has no meaning for: says what the item is, and what the command takes.
func notFor(_ entry: Entry, _ what: String) -> ShownError {
    ShownError(message: "\(entry.whatItIs), and \(what)")
}

extension Entry {
    /// Whether it is a project's task.
    var isTask: Bool { if case .task = self { true } else { false } }
}

/// A text given as words, quoted or not (`docket add Buy bread` is "Buy
/// bread"), as people type it after `task add` or `t add`. A word that starts
/// with a dash is text too ("-5 pushups"), unless it looks like a mistyped
/// option (`--dew`), which is refused rather than written into the text.
enum TextWords {
    /// The words joined by spaces; a usage error when there is no text or a word looks like an option
    /// (with the nearest of the options `command` declares).
    static func join(_ words: [String], what: String, command: ParsableCommand.Type? = nil) throws -> String {
        let end = words.firstIndex(of: "--") ?? words.endIndex
        if let option = words[..<end].first(where: looksLikeOption) {
            let example = command == Add.self ? ": docket add -- \(Output.safe(option))" : ""
            throw ValidationError(
                UnknownOption.message(option, of: command)
                    + " (text that starts with dashes goes after '--'\(example))")
        }
        let text = words.enumerated().filter { $0.offset != end }.map(\.element).joined(separator: " ")
        if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw ValidationError("\(what) cannot be empty")
        }
        return text
    }

    /// `--word` or `-x` alone (one letter): what an option looks like.
    static func looksLikeOption(_ word: String) -> Bool {
        if word.hasPrefix("--") { return word.count > 2 && word.dropFirst(2).first!.isLetter && !word.contains(" ") }
        return word.count == 2 && word.hasPrefix("-") && word.last!.isLetter
    }
}

/// The options a command declares, as the parser describes the command (what its `--help` shows):
/// the candidates for a "did you mean", never a list kept by hand beside the declarations.
enum DeclaredOptions {
    static func names(of command: ParsableCommand.Type) -> [String] { names(of: command, valued: false) }

    /// The names of the options that take a value (`--due`, `-C`), not flags.
    static func valued(of command: ParsableCommand.Type) -> [String] { names(of: command, valued: true) }

    private static func names(of command: ParsableCommand.Type, valued: Bool) -> [String] {
        guard let json = try? JSONSerialization.jsonObject(with: Data(command._dumpHelp().utf8)) as? [String: Any],
            let arguments = (json["command"] as? [String: Any])?["arguments"] as? [[String: Any]]
        else { return [] }
        return arguments.filter {
            $0["kind"] as? String != "positional" && $0["shouldDisplay"] as? Bool != false
                && (!valued || $0["kind"] as? String == "option")
        }
        .flatMap { argument in
            (argument["names"] as? [[String: Any]] ?? []).compactMap { name -> String? in
                guard let text = name["name"] as? String else { return nil }
                return (name["kind"] as? String == "long" ? "--" : "-") + text
            }
        }
    }
}

/// An option a command does not declare, said one way wherever it is found, by docket or by the parser:
/// "unknown option '--dew'; did you mean '--due'?".
enum UnknownOption {
    /// The message for `option`, with the nearest of the options `command` declares.
    static func message(_ option: String, of command: ParsableCommand.Type?) -> String {
        let near = Suggest.nearest(option, among: command.map(DeclaredOptions.names) ?? []).map {
            "; did you mean '\($0)'?"
        }
        return "unknown option '\(Output.safe(option))'\(near ?? "")"
    }

    /// The parser's own message for an unknown option ("Unknown option '-p'", with or without its "Did you mean"),
    /// said as docket says it, for the command the words name; nil for any other error.
    static func reworded(_ error: Error, arguments: [String]) -> String? {
        let text = DocketCommand.fullMessage(for: error)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let prefix = "Error: Unknown option '"
        guard let first = lines.first, first.hasPrefix(prefix),
            let end = first.dropFirst(prefix.count).firstIndex(of: "'")
        else { return nil }
        let option = String(first[first.index(first.startIndex, offsetBy: prefix.count)..<end])
        let message = "Error: " + UnknownOption.message(option, of: CommandLineHabits.command(named: arguments))
        return ([message] + lines.dropFirst().map(String.init)).joined(separator: "\n")
    }
}

/// The nearest of some names to a mistyped one, as git's "did you mean".
enum Suggest {
    /// The candidate closest to `word` by edit distance, when it is close enough to be a typo. A one-letter option
    /// (`-p`) is the one option of that letter: a short one in the other case, else the one long option it starts.
    static func nearest(_ word: String, among candidates: [String]) -> String? {
        if word.count == 2, word.hasPrefix("-"), let letter = word.last, letter.isLetter {
            let short = candidates.filter { $0.count == 2 && $0.lowercased() == word.lowercased() }
            if short.count == 1 { return short[0] }
            let long = candidates.filter { $0.hasPrefix("--" + letter.lowercased()) }
            return long.count == 1 ? long[0] : nil
        }
        // A start of one name ("--prio") is that name, however far it is from shorter ones.
        let started = candidates.filter { word.count >= 3 && $0.hasPrefix(word.lowercased()) }
        if started.count == 1 { return started[0] }
        let scored = candidates.map { ($0, distance(word.lowercased(), $0)) }.min { $0.1 < $1.1 }
        guard let (best, score) = scored,
            score <= max(1, (min(word.count, best.count) + 2) / 3)
                || best.hasPrefix(word.lowercased()) && word.count >= 2
        else { return nil }
        return best
    }

    /// Levenshtein distance, with a swap of two neighbours counted as one edit.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var rows = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { rows[i][0] = i }
        for j in 0...b.count { rows[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                rows[i][j] = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    rows[i][j] = min(rows[i][j], rows[i - 2][j - 2] + 1)
                }
            }
        }
        return rows[a.count][b.count]
    }
}

/// The parser's own messages ("Error: The value 'x' is invalid…", "Error: Missing expected argument…") said as
/// docket's own errors say theirs: in lower case. Only the parser's first words are lowered, so a name that begins a
/// message keeps its capital.
enum ParserWords {
    /// The first words of swift-argument-parser's messages.
    static let first: Set<String> = ["The", "Missing", "Unexpected", "Invalid", "Internal", "Value", "No", "Unknown"]

    /// `message` (the parser's full message for an error) with its first word in lower case, when the parser wrote it.
    static func lowered(_ message: String) -> String {
        let prefix = "Error: "
        guard message.hasPrefix(prefix) else { return message }
        let rest = message.dropFirst(prefix.count)
        let word = rest.prefix { $0.isLetter }
        guard first.contains(String(word)) else { return message }
        return prefix + word.lowercased() + rest.dropFirst(word.count)
    }
}
