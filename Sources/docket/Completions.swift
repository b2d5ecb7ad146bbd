import ArgumentParser
import Docket
import Foundation

/// Ids for the shells' tab completion: the short ids the day's view and
/// `list` show, todos and tasks alike, of the store the command line would
/// use (-C, else $DOCKET_DIR, else the store the working folder is in, else
/// ~/.docket), read through the caches as `list` and the day's view read
/// them. Each id comes with its text where the shell shows one beside a
/// candidate (zsh, fish); bash completes words only, so it gets the ids
/// alone. Completing never creates, locks or changes a store; a store that
/// does not open completes nothing.
enum Completions {
    /// Open todos and unfinished tasks: what `done`, `edit`, `tag`… take.
    static let openItems = CompletionKind.custom { words, _, prefix in
        candidates(words: words, prefix: prefix) { !$0.isDone }
    }
    /// Done todos and finished tasks: what `reopen` takes.
    static let doneItems = CompletionKind.custom { words, _, prefix in
        candidates(words: words, prefix: prefix) { $0.isDone }
    }
    /// Every todo and task: what `rm` takes.
    static let allItems = CompletionKind.custom { words, _, prefix in
        candidates(words: words, prefix: prefix) { _ in true }
    }
    /// Unfinished tasks: what `task start` and `stop` take.
    static let openTasks = CompletionKind.custom { words, _, prefix in
        candidates(words: words, prefix: prefix, todos: false) { !$0.isDone }
    }
    /// Every task: what `task state`, `due`, `rename` and `rm` take.
    static let tasks = CompletionKind.custom { words, _, prefix in
        candidates(words: words, prefix: prefix, todos: false) { _ in true }
    }
    /// Open todos: what `fork` takes.
    static let openTodos = CompletionKind.custom { words, _, prefix in
        candidates(words: words, prefix: prefix, tasks: false) { !$0.isDone }
    }
    /// Projects: what `task add`, `project show` and `--project` take.
    static let projects = CompletionKind.custom { words, _, prefix in
        guard let store = store(words: words), let projects = try? store.loadProjects().projects else { return [] }
        return shown(projects.map { (Output.short($0.id), $0.title) }, prefix: prefix)
    }

    /// The short ids of the entries `keep` holds that start with `prefix`, with their texts as the shell shows them.
    static func candidates(
        words: [String], prefix: String, todos: Bool = true, tasks: Bool = true, keep: (Entry) -> Bool
    ) -> [String] {
        guard let store = store(words: words) else { return [] }
        var entries: [Entry] = []
        if todos, let loaded = try? store.loadTodos().todos { entries += loaded.map(Entry.todo) }
        if tasks, let projects = try? store.loadProjects().projects {
            entries += projects.flatMap { project in project.tasks.map { Entry.task($0, project: project) } }
        }
        return shown(entries.filter(keep).map { (Output.short($0.id), $0.text) }, prefix: prefix)
    }

    /// Candidates as the requesting shell reads them: `id:text` for zsh, `id<TAB>text` for fish, the id alone for
    /// bash. A text is shown on one line, without control characters, and cut at 60 characters.
    static func shown(_ items: [(id: String, text: String)], prefix: String) -> [String] {
        let typed = prefix.lowercased()
        let chosen = items.filter { $0.id.hasPrefix(typed) }.sorted { $0.id < $1.id }
        func text(_ raw: String) -> String {
            let line = String(
                raw.unicodeScalars.map { CharacterSet.controlCharacters.contains($0) ? " " : Character($0) })
            return line.count > 60 ? line.prefix(59) + "…" : line
        }
        switch CompletionShell.requesting {
        case .zsh?: return chosen.map { "\($0.id):\(text($0.text))" }
        case .fish?: return chosen.map { "\($0.id)\t\(text($0.text))" }
        default: return chosen.map(\.id)
        }
    }

    /// The store the words name, opened for reading; nil when it does not open.
    static func store(words: [String]) -> Store? {
        storeFolder(words: words).flatMap { try? Store.open(at: $0) }
    }

    /// The folder the words name with -C, else the one docket would find.
    static func storeFolder(words: [String]) -> URL? {
        // The words as the parser reads the root's options; a line it does not read names no store.
        let directory = (try? LeadingWords.parse(Array(words.dropFirst())))?.store.directory
        return StoreOptions.named(directory) ?? StoreOptions.enclosing ?? StoreOptions.defaultFolder
    }
}
