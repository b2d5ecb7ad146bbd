import Docket
import DocketSpecSupport
import Foundation
import Nimble
import Quick
import Synchronization

/// `StoreQueue.write {}` as an app's transaction: all or nothing, and a cancelled task's edit never written; and
/// readers, who never wait for it.
final class StoreQueueWriteSpec: QuickSpec {
    override class func spec() {
        var root: URL!
        var queue: StoreQueue!
        beforeEach {
            root = temporaryFolder("docket-queue-write")
            queue = try! StoreQueue.create(at: root.appendingPathComponent("store"))
        }
        afterEach {
            queue = nil
            try? FileManager.default.removeItem(at: root)
        }
        func todos() throws -> [TodoItem] { try Store.open(at: queue.root).load().state.todos }
        func undoable() -> String { docket(["undo", "--list"], store: queue.root).stdout }

        describe("a write that throws") {
            it("leaves nothing written: neither a todo its first call added nor one its second call changed") {
                let queue = queue!
                let bread = TodoItem(text: "Buy bread")
                try awaiting { try await queue.addTodo(bread) }
                let before = undoable()
                let milk = TodoItem(text: "Buy milk")
                let missing = UUID()
                expect {
                    try awaiting {
                        try await queue.write { store in
                            try store.addTodo(milk)
                            try store.updateTodo(bread.id) { $0.alter(.completed(true)) }
                            try store.updateTodo(missing) { $0 }
                        }
                    }
                }.to(throwError(StoreError.input(.notFound(kind: .todo, id: missing.uuidString))))
                expect(try todos()) == [bread]
                // Nor is anything left for undo to take back.
                expect(undoable()) == before
            }
            it("holds the store's lock throughout, so another process's edit waits for all of it") {
                let queue = queue!
                let milk = TodoItem(text: "Buy milk")
                let started = DispatchSemaphore(value: 0)
                let writing = Task.detached {
                    try queue.write { store in
                        try store.addTodo(milk)
                        started.signal()
                        Thread.sleep(forTimeInterval: 0.5)
                        throw CancellationError()
                    }
                }
                started.wait()
                let other = docket(["add", "Call Anna"], store: queue.root)
                expect(other.status) == 0
                expect { try awaiting { try await writing.value } }.to(throwError(CancellationError()))
                expect(try todos().map(\.text)) == ["Call Anna"]
            }
        }

        describe("a task cancelled while its edit waits in the queue") {
            it("throws CancellationError, and the todo is not written") {
                let queue = queue!
                let busy = DispatchSemaphore(value: 0)
                let inside = DispatchSemaphore(value: 0)
                let holding = Task.detached {
                    try await queue.read { _ in
                        inside.signal()
                        busy.wait()
                    }
                }
                inside.wait()
                let milk = TodoItem(text: "Buy milk")
                let adding = Task.detached { try await queue.addTodo(milk) }
                Thread.sleep(forTimeInterval: 0.2)
                adding.cancel()
                busy.signal()
                expect { try awaiting { try await adding.value } }.to(throwError(CancellationError()))
                try awaiting { try await holding.value }
                expect(try todos()) == []
            }
        }

        describe("a reader") {
            it("gets the last committed snapshot at once while a slow write holds the queue") {
                let queue = queue!
                let bread = TodoItem(text: "Buy bread")
                try awaiting { try await queue.addTodo(bread) }
                expect(try awaiting { try await queue.snapshot() }.state.todos) == [bread]
                let release = DispatchSemaphore(value: 0)
                let inside = DispatchSemaphore(value: 0)
                let released = Mutex(false)
                let milk = TodoItem(text: "Buy milk")
                let writing = Task.detached {
                    try await queue.write { store in
                        try store.addTodo(milk)
                        inside.signal()
                        _ = release.wait(timeout: .now() + 20)
                        released.withLock { $0 = true }
                    }
                }
                inside.wait()
                let during = try awaiting { try await queue.snapshot() }
                expect(released.withLock { $0 }) == false
                expect(during.state.todos) == [bread]
                let listed = try awaiting { try await queue.entries(EntryFilter()) }
                expect(listed.entries.map(\.id)) == [bread.id]
                release.signal()
                try awaiting { try await writing.value }
                expect(
                    try awaiting { try await queue.snapshot() }.state.todos.map(\.id).sorted {
                        $0.uuidString < $1.uuidString
                    })
                    == [bread.id, milk.id].sorted { $0.uuidString < $1.uuidString }
            }
            it("sees another process's edit once the queue is idle") {
                let queue = queue!
                expect(try awaiting { try await queue.snapshot() }.state.todos) == []
                expect(docket(["add", "Call Anna"], store: queue.root).status) == 0
                expect(try awaiting { try await queue.snapshot() }.state.todos.map(\.text)) == ["Call Anna"]
            }
        }

        describe("the list through the library") {
            it("filters, sorts and finds what is ready as docket list does") {
                let queue = queue!
                let store = try Store.open(at: queue.root)
                let paint = TodoItem(text: "Paint the fence").alter(.tagging(add: ["home"], remove: []))
                let buy = TodoItem(text: "Buy paint").alter(.tagging(add: ["home"], remove: []))
                    .alter(.priority(.high))
                let fence = paint.alter(.depending(add: [buy.id], remove: []))
                let call = TodoItem(text: "Call Anna")
                try awaiting {
                    for todo in [fence, buy, call] { try await queue.addTodo(todo) }
                }
                var home = EntryFilter()
                home.tags = ["home"]
                home.order = EntryOrder([EntryOrder.Term(.priority)])
                let homeFilter = home
                let listed = try awaiting { try await queue.entries(homeFilter) }.entries.map(\.id)
                expect(listed) == [buy.id, fence.id]
                expect(listed) == (try store.entries(home).entries.map(\.id))
                var ready = EntryFilter()
                ready.readiness = .ready
                let readyIDs = try awaiting { [ready] in try await queue.entries(ready) }.entries.map(\.id)
                expect(Set(readyIDs)) == [buy.id, call.id]
                expect(readyIDs) == (try store.entries(ready).entries.map(\.id))
            }
        }
    }
}
