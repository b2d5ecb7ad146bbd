import Docket
import Foundation

/// A committed store of `size` todos spread with projects, tasks and time slips, from a fixed seed.
struct Generate {
    let size: Int
    let folder: URL
    /// Leaves the items uncommitted, for timing a first commit.
    var commit = true
    /// A store that has lived for years: 95% of its todos done, dates spread over three years.
    var livedIn = false
    /// Of the lived-in store, only its open todos (the same ones): what the views of open work should cost.
    var openOnly = false

    func run() throws {
        let began = Date()
        var state = livedIn ? Generate.livedIn(size: size) : Generate.state(size: size)
        if openOnly {
            state = AppState(todos: state.todos.filter { !$0.completed }, projects: state.projects, removed: [])
        }
        let store = try Store.create(at: folder)
        try store.withLock { try store.write(from: AppState(), to: state) }
        let written = Date()
        var line =
            "generated \(state.todos.count) todos, \(state.projects.count) projects, \(state.projects.flatMap(\.tasks).count) tasks in \(folder.path) "
            + String(format: "(%.1f s)", written.timeIntervalSince(began))
        if commit {
            _ = try store.commit(message: "Add \(size) todos")
            line += String(format: ", committed (%.1f s)", Date().timeIntervalSince(written))
        }
        print(line)
    }

    /// The lived-in benchmark state: `size` todos created over three years up to the benchmark's day, 95% of them done
    /// (each some days after it was made), 20% with a due date; the projects of `state`.
    static func livedIn(size: Int, seed: UInt64 = 43) -> AppState {
        var rng = BenchRandom(seed: seed)
        let start = Date(timeIntervalSince1970: 1_795_339_800)
        let threeYears = 3 * 365 * 86_400.0
        let todos = (0..<size).map { i -> TodoItem in
            let created = start.addingTimeInterval(-threeYears * Double(size - i) / Double(size))
            let done = rng.chance(0.95)
            return TodoItem(
                id: rng.uuid(), text: rng.sentence(), creationDate: created, completed: done,
                dueDate: rng.chance(0.2) ? created.addingTimeInterval(86_400 * Double(rng.next() % 30)) : nil,
                alterDate: done ? created.addingTimeInterval(86_400 * Double(1 + rng.next() % 20)) : nil,
                completedDate: done ? created.addingTimeInterval(86_400 * Double(1 + rng.next() % 20)) : nil)
        }
        return AppState(todos: todos, projects: state(size: 0).projects, removed: [])
    }

    /// The benchmark state: `size` todos of realistic text, 10 projects of 20 tasks with slips.
    static func state(size: Int, seed: UInt64 = 42) -> AppState {
        var rng = BenchRandom(seed: seed)
        let start = Date(timeIntervalSince1970: 1_795_339_800)
        let todos = (0..<size).map { i in
            TodoItem(
                id: rng.uuid(), text: rng.sentence(), creationDate: start.addingTimeInterval(Double(i)),
                completed: rng.chance(0.3),
                dueDate: rng.chance(0.2) ? start.addingTimeInterval(86_400 * Double(rng.next() % 30)) : nil,
                alterDate: rng.chance(0.5) ? start.addingTimeInterval(Double(i) + 60) : nil)
        }
        let projects = (0..<10).map { p in
            Project(
                id: rng.uuid(), title: "Project \(p + 1)",
                tasks: (0..<20).map { t in
                    let slipStart = start.addingTimeInterval(Double(t) * 3600)
                    return ProjectTask(
                        id: rng.uuid(), title: rng.sentence(), dueDate: .unknown,
                        state: [.unfinished, .inProgress, .finished][Int(rng.next() % 3)],
                        timeSlips: (0..<Int(rng.next() % 4)).map { s in
                            TimeSlip(
                                id: rng.uuid(), start: slipStart.addingTimeInterval(Double(s) * 600),
                                stop: slipStart.addingTimeInterval(Double(s) * 600 + 300))
                        }, alterDate: nil)
                }, alterDate: nil)
        }
        return AppState(todos: todos, projects: projects, removed: [])
    }
}
