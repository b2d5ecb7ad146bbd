import ArgumentParser
import Docket
import Foundation

/// Todo ids for the shells' tab completion: the short ids `list` shows, of
/// the store the command line would use (-C, else $DOCKET_DIR, else the
/// store the working folder is in, else ~/.docket). Completing never creates,
/// locks or changes a store; a store that does not open completes nothing.
enum Completions {
    static let openTodos = CompletionKind.custom { words, _, prefix in todoIDs(words: words, prefix: prefix, completed: false) }
    static let doneTodos = CompletionKind.custom { words, _, prefix in todoIDs(words: words, prefix: prefix, completed: true) }

    static func todoIDs(words: [String], prefix: String, completed: Bool) -> [String] {
        guard let folder = storeFolder(words: words), let store = try? Store.open(at: folder),
              let snapshot = try? store.load() else { return [] }
        let typed = prefix.lowercased()
        return snapshot.state.todos.filter { $0.completed == completed }.map { Output.short($0.id) }.filter { $0.hasPrefix(typed) }.sorted()
    }

    /// The folder the words name with -C, else the one docket would find.
    static func storeFolder(words: [String]) -> URL? {
        for (index, word) in words.enumerated() {
            if word == "-C", index + 1 < words.count { return URL(fileURLWithPath: Home.expand(words[index + 1])) }
            if word.hasPrefix("-C"), word.count > 2 { return URL(fileURLWithPath: Home.expand(String(word.dropFirst(2)))) }
        }
        if let env = ProcessInfo.processInfo.environment["DOCKET_DIR"], !env.isEmpty { return URL(fileURLWithPath: Home.expand(env)) }
        return Store.enclosing(URL(fileURLWithPath: FileManager.default.currentDirectoryPath)) ?? StoreOptions.defaultFolder
    }
}
