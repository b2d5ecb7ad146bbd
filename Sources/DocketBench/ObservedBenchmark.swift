import Docket
import Foundation

/// What a write through `StoreQueue` costs while the store is observed: `addTodo` timed `runs` times in a store of
/// `size` todos, with no `changes()` listener and then with `listeners` of them, each run waiting `pause` ms after
/// the last (so the listeners' watcher looks at the files between writes, as it does in an app). Also how long a
/// reader waits for `snapshot()` while a sync of the store runs.
struct ObservedBenchmark {
    let size: Int
    let runs: Int
    let listeners: Int
    let pause: Int

    func run() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("docket-bench-observed-\(getpid())")
        defer { try? FileManager.default.removeItem(at: folder) }
        try Generate(size: size, folder: folder, commit: true).run()
        print("observed: addTodo at \(size) todos, \(runs) runs, \(pause) ms apart; rounds taken in turn")
        for count in [0, listeners, 0, listeners] {
            let store = try StoreQueue.open(at: folder)
            let heard = Locked(0)
            var streams: [Task<Void, Never>] = []
            for _ in 0..<count {
                streams.append(
                    Task.detached {
                        for await change in store.changes() { heard.withLock { $0 += change.added.count } }
                    })
            }
            if count > 0 {
                // The first listener's model of the store is read once, before the timing starts.
                _ = try await store.snapshot()
                try await Task.sleep(for: .milliseconds(500))
            }
            var times: [Double] = []
            let began = Date()
            for run in 0..<runs {
                let start = Date()
                try await store.addTodo(TodoItem(text: "Observed todo \(run)"))
                times.append(Date().timeIntervalSince(start) * 1000)
                try await Task.sleep(for: .milliseconds(pause))
            }
            let total = Date().timeIntervalSince(began)
            // A reader after each write: the snapshot built from the last one and the write's changes, and the list.
            var reads: [Double] = []
            var lists: [Double] = []
            if count > 0 {
                for run in 0..<20 {
                    try await store.addTodo(TodoItem(text: "Read after \(run)"))
                    let start = Date()
                    _ = try await store.snapshot()
                    let read = Date()
                    _ = try await store.entries(EntryFilter())
                    reads.append(read.timeIntervalSince(start) * 1000)
                    lists.append(Date().timeIntervalSince(read) * 1000)
                }
            }
            try await Task.sleep(for: .milliseconds(300))
            streams.forEach { $0.cancel() }
            let sorted = times.sorted()
            print(
                String(
                    format: "  %d listener%@: median %.1f ms, p90 %.1f ms, max %.1f ms; %.1f s in all; heard %d of %d",
                    count, count == 1 ? "" : "s", sorted[sorted.count / 2], sorted[sorted.count * 9 / 10],
                    sorted.last ?? 0, total, heard.withLock { $0 } / max(1, count), count > 0 ? runs + 20 : 0))
            if count > 0 {
                print(
                    String(
                        format:
                            "    snapshot() after a write: median %.1f ms; entries() of the snapshot: median %.1f ms",
                        reads.sorted()[reads.count / 2], lists.sorted()[lists.count / 2]))
            }
        }
    }
}
