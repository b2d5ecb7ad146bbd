import Dispatch
import DocketGit
import DocketSystem
import Foundation

/// Keeps a store synced by itself, as `docket sync --watch` does: a sync once
/// the store has been still for `delay` after a change, and every `interval`
/// for other machines' changes; while syncs fail it waits longer each time
/// (up to an hour), and a change still starts one. One service (or `sync
/// --watch`) per store: a second is refused with `Store.AlreadyWatched`.
///
/// Run it as a task and stop it by cancelling the task; a sync under way stops
/// as a cancelled one does, resumable.
///
/// ```swift
/// let service = SyncService(store, interval: 300) { event in print(event) }
/// let running = Task { try await service.run() }
/// // …
/// running.cancel()
/// ```
public struct SyncService: Sendable {
    /// What the service did, as it did it.
    public enum Event: Sendable, CustomStringConvertible {
        /// It started watching; `unwatched` folders (past the system's inotify limit) are synced by interval only.
        case started(root: URL, interval: TimeInterval, unwatched: Int)
        /// The sync committed the store's changes first.
        case committed(id: String, message: String)
        /// A sync finished.
        case synced(SyncOutcome)
        /// Another docket held the store; the service tries again shortly.
        case busy(pid: Int32?)
        /// A sync failed; the service tries again after `retryIn` seconds, or when the store changes.
        case failed(reason: String, retryIn: TimeInterval)
        /// It stopped: its task was cancelled.
        case stopped(root: URL)

        public var description: String {
            switch self {
            case let .started(root, interval, unwatched):
                "Watching \(root.path): syncing when it changes and every \(SyncService.show(interval))"
                    + (unwatched > 0 ? " (\(unwatched) folders cannot be watched: synced by interval only)" : "")
            case let .committed(id, message): "Committed \(id.prefix(7)): \(message)"
            case let .synced(outcome): "Synced with \(outcome.remote)"
            case let .busy(pid):
                "The store is busy (\(pid.map { "docket, pid \($0), is" } ?? "another docket is") "
                    + "changing it); trying again shortly"
            case let .failed(reason, wait):
                "Error: \(reason)\nTrying again in \(SyncService.show(wait)), or when the store changes"
            case let .stopped(root): "Stopped watching \(root.path)."
            }
        }
    }

    /// The longest wait between tries while syncs fail.
    public static let longestBackoff: TimeInterval = 3600

    let store: StoreQueue
    let remote: String?
    let interval: TimeInterval
    let delay: TimeInterval
    let options: @Sendable () -> TransferOptions
    let report: @Sendable (Event) -> Void

    /// A service for `store`, syncing with `remote` (its upstream's when nil). `options` are asked for before each
    /// sync (the environment may change); `report` hears every event.
    public init(
        _ store: StoreQueue, remote: String? = nil, interval: TimeInterval = 300, delay: TimeInterval = 2,
        options: @escaping @Sendable () -> TransferOptions = { .fromEnvironment() },
        report: @escaping @Sendable (Event) -> Void = { _ in }
    ) {
        (self.store, self.remote, self.interval, self.delay) = (store, remote, interval, delay)
        (self.options, self.report) = (options, report)
    }

    /// A service for `store` with the environment's transfer options, whose events `report` hears: the form for a
    /// trailing closure, `SyncService(store) { event in … }`.
    public init(
        _ store: StoreQueue, remote: String? = nil, interval: TimeInterval = 300, delay: TimeInterval = 2,
        report: @escaping @Sendable (Event) -> Void
    ) {
        self.init(
            store, remote: remote, interval: interval, delay: delay, options: { .fromEnvironment() }, report: report)
    }

    /// A service for `store` whose events come as a stream, for a task of the app's own to read; the stream ends
    /// once the service stops (after `.stopped`).
    public static func withEvents(
        _ store: StoreQueue, remote: String? = nil, interval: TimeInterval = 300, delay: TimeInterval = 2,
        options: @escaping @Sendable () -> TransferOptions = { .fromEnvironment() }
    ) -> (service: SyncService, events: AsyncStream<Event>) {
        let (events, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(256))
        let service = SyncService(store, remote: remote, interval: interval, delay: delay, options: options) {
            event in
            continuation.yield(event)
            if case .stopped = event { continuation.finish() }
        }
        return (service, events)
    }

