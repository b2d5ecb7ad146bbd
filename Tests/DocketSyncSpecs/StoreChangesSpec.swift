import Docket
import DocketSpecSupport
import Foundation
import Nimble
import Quick
import Synchronization

/// What `StoreQueue.changes()` tells: each change's items with their values, from the right origin, and nothing
/// when nothing changed.
final class StoreChangesSpec: QuickSpec {
    override class func spec() {
        var root: URL!
        var remote: URL!
        beforeEach {
            root = temporaryFolder("docket-changes")
            remote = root.appendingPathComponent("remote.git")
            gitCLI(["init", "-q", "--bare", "-b", "main", remote.path], in: root)
        }
        afterEach { try? FileManager.default.removeItem(at: root) }
        func clone(_ name: String) throws -> StoreQueue {
            let (remote, folder) = (remote!, root.appendingPathComponent(name))
            return try awaiting { try await StoreQueue.clone(url: remote.path, into: folder) }
        }
        /// Listens to `queue` on a task of its own (the example blocks its thread while it waits).
        func listen(
            _ queue: StoreQueue, watching: Bool = true, poll: Duration = .seconds(60)
        ) -> (heard: Heard, task: Task<Void, Never>) {
            let heard = Heard()
            let task = Task.detached {
                for await change in queue.changes(pollInterval: poll, watching: watching) {
                    heard.withLock { $0.append(change) }
                }
            }
            Thread.sleep(forTimeInterval: 0.3)
            return (heard, task)
        }

        describe("an edit through the queue") {
            it("is told with the items' new values: an added todo, an edited one, a removed one") {
                let laptop = try clone("laptop")
                let (heard, task) = listen(laptop)
                defer { task.cancel() }
                let milk = TodoItem(text: "Buy milk")
                try awaiting { try await laptop.addTodo(milk) }
                expect(heard.withLock { $0.count }).toEventually(equal(1))
                var change = try heard.at(0)
                expect(change.kind) == .edited
                expect(change.added) == [milk.id]
                expect(change.values[milk.id]) == .todo(milk)
                let done = try awaiting { try await laptop.updateTodo(milk.id) { $0.alter(.completed(true)) } }.after
                expect(heard.withLock { $0.count }).toEventually(equal(2))
                change = try heard.at(1)
                expect(change.edited) == [milk.id]
                expect(change.added) == []
                expect(change.values[milk.id]) == .todo(done)
                try awaiting { try await laptop.removeTodo(milk.id) }
                expect(heard.withLock { $0.count }).toEventually(equal(3))
                change = try heard.at(2)
                expect(change.removed) == [milk.id]
                expect(change.values.isEmpty) == true
                // The watcher's look at the files this handle wrote finds nothing new.
                Thread.sleep(forTimeInterval: 0.5)
                expect(heard.withLock { $0.count }) == 3
            }
            it("names only what it wrote: another process's edit made just before is told as seen, not as this one's") {
                let laptop = try clone("laptop")
                // No watching and a long poll: the other process's edit is found by the next look.
                let (heard, task) = listen(laptop, watching: false)
                defer { task.cancel() }
                let other = docket(["add", "Call Anna"], store: laptop.root)
                expect(other.status) == 0
                let milk = TodoItem(text: "Buy milk")
                try awaiting { try await laptop.addTodo(milk) }
                expect(heard.withLock { $0.count }).toEventually(equal(1))
                let change = try heard.at(0)
                expect(change.kind) == .edited
                expect(change.added) == [milk.id]
                // A commit looks at the files first: the other process's todo is told as seen, the commit adds nothing.
                try awaiting { try await laptop.commit() }
                expect(heard.withLock { $0.count }).toEventually(equal(2))
                let seen = try heard.at(1)
                expect(seen.kind) == .seen
                expect(seen.added.count) == 1
                expect(
                    seen.values.values.map { value -> String? in
                        if case let .todo(todo) = value { todo.text } else { nil }
                    }) == ["Call Anna"]
                Thread.sleep(forTimeInterval: 0.3)
                expect(heard.withLock { $0.count }) == 2
            }
            it("is told to another handle on the same store in this process, as another handle's") {
                let laptop = try clone("laptop")
                let second = try StoreQueue.open(at: laptop.root)
                let (heard, task) = listen(second, watching: false)
                defer { task.cancel() }
                let milk = TodoItem(text: "Buy milk")
                try awaiting { try await laptop.addTodo(milk) }
                expect(heard.withLock { $0.count }).toEventually(equal(1))
                let change = try heard.at(0)
                expect(change.kind) == .otherHandle
                expect(change.added) == [milk.id]
                expect(change.values[milk.id]) == .todo(milk)
                expect(try awaiting { try await second.snapshot() }.state.todos) == [milk]
            }
        }

        describe("a sync") {
            it("tells nothing when nothing changed, and a pull's arrivals with their values as pulled") {
                let laptop = try clone("laptop")
                try awaiting { try await laptop.sync() }
                let desk = try clone("desk")
                let (heard, task) = listen(laptop)
                defer { task.cancel() }
                try awaiting {
                    try await laptop.sync()
                    try await laptop.sync()
                }
                Thread.sleep(forTimeInterval: 0.3)
                expect(heard.withLock { $0 }) == []
                let bread = TodoItem(text: "Buy bread")
                try awaiting {
                    try await desk.addTodo(bread)
                    try await desk.sync()
                    try await laptop.sync()
                }
                expect(heard.withLock { $0.count }).toEventually(equal(1))
                let change = try heard.at(0)
                expect(change.kind) == .pulled
                expect(change.added) == [bread.id]
                expect(change.values[bread.id]) == .todo(bread)
                Thread.sleep(forTimeInterval: 0.5)
                expect(heard.withLock { $0.count }) == 1
            }
        }

        describe("a project's change") {
            it("carries the project with its tasks, and a task's value with its project") {
                let laptop = try clone("laptop")
                let (heard, task) = listen(laptop)
                defer { task.cancel() }
                let garden = Project(title: "Garden")
                let dig = ProjectTask(title: "Dig")
                try awaiting {
                    try await laptop.addProject(garden)
                    try await laptop.addTask(dig, to: garden.id)
                }
                expect(heard.withLock { $0.count }).toEventually(equal(2))
                let (added, withTask) = (try heard.at(0), try heard.at(1))
                expect(added.values[garden.id]) == .project(garden)
                expect(withTask.added) == [dig.id]
                expect(withTask.values[dig.id]) == .task(dig, project: garden.id)
            }
        }
    }
}

/// The changes a stream told, in order.
private final class Heard: Sendable {
    private let changes = Mutex<[StoreChange]>([])

    func withLock<T>(_ body: (inout [StoreChange]) -> T) -> T { changes.withLock { body(&$0) } }

    /// The change told `index`th; throws (failing the example) when fewer were told.
    func at(_ index: Int) throws -> StoreChange {
        let all = withLock { $0 }
        guard all.indices.contains(index) else { throw Missing(index: index, told: all.count) }
        return all[index]
    }

    struct Missing: Error {
        let index: Int
        let told: Int
    }
}
