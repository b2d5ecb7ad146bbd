import Dispatch
import DocketModel
import DocketSystem
import Foundation
import Synchronization

/// What changed in a store, as `StoreQueue.changes()` reports it: the items
/// (todos, projects and tasks, by id) added, edited and removed, how, and the
/// new value of each item added or edited.
public struct StoreChange: Sendable, Equatable, CustomStringConvertible {
    /// How the change came.
    public enum Kind: Sendable, Equatable {
        /// An edit through this handle.
        case edited
        /// A commit through this handle (it changes items only when it took in hand edits).
        case committed
        /// A pull or sync through this handle: other machines' changes merged in.
        case pulled
        /// A change through another `StoreQueue` on the same store in this process.
        case otherHandle
        /// A change made elsewhere: another process (another docket, `sync --watch`, git), or a hand edit of the
        /// files.
        case seen
    }

    /// An item's value as the change left it.
    public enum Value: Sendable, Equatable {
        /// A todo.
        case todo(TodoItem)
        /// A project, with its tasks as they are now.
        case project(Project)
        /// A task, and the project it is in.
        case task(ProjectTask, project: UUID)
    }

    /// How it came.
    public let kind: Kind
    /// Items that are new.
    public let added: [UUID]
    /// Items whose values changed (a project whose title changed; a task is an item of its own).
    public let edited: [UUID]
    /// Items that are gone.
    public let removed: [UUID]
    /// The value of each item added or edited, by id.
    public let values: [UUID: Value]

    /// Whether nothing changed.
    public var isEmpty: Bool { added.isEmpty && edited.isEmpty && removed.isEmpty }

    public var description: String {
        let kinds: [Kind: String] = [
            .edited: "edited here", .committed: "committed here", .pulled: "pulled",
            .otherHandle: "edited through another handle", .seen: "changed elsewhere",
        ]
        let counts = [("added", added.count), ("edited", edited.count), ("removed", removed.count)]
            .filter { $0.1 > 0 }.map { "\($0.1) \($0.0)" }
        return "\(kinds[kind] ?? "changed"): " + (counts.isEmpty ? "no item changed" : counts.joined(separator: ", "))
    }

    /// One item's change, as the store's model finds it.
    struct ItemChange {
        let id: UUID
        /// Whether the item was there before.
        let existed: Bool
        /// Its value now; nil when it is gone (or, with `project`, until the project's value is filled in).
        let value: Value?
        /// The project whose value is to be filled in once every change is in.
        var project: UUID? = nil
    }

    /// The change made of `items` (the last change of an item counts).
    init(kind: Kind, items: [ItemChange]) {
        var last: [UUID: ItemChange] = [:]
        var existed: [UUID: Bool] = [:]
        for item in items {
            last[item.id] = item
            if existed[item.id] == nil { existed[item.id] = item.existed }
        }
        var added: [UUID] = []
        var edited: [UUID] = []
        var removed: [UUID] = []
        var values: [UUID: Value] = [:]
        for (id, item) in last {
            let was = existed[id] ?? item.existed
            if let value = item.value {
                values[id] = value
                if was { edited.append(id) } else { added.append(id) }
            } else if was {
                removed.append(id)
            }
        }
        self.kind = kind
        self.added = added.sorted(by: StoreChange.ids)
        self.edited = edited.sorted(by: StoreChange.ids)
        self.removed = removed.sorted(by: StoreChange.ids)
        self.values = values
    }

    /// This change as another handle hears it.
    func heard(as kind: Kind) -> StoreChange {
        StoreChange(kind: kind, added: added, edited: edited, removed: removed, values: values)
    }

    private init(kind: Kind, added: [UUID], edited: [UUID], removed: [UUID], values: [UUID: Value]) {
        (self.kind, self.added, self.edited, self.removed, self.values) = (kind, added, edited, removed, values)
    }

    private static func ids(_ a: UUID, _ b: UUID) -> Bool { a.uuidString < b.uuidString }
}

