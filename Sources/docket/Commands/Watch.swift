import ArgumentParser
import Docket
import DocketSystem
import Foundation
import Synchronization

/// `docket sync --watch`: the library's `SyncService` (sync on change and on an interval, back-off, one watcher per
/// store), each of its events logged with its time; the first Ctrl-C or SIGTERM stops it.
struct SyncWatcher {
    let root: URL
    let remote: String?
    let interval: TimeInterval
    let delay: TimeInterval
    let log: WatchLog

    func run() throws {
        StopSignals.catchThem()
        let store = try StoreQueue.open(at: root)
        let log = self.log
        try store.write { store in
            store.action = "docket sync --watch"
            store.hookReport = { run in
                for line in run.output { log(Output.safe(line)) }
                if let warning = hookWarning(run) { log("Warning: " + warning) }
            }
        }
        let interval = self.interval
        let service = SyncService(
            store, remote: remote, interval: interval, delay: delay,
            options: {
                var options = TransferOptions.fromEnvironment()
                options.serverMessage = { log("remote: \(Output.safe($0))") }
                options.warning = { log("Warning: \($0)") }
                return options
            },
            report: { event in SyncWatcher.say(event, interval: interval, root: store.root, log: log) })
        let finished = DispatchSemaphore(value: 0)
        let outcome = Mutex<(any Error)?>(nil)
        let running = Task.detached {
            do { try await service.run() } catch { outcome.withLock { $0 = error } }
            finished.signal()
        }
        while finished.wait(timeout: .now() + 0.1) == .timedOut {
            if StopSignals.stopRequested { running.cancel() }
        }
        if let error = outcome.withLock({ $0 }) { throw error }
    }

    /// An event as the log says it.
    static func say(_ event: SyncService.Event, interval: TimeInterval, root: URL, log: WatchLog) {
        switch event {
        case let .started(root, interval, unwatched):
            if unwatched > 0 {
                log(
                    "Warning: \(unwatched) folders cannot be watched (the system's limit, fs.inotify.max_user_watches, "
                        + "is reached); their changes are synced every \(SyncService.show(interval))")
            }
            log(
                "Watching \(Output.safe(root.path)): syncing when it changes and every \(SyncService.show(interval)); stop with Ctrl-C"
            )
        case let .committed(id, message):
            log("Committed \(id.prefix(7)): \(Output.safe(message))")
        case let .synced(outcome):
            var lines = outcome.pulls.map { describe($0, remote: outcome.remote) }
            if let pushed = outcome.pushed {
                lines.append("Pushed to \(Output.safe(pushed.remote)).")
            }
            if lines.count > 1 { lines.removeAll { $0 == describe(.upToDate, remote: outcome.remote) } }
            for line in lines { log(line) }
            (try? Store.open(at: root))?.packInBackgroundIfNeeded()
        case let .busy(pid):
            log(
                "The store is busy (\(pid.map { "docket, pid \($0), is" } ?? "another docket is") changing it); "
                    + "trying again shortly")
        case let .failed(reason, wait):
            log("Error: \(reason)")
            log("Trying again in \(SyncService.show(wait)), or when the store changes")
        case let .stopped(root):
            log("Stopped watching \(Output.safe(root.path)).")
        }
    }
}

/// Where a watcher's lines go: stdout, or a file they are appended to; each starts with the local time. Lines come
/// from the watcher's tasks one whole line at a time, behind one lock.
final class WatchLog: Sendable {
    private struct Sink: ~Copyable {
        let handle: FileHandle
        let formatter: DateFormatter
    }

    private let sink: Mutex<Sink>

    init(file: String?) throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        guard let file else {
            sink = Mutex(Sink(handle: FileHandle.standardOutput, formatter: formatter))
            return
        }
        let path = Home.expand(file)
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            throw ValidationError(
                "cannot write the log file \(path) (\(String(cString: strerror(errno)))); name a file in a folder you can write"
            )
        }
        sink = Mutex(Sink(handle: FileHandle(fileDescriptor: fd, closeOnDealloc: true), formatter: formatter))
    }

    func callAsFunction(_ text: String) {
        let lines = Output.safeLines(text).split(separator: "\n", omittingEmptySubsequences: false)
        sink.withLock { sink in
            let stamp = sink.formatter.string(from: Date())
            sink.handle.write(Data(lines.map { "\(stamp) \($0)\n" }.joined().utf8))
        }
    }
}

/// A time span as a watcher's options take it: `90` (seconds), `30s`, `5m`, `1h`.
enum WatchInterval {
    static func parse(_ text: String, option: String) throws -> TimeInterval {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600]
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let unit = trimmed.last.flatMap { units[$0] }
        let number = Double(unit == nil ? trimmed : String(trimmed.dropLast()))
        guard let number, number.isFinite, number > 0, number * (unit ?? 1) <= 86_400 * 7 else {
            throw ValidationError("\(option) takes a time such as 30s, 5m or 1h (up to a week), not '\(text)'")
        }
        return number * (unit ?? 1)
    }

}
