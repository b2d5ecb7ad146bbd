import Docket
import Foundation

/// Times opening a store and loading every item into an `AppState`, the
/// library call every whole-store command starts from.
struct LoadBenchmark {
    let folder: URL
    let runs: Int

    func run() throws {
        var times: [Double] = []
        var count = 0
        for _ in 0..<max(1, runs) {
            let began = DispatchTime.now().uptimeNanoseconds
            let snapshot = try Store.open(at: folder).load()
            times.append(Double(DispatchTime.now().uptimeNanoseconds - began) / 1e6)
            count = snapshot.state.todos.count + snapshot.state.projects.reduce(0) { $0 + 1 + $1.tasks.count }
        }
        let median = times.sorted()[times.count / 2]
        print(String(format: "load %d items: median %.1f ms of %d runs", count, median, times.count))
        // What an app opens with: a new queue's first snapshot (the first value of its change stream is built the same way).
        var queued: [Double] = []
        for _ in 0..<max(1, runs) {
            let began = DispatchTime.now().uptimeNanoseconds
            let snapshot = try waitFor { try await StoreQueue.open(at: folder).snapshot() }
            queued.append(Double(DispatchTime.now().uptimeNanoseconds - began) / 1e6)
            count = snapshot.state.todos.count + snapshot.state.projects.reduce(0) { $0 + 1 + $1.tasks.count }
        }
        print(
            String(
                format: "queue's first snapshot of %d items: median %.1f ms of %d runs", count,
                queued.sorted()[queued.count / 2], queued.count))
    }

    /// The value of an async call, waited for on this thread.
    private func waitFor<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let box = Box<T>()
        let done = DispatchSemaphore(value: 0)
        Task {
            do { box.result = .success(try await body()) } catch { box.result = .failure(error) }
            done.signal()
        }
        done.wait()
        return try box.result!.get()
    }
}

private final class Box<T>: @unchecked Sendable {
    var result: Result<T, Error>?
}