extension StoreQueue {
    /// The store's changes as they happen: this handle's own edits, commits and pulls, other handles' on the same
    /// store in this process, and changes made elsewhere (another process, a hand edit), seen as they are made —
    /// from the store's change monitor when it is on (`docket monitor on`) and answers, else through inotify on the
    /// store's folders — and by a look every `pollInterval` (for what neither sees: another mount, a network file
    /// system). Each change names the items it added, edited and removed, with the new values; a look that finds
    /// nothing new reports nothing, and neither does a commit or pull that changed no item.
    ///
    /// An edit through the queue is told from what it wrote, without reading the store again; a look reads only
    /// the files whose stat data changed. The first stream loads the whole store once (as `Store.load()`, from the
    /// caches of decoded items), on the queue, without blocking the caller.
    ///
    /// The stream ends when the task iterating it is cancelled or the stream is dropped. With `watching` false, only
    /// the look every `pollInterval` sees changes made elsewhere.
    public func changes(pollInterval: Duration = .seconds(2), watching: Bool = true) -> AsyncStream<StoreChange> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: StoreChange.self, bufferingPolicy: .bufferingNewest(256))
        let id = UUID()
        let started = observers.add(id, continuation)
        continuation.onTermination = { [observers] _ in observers.remove(id) }
        let seconds = Double(pollInterval.components.seconds) + Double(pollInterval.components.attoseconds) / 1e18
        enqueue { [self] store in
            // The model is what later changes are measured against; the first stream after none brings it up to
            // date without telling (what changed before it listened is not news to it).
            let others = observers.pause()
            try? startModel(refresh: started)
            observers.resume(others)
            guard started else { return }
            // NB: a store whose monitor is on is watched by the monitor already; the stream asks it.
            let monitor = watching ? (try? store.monitorFolderIfOn()) ?? nil : nil
            observers.startWatching(
                root: root, every: max(0.05, seconds), inotify: watching, monitor: monitor
            ) { [weak self] paths in
                guard let self else { return }
                self.enqueue { [weak self] _ in self?.look(as: .seen, only: paths) }
            }
            // NB: what changed between the model's start and the watch's (which no event names) is looked for once.
            look(as: .seen)
        }
        return stream
    }
}

/// The observers of one `StoreQueue`. The set of observers and the watcher are behind its own lock.
final class StoreObservers: Sendable {
    private struct Listeners {
        var continuations: [UUID: AsyncStream<StoreChange>.Continuation] = [:]
        var watcher: StoreWatcher?
        var paused = false
    }
    private let listeners = Locked(Listeners())

    /// Adds an observer; true when it is the first.
    func add(_ id: UUID, _ continuation: AsyncStream<StoreChange>.Continuation) -> Bool {
        listeners.withLock {
            $0.continuations[id] = continuation
            return $0.continuations.count == 1 && $0.watcher == nil
        }
    }

    func remove(_ id: UUID) {
        let watcher = listeners.withLock { listeners -> StoreWatcher? in
            listeners.continuations[id] = nil
            guard listeners.continuations.isEmpty else { return nil }
            defer { listeners.watcher = nil }
            return listeners.watcher
        }
        watcher?.stop()
    }

    var isObserved: Bool { listeners.withLock { !$0.continuations.isEmpty } }

    /// Tells every observer of `change`.
    func tell(_ change: StoreChange) {
        for continuation in listeners.withLock({ $0.paused ? [] : Array($0.continuations.values) }) {
            continuation.yield(change)
        }
    }

    /// Stops telling until `resume`; whether it told before.
    func pause() -> Bool {
        listeners.withLock { listeners in
            defer { listeners.paused = true }
            return !listeners.paused
        }
    }

    func resume(_ telling: Bool) { if telling { listeners.withLock { $0.paused = false } } }

