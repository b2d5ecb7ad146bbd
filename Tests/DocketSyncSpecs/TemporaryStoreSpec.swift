import Docket
import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// `TemporaryStore` and a store's own clock and ids: what an app's tests stand on.
final class TemporaryStoreSpec: QuickSpec {
    override class func spec() {
        describe("a temporary store") {
            it("is a store in a scratch folder with a bare remote beside it, synced through it, and goes in one call") {
                let scratch = try TemporaryStore.make("docket-temporary")
                expect(scratch.folder.path).to(beginWith(FileManager.default.temporaryDirectory.path))
                expect(FileManager.default.fileExists(atPath: scratch.remote.appendingPathComponent("HEAD").path))
                    == true
                let milk = TodoItem(text: "Buy milk")
                try awaiting {
                    try await scratch.store.addTodo(milk)
                    try await scratch.store.sync()
                }
                let laptop = try awaiting { try await scratch.clone("laptop") }
                expect(laptop.root.deletingLastPathComponent().standardizedFileURL.path)
                    == scratch.folder.standardizedFileURL.path
                expect(try awaiting { try await laptop.load() }.state.todos) == [milk]
                scratch.remove()
                expect(FileManager.default.fileExists(atPath: scratch.folder.path)) == false
            }
        }

        describe("a SyncService's events as a stream") {
            it("come as the service syncs, and end once it stops") {
                let scratch = try TemporaryStore.make("docket-events")
                defer { scratch.remove() }
                let (service, events) = SyncService.withEvents(scratch.store, interval: 0.5, delay: 0.1)
                let running = Task.detached { try await service.run() }
                let heard = try awaiting { () -> [String] in
                    var heard: [String] = []
                    for await event in events {
                        heard.append("\(event)")
                        if case .synced = event { running.cancel() }
                    }
                    return heard
                }
                expect(heard.first).to(beginWith("Watching "))
                expect(heard).to(containElementSatisfying { $0.hasPrefix("Synced with origin") })
                expect(heard.last).to(beginWith("Stopped watching "))
            }
        }

        describe("two stores in one process") {
            it("each read now and make ids from their own clock and id source") {
                let early = Date(timeIntervalSince1970: 1_780_000_000)
                let late = Date(timeIntervalSince1970: 1_900_000_000)
                let first = UUID(uuidString: "00000000-0000-4000-8000-000000000001")!
                let second = UUID(uuidString: "00000000-0000-4000-8000-000000000002")!
                let one = try TemporaryStore.make("docket-clock", clock: { early }, ids: { first })
                let two = try TemporaryStore.make("docket-clock", clock: { late }, ids: { second })
                defer {
                    one.remove()
                    two.remove()
                }
                func addAndFinish(_ scratch: TemporaryStore) throws -> TodoItem {
                    try awaiting {
                        let id = try await scratch.store.write { store -> UUID in
                            let todo = TodoItem(text: "Buy milk")
                            try store.addTodo(todo)
                            return todo.id
                        }
                        return try await scratch.store.updateTodo(id) { $0.alter(.completed(true)) }.after
                    }
                }
                let done = try addAndFinish(one)
                let later = try addAndFinish(two)
                expect(done.id) == first
                expect(done.creationDate) == early
                expect(done.completedDate) == early
                expect(later.id) == second
                expect(later.completedDate) == late
                // The process's own clock is left alone.
                expect(abs(DocketClock.now.timeIntervalSinceNow)) < 60
            }
        }
    }
}
