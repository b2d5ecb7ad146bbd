import ArgumentParser
import Docket
import Foundation

/// Todo ids for the shells' tab completion: the short ids `list` shows, of
/// the store the command line would use (-C, else $DOCKET_DIR, else the
/// store the working folder is in, else ~/.docket), read through the todo
/// cache as `list` reads them. Completing never creates, locks or changes a
/// store; a store that does not open completes nothing.
enum Completions {
    static let openTodos = CompletionKind.custom { words, _, prefix in
        todoIDs(words: words, prefix: prefix, completed: false)
    }
    static let doneTodos = CompletionKind.custom { words, _, prefix in
        todoIDs(words: words, prefix: prefix, completed: true)
    }

    static func todoIDs(words: [String], prefix: String, completed: Bool) -> [String] {
        guard let folder = storeFolder(words: words), let store = try? Store.open(at: folder),
            let todos = try? store.loadTodos().todos
        else { return [] }
        let typed = prefix.lowercased()
        return todos.filter { $0.completed == completed }.map { Output.short($0.id) }.filter { $0.hasPrefix(typed) }
            .sorted()
    }

    /// The folder the words name with -C, else the one docket would find.
    static func storeFolder(words: [String]) -> URL? {
        // The words as the parser reads the root's options; a line it does not read names no store.
        let directory = (try? LeadingWords.parse(Array(words.dropFirst())))?.store.directory
        return StoreOptions.named(directory) ?? StoreOptions.enclosing ?? StoreOptions.defaultFolder
    }
}
