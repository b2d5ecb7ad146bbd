import Docket
import Foundation

/// Adds `count` new todos to an existing store and commits them, as another
/// machine's work that a pull then brings in.
struct Grow {
    let count: Int
    let folder: URL
    let seed: UInt64

    func run() throws {
        let began = Date()
        var rng = BenchRandom(seed: seed)
        let start = Date(timeIntervalSince1970: 1_795_400_000)
        let todos = (0..<count).map { i in
            TodoItem(
                id: rng.uuid(), text: rng.sentence(), creationDate: start.addingTimeInterval(Double(i)),
                completed: false, dueDate: nil, alterDate: nil)
        }
        let store = try Store.open(at: folder)
        try store.withLock { try store.write(from: AppState(), to: AppState(todos: todos, projects: [], removed: [])) }
        _ = try store.commit(message: "Add \(count) todos")
        print(
            String(
                format: "added and committed %d todos in %@ (%.1f s)", count, folder.path,
                Date().timeIntervalSince(began)))
    }
}