    /// Runs until its task is cancelled; throws `Store.AlreadyWatched` when another watcher holds the store.
    public func run() async throws {
        let lock = try await store.read { try $0.takeWatchLock() }
        defer { lock.release() }
        let changes = FolderChanges(root: store.root)
        report(.started(root: store.root, interval: interval, unwatched: changes.unwatched))
        var nextSync = Date()
        var lastChange: Date?
        var failures = 0
        while !Task.isCancelled {
            let now = Date()
            let due = lastChange.map { min(nextSync, $0.addingTimeInterval(delay)) } ?? nextSync
            guard now >= due else {
                if await changes.next(within: min(due.timeIntervalSince(now), 1)) { lastChange = Date() }
                continue
            }
            lastChange = nil
            let result = await syncOnce()
            if Task.isCancelled { break }
            // NB: a pull writes files too; what changed meanwhile counts only if it left something to commit.
            if changes.drain(), (try? await store.read({ try $0.hasUncommittedChanges })) == true {
                lastChange = Date()
            }
            switch result {
            case .synced:
                failures = 0
                nextSync = Date().addingTimeInterval(interval)
            case .busy:
                nextSync = Date().addingTimeInterval(min(5, interval))
            case let .failed(reason):
                failures += 1
                let wait = min(interval * pow(2, Double(failures - 1)), max(interval, SyncService.longestBackoff))
                nextSync = Date().addingTimeInterval(wait)
                report(.failed(reason: reason, retryIn: wait))
            }
        }
        report(.stopped(root: store.root))
    }

    private enum Result {
        case synced, busy
        case failed(String)
    }

    private func syncOnce() async -> Result {
        let report = self.report
        do {
            let outcome = try await store.sync(remote: remote, options: options()) { committed in
                if case let .committed(id, message) = committed { report(.committed(id: id, message: message)) }
            }
            report(.synced(outcome))
            return .synced
        } catch let StoreError.state(.locked(_, pid)) {
            report(.busy(pid: pid))
            return .busy
        } catch is CancellationError {
            return .synced
        } catch {
            return .failed("\(error)")
        }
    }

    /// A time span as people read it: "5 min", "1 h", "30 s".
    public static func show(_ seconds: TimeInterval) -> String {
        if seconds >= 3600, seconds.truncatingRemainder(dividingBy: 3600) == 0 { return "\(Int(seconds / 3600)) h" }
        if seconds >= 60, seconds.truncatingRemainder(dividingBy: 60) == 0 { return "\(Int(seconds / 60)) min" }
        return seconds == seconds.rounded() ? "\(Int(seconds)) s" : String(format: "%.1f s", seconds)
    }
}

/// Changes to a store's files as inotify reports them, waited for on a thread of GCD's (never a Swift concurrency
/// thread, which the wait would block).
final class FolderChanges: @unchecked Sendable {
    // NB: @unchecked: `watch` is used by one caller at a time (`next`, then `drain`), as the service calls them.
    private let watch: FolderWatch?
    let unwatched: Int

    init(root: URL) {
        watch = try? FolderWatch(folders: [root.path])
        unwatched = watch?.unwatched.count ?? 0
    }

    /// Whether a file changed within `seconds`.
    func next(within seconds: TimeInterval) async -> Bool {
        guard let watch, watch.isWatching else {
            try? await Task.sleep(for: .seconds(max(0, seconds)))
            return false
        }
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async { [self] in
                continuation.resume(returning: self.watch?.wait(timeout: max(0, seconds)) ?? false)
            }
        }
    }

    /// Whether anything changed since the last look, forgetting it.
    func drain() -> Bool { watch?.drain() ?? false }
}