    func startWatching(
        root: URL, every interval: TimeInterval, inotify: Bool, monitor: String?,
        _ look: @escaping @Sendable (Set<String>?) -> Void
    ) {
        let watcher = StoreWatcher(root: root, interval: interval, inotify: inotify, monitor: monitor, look: look)
        // NB: the observer that asked may be gone already; a watcher no one hears would run for ever.
        let wanted = listeners.withLock { listeners -> Bool in
            guard !listeners.continuations.isEmpty, listeners.watcher == nil else { return false }
            listeners.watcher = watcher
            return true
        }
        if wanted { watcher.start() }
    }
}

/// A thread that watches a store while someone observes it: it asks for a look when something in the store's
/// folders changed (after 50 ms of quiet, so one command's writes make one look) and every `interval` regardless.
/// It learns of a change from the store's change monitor (asked every 100 ms) while one answers, else from its own
/// inotify watches.
final class StoreWatcher: Sendable {
    private let root: URL
    private let interval: TimeInterval
    private let inotify: Bool
    /// The monitor's folder (a store's `.git/docket`) when the store's monitor is on.
    private let monitor: String?
    /// Asks for a look at the files changed (store paths), or at every file (nil).
    private let look: @Sendable (Set<String>?) -> Void
    private let stopped = Atomic<Bool>(false)

    init(
        root: URL, interval: TimeInterval, inotify: Bool, monitor: String?,
        look: @escaping @Sendable (Set<String>?) -> Void
    ) {
        (self.root, self.interval, self.inotify, self.monitor, self.look) = (root, interval, inotify, monitor, look)
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "docket.watch \(root.lastPathComponent)"
        thread.start()
    }

    func stop() { stopped.store(true, ordering: .relaxed) }

    private func run() {
        var watch: FolderWatch?
        var monitorAnswers = false
        var token: MonitorToken?
        var nextAsk = Date()
        var nextLook = Date().addingTimeInterval(interval)
        while !stopped.load(ordering: .relaxed) {
            var changed = false
            // The files inotify named, when it could name them all; else every file is looked at.
            var paths: Set<String>?
            if let monitor, Date() >= nextAsk {
                // The first answer is where later ones count from; a monitor that does not answer is asked again
                // every 2 s, while inotify stands in for it.
                switch ChangeMonitor.ask(in: monitor, since: token) {
                case let .changed(now, folders, subtrees)?:
                    changed = token != nil && !(folders.isEmpty && subtrees.isEmpty)
                    (token, monitorAnswers) = (now, true)
                case let .unknown(now)? where now.epoch == token?.epoch:
                    // It cannot say for its own token (folders it cannot watch): inotify stands in for it.
                    (token, monitorAnswers) = (now, false)
                case let .unknown(now)?:
                    changed = token != nil
                    (token, monitorAnswers) = (now, true)
                case nil:
                    (token, monitorAnswers) = (nil, false)
                }
                nextAsk = Date().addingTimeInterval(monitorAnswers ? 0.1 : 2)
            }
            if monitorAnswers {
                watch = nil
            } else if inotify, watch == nil {
                // NB: without inotify (too many folders, or none to be had) the look every `interval` is what is left.
                watch = try? FolderWatch(folders: [root.path])
            }
            let wait = min(monitorAnswers ? 0.1 : 0.2, max(0, nextLook.timeIntervalSinceNow))
            if changed {
                Thread.sleep(forTimeInterval: 0.05)
            } else if let watch, watch.isWatching {
                changed = watch.wait(timeout: wait)
                if changed {
                    while watch.wait(timeout: 0.05) {}
                    _ = watch.drain()
                    let prefix = root.path + "/"
                    paths = watch.takeChanged().map { Set($0.map { String($0.dropFirst(prefix.count)) }) }
                }
            } else {
                Thread.sleep(forTimeInterval: wait)
            }
            if changed || Date() >= nextLook {
                // NB: the look every `interval` reads every file's stat data; one inotify asked for, only those named.
                if Date() >= nextLook { paths = nil }
                nextLook = Date().addingTimeInterval(interval)
                if !stopped.load(ordering: .relaxed) { look(paths) }
            }
        }
    }
}
