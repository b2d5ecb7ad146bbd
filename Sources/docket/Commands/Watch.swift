import ArgumentParser
import Docket
import Foundation

/// `docket sync --watch`: syncs when the store changes (once it has been
/// still for `delay`) and every `interval` for other machines' changes,
/// backing off while syncs fail; one watcher per store; every line logged with its time.
struct SyncWatcher {
    let root: URL
    let remote: String?
    let interval: TimeInterval
    let delay: TimeInterval
    let log: WatchLog

    /// The longest wait between tries while syncs fail.
    static let longestBackoff: TimeInterval = 3600

    func run() throws {
        StopSignals.catchThem()
        let first = try Store.open(at: root)
        let lock = try first.takeWatchLock()
        defer { lock.release() }
        let watch = try FolderWatch(folders: [root.path])
        if !watch.unwatched.isEmpty {
            log(
                "Warning: \(watch.unwatched.count) folders cannot be watched (the system's limit, fs.inotify.max_user_watches, is reached); "
                    + "their changes are synced every \(WatchInterval.show(interval))")
        }
        log(
            "Watching \(root.path): syncing when it changes and every \(WatchInterval.show(interval)); stop with Ctrl-C"
        )
        var nextSync = Date()
        var lastChange: Date?
        var failures = 0
        while !StopSignals.stopRequested {
            let now = Date()
            let due = lastChange.map { min(nextSync, $0.addingTimeInterval(delay)) } ?? nextSync
            guard now >= due else {
                if watch.wait(timeout: min(due.timeIntervalSince(now), 1)) { lastChange = Date() }
                continue
            }
            lastChange = nil
            let result = syncOnce()
            // NB: a pull writes files too; what changed meanwhile counts only if it left something to commit.
            if watch.drain(), (try? Store.open(at: root).hasUncommittedChanges) == true { lastChange = Date() }
            switch result {
            case .synced:
                failures = 0
                nextSync = Date().addingTimeInterval(interval)
            case .busy:
                nextSync = Date().addingTimeInterval(min(5, interval))
            case .failed:
                failures += 1
                let wait = min(interval * pow(2, Double(failures - 1)), max(interval, SyncWatcher.longestBackoff))
                nextSync = Date().addingTimeInterval(wait)
                log("Trying again in \(WatchInterval.show(wait)), or when the store changes")
            }
        }
        log("Stopped watching \(root.path).")
    }

    enum Result { case synced, busy, failed }

    /// One sync, logged line by line.
    private func syncOnce() -> Result {
        var options = TransferOptions.fromEnvironment()
        options.serverMessage = { log("remote: \(Output.safe($0))") }
        options.warning = { log("Warning: \($0)") }
        do {
            let store = try Store.open(at: root)
            store.action = "docket sync --watch"
            store.hookReport = { run in
                for line in run.output { log(Output.safe(line)) }
                if let warning = hookWarning(run) { log("Warning: " + warning) }
            }
            let outcome = try store.sync(remote: remote, options: options) { committed in
                if case let .committed(id, message) = committed {
                    log("Committed \(id.prefix(7)): \(Output.safe(message))")
                }
            }
            var lines = outcome.pulls.map { describe($0, remote: outcome.remote) }
            if let pushed = outcome.pushed {
                lines.append("Pushed to \(Output.safe(pushed.remote)).")
            }
            if lines.count > 1 { lines.removeAll { $0 == describe(.upToDate, remote: outcome.remote) } }
            for line in lines { log(line) }
            store.packInBackgroundIfNeeded()
            return .synced
        } catch let StoreError.state(.locked(_, pid)) {
            log(
                "The store is busy (\(pid.map { "docket, pid \($0), is" } ?? "another docket is") changing it); trying again shortly"
            )
            return .busy
        } catch {
            log("Error: \(error)")
            return .failed
        }
    }
}

/// Where a watcher's lines go: stdout, or a file they are appended to; each starts with the local time.
final class WatchLog: @unchecked Sendable {
    private let handle: FileHandle
    private let formatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter
    }()

    init(file: String?) throws {
        guard let file else {
            handle = FileHandle.standardOutput
            return
        }
        let path = Home.expand(file)
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            throw ValidationError(
                "cannot write the log file \(path) (\(String(cString: strerror(errno)))); name a file in a folder you can write"
            )
        }
        handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    func callAsFunction(_ text: String) {
        let stamp = formatter.string(from: Date())
        let lines = Output.safeLines(text).split(separator: "\n", omittingEmptySubsequences: false)
        handle.write(Data(lines.map { "\(stamp) \($0)\n" }.joined().utf8))
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

    static func show(_ seconds: TimeInterval) -> String {
        if seconds >= 3600, seconds.truncatingRemainder(dividingBy: 3600) == 0 { return "\(Int(seconds / 3600)) h" }
        if seconds >= 60, seconds.truncatingRemainder(dividingBy: 60) == 0 { return "\(Int(seconds / 60)) min" }
        return seconds == seconds.rounded() ? "\(Int(seconds)) s" : String(format: "%.1f s", seconds)
    }
}
