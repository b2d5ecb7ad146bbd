import Docket
import DocketSystem
import Foundation

/// How soon `StoreQueue.changes()` reports a change another process made: `docket add` run `runs` times in a
/// store of `size` todos, each timed from the moment the process exits to the moment the stream names the new
/// todo; once with the store's change monitor on (`docket monitor on`), once watching the store's folders itself
/// (inotify), once with only the look every `poll` seconds.
struct ChangesBenchmark {
    let size: Int
    let runs: Int
    let poll: Double
    let docket: String

    func run() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("docket-bench-changes-\(getpid())")
        defer { try? FileManager.default.removeItem(at: folder) }
        try Generate(size: size, folder: folder, commit: true).run()
        print("changes: \(size) todos, \(runs) runs of docket add in another process, poll every \(poll) s")
        for way in ["monitor", "inotify", "poll only"] {
            let watching = way != "poll only"
            if way == "monitor" { try runDocket(["-C", folder.path, "monitor", "on"]) }
            defer { if way == "monitor" { try? runDocket(["-C", folder.path, "monitor", "off"]) } }
            let store = try StoreQueue.open(at: folder)
            let heard = Locked<[UUID: Date]>([:])
            let listening = Task.detached {
                for await change in store.changes(pollInterval: .milliseconds(Int(poll * 1000)), watching: watching) {
                    let now = Date()
                    heard.withLock { for id in change.added { $0[id] = now } }
                }
            }
            try await Task.sleep(for: .milliseconds(500))
            var delays: [Double] = []
            for run in 0..<runs {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: docket)
                process.arguments = ["-C", folder.path, "add", "Benchmark todo \(run)"]
                let output = Pipe()
                process.standardOutput = output
                try process.run()
                process.waitUntilExit()
                let exited = Date()
                let short = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                let deadline = Date().addingTimeInterval(poll * 3 + 5)
                var seen: Date?
                while seen == nil, Date() < deadline {
                    seen = heard.withLock { $0.first { $0.key.uuidString.lowercased().hasPrefix(short) }?.value }
                    if seen == nil { try await Task.sleep(for: .milliseconds(2)) }
                }
                delays.append(seen.map { max(0, $0.timeIntervalSince(exited)) * 1000 } ?? .infinity)
            }
            listening.cancel()
            let sorted = delays.sorted()
            print(
                String(
                    format: "  %@: median %.0f ms, max %.0f ms, missed %d",
                    way, sorted[sorted.count / 2], sorted.last ?? 0,
                    delays.filter { !$0.isFinite }.count))
        }
    }

    /// Runs docket and waits for it. NB: not through `Process`, whose wait did not end once `monitor on` had left a
    /// monitor running in the background.
    private func runDocket(_ arguments: [String]) throws {
        _ = try Spawn.run([docket] + arguments)
    }
}
