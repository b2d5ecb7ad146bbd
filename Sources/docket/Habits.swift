import ArgumentParser

/// What people type, turned into what the parser reads: `-C <dir>` before the
/// command (as with git), `docket` alone for the day's view, `docket <id>
/// <command>` (Taskwarrior's and dstask's order), `docket <id>` to show a
/// todo, and a mistyped command answered with the nearest one.
enum CommandLineHabits {
    /// Commands that take a todo's id first, and what `docket <id> <word>` runs.
    static let idFirst: [String: [String]] = [
        "done": ["done"], "reopen": ["reopen"], "edit": ["edit"], "due": ["due"], "rm": ["rm"], "fork": ["fork"],
        "show": ["show"], "start": ["task", "start"], "stop": ["task", "stop"],
        "tag": ["tag"], "priority": ["priority"], "note": ["note"], "repeat": ["repeat"],
    ]

    /// Root options that stay where they are.
    static let rootOptions: Set<String> = ["-h", "--help", "--version", "--generate-completion-script", "--experimental-dump-help"]

    static func rewrite(_ arguments: [String], commands: [String]) throws -> [String] {
        // The shells' completion scripts call back with their own syntax.
        if arguments.first == "---completion" { return arguments }
        var (store, rest) = splitStoreOption(arguments)
        if rest.isEmpty || (rest[0].hasPrefix("-") && !rootOptions.contains(rest[0]) && rest[0] != "--") {
            rest.insert("today", at: 0)
        }
        let first = rest[0]
        if !commands.contains(first) && !first.hasPrefix("-") {
            if looksLikeID(first) {
                if rest.count == 1 {
                    rest = ["show", first]
                } else if let command = idFirst[rest[1]] {
                    rest = command + [first] + rest.dropFirst(2)
                } else {
                    throw ValidationError("'\(Output.safe(rest[1]))' cannot follow an id; after an id come \(idFirst.keys.sorted().joined(separator: ", "))")
                }
            } else {
                let near = Suggest.nearest(first, among: commands.filter { $0 != "merge-driver" })
                throw ValidationError("'\(Output.safe(first))' is not a docket command"
                    + (near.map { "; did you mean '\($0)'?" } ?? "; 'docket --help' lists the commands (to add a todo: docket add \(Output.safe(rest.joined(separator: " "))))"))
            }
        }
        if store.isEmpty { return rest }
        let end = rest.firstIndex(of: "--") ?? rest.endIndex
        rest.insert(contentsOf: store, at: end)
        return rest
    }

    /// A leading `-C <dir>` (or `-C<dir>`), apart from the rest.
    static func splitStoreOption(_ arguments: [String]) -> (store: [String], rest: [String]) {
        guard let first = arguments.first, first.hasPrefix("-C") else { return ([], arguments) }
        if first == "-C" {
            guard arguments.count >= 2 else { return ([], arguments) }
            return (Array(arguments[0...1]), Array(arguments.dropFirst(2)))
        }
        return (["-C", String(first.dropFirst(2))], Array(arguments.dropFirst()))
    }

    /// Four or more hex digits, or a whole UUID: what an id prefix looks like.
    static func looksLikeID(_ word: String) -> Bool {
        word.count >= 4 && word.allSatisfy { $0.isHexDigit || $0 == "-" } && word.contains(where: \.isHexDigit) && !word.hasPrefix("-")
    }
}
