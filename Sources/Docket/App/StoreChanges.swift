import Dispatch
import DocketModel
import DocketSystem
import Foundation
import Synchronization

/// What changed in a store, as `StoreQueue.changes()` reports it: the items
/// (todos, projects and tasks, by id) added, edited and removed, and how.
public struct StoreChange: Sendable, Equatable, CustomStringConvertible {
    /// How the change came.
    public enum Kind: Sendable, Equatable {
        /// An edit through this handle.
        case edited
        /// A commit through this handle (it changes items only when it took in hand edits).
        case committed
        /// A pull or sync through this handle: other machines' changes merged in.
        case pulled
        /// A change made elsewhere: another process (another docket, `sync --watch`, git), another handle, or a
        /// hand edit of the files.
        case seen
    }

    /// How it came.
    public let kind: Kind
    /// Items that are new.
    public let added: [UUID]
    /// Items whose values changed (a project whose title changed; a task is an item of its own).
    public let edited: [UUID]
    /// Items that are gone.
    public let removed: [UUID]

    /// Whether nothing changed.
    public var isEmpty: Bool { added.isEmpty && edited.isEmpty && removed.isEmpty }

    public var description: String {
        let kinds: [Kind: String] = [
            .edited: "edited here", .committed: "committed here", .pulled: "pulled",
            .seen: "changed elsewhere",
        ]
        let counts = [("added", added.count), ("edited", edited.count), ("removed", removed.count)]
            .filter { $0.1 > 0 }.map { "\($0.1) \($0.0)" }
        return "\(kinds[kind] ?? "changed"): " + (counts.isEmpty ? "no item changed" : counts.joined(separator: ", "))
    }

    /// What changed from `old` to `new`.
    static func between(_ old: AppState, _ new: AppState, kind: Kind) -> StoreChange {
        func items(_ state: AppState) -> [UUID: Item] {
            var items: [UUID: Item] = [:]
            for todo in state.todos { items[todo.id] = .todo(todo) }
            for project in state.projects {
                items[project.id] = .project(title: project.title, alterDate: project.alterDate)
                for task in project.tasks { items[task.id] = .task(task) }
            }
            return items
        }
        let before = items(old)
        let after = items(new)
        let added = after.keys.filter { before[$0] == nil }
        let removed = before.keys.filter { after[$0] == nil }
        let edited = after.compactMap { id, item in before[id].map { $0 == item ? nil : id } ?? nil }
        return StoreChange(
            kind: kind, added: added.sorted(by: ids), edited: edited.sorted(by: ids),
            removed: removed.sorted(by: ids))
    }

    private enum Item: Equatable {
        case todo(TodoItem)
        case project(title: String, alterDate: Date?)
        case task(ProjectTask)
    }
    private static func ids(_ a: UUID, _ b: UUID) -> Bool { a.uuidString < b.uuidString }
}

extension StoreQueue {
    /// The store's changes as they happen: this handle's own edits, commits and pulls, and changes made elsewhere
    /// (another process, a hand edit), seen as they are made — from the store's change monitor when it is on
    /// (`docket monitor on`) and answers, else through inotify on the store's folders — and by a look every
    /// `pollInterval` (for what neither sees: another mount, a network file system). Each change names the items it
    /// added, edited and removed; a look that finds nothing new reports nothing.
    ///
    /// The stream ends when the task iterating it is cancelled or the stream is dropped. With `watching` false, only
    /// the look every `pollInterval` sees changes made elsewhere.
    public func changes(pollInterval: Duration = .seconds(2), watching: Bool = true) -> AsyncStream<StoreChange> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: StoreChange.self, bufferingPolicy: .bufferingNewest(256))
        let id = UUID()
        let started = observers.add(id, continuation)
        // The first observer sets what later changes are measured against.
        enqueue { [observers] store in observers.takeBaseline(from: store, afresh: started) }
        continuation.onTermination = { [observers] _ in observers.remove(id) }
        if started {
            let seconds = Double(pollInterval.components.seconds) + Double(pollInterval.components.attoseconds) / 1e18
            // NB: a store whose monitor is on is watched by the monitor already; the stream asks it.
            let monitor = watching ? (try? read { try $0.monitorFolderIfOn() }) ?? nil : nil
            observers.startWatching(
                root: root, every: max(0.05, seconds), inotify: watching, monitor: monitor
            ) { [weak self] in
                guard let self else { return }
                self.enqueue { [observers = self.observers] store in observers.noteChange(in: store, kind: .seen) }
            }
        }
        return stream
    }
}

/// The observers of one `StoreQueue`, and what they last saw. Its state is read and changed on the queue
/// (`noteChange`, `takeBaseline`) or under its own lock (the set of observers, the watcher).
final class StoreObservers: Sendable {
    private struct Listeners {
        var continuations: [UUID: AsyncStream<StoreChange>.Continuation] = [:]
        var watcher: StoreWatcher?
    }
    private let listeners = Locked(Listeners())
    /// The state observers last heard of; nil while no one listens.
    private let last = Locked<AppState?>(nil)

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
        if listeners.withLock({ $0.continuations.isEmpty }) { last.withLock { $0 = nil } }
    }

    var isObserved: Bool { listeners.withLock { !$0.continuations.isEmpty } }

    func startWatching(
        root: URL, every interval: TimeInterval, inotify: Bool, monitor: String?,
        _ look: @escaping @Sendable () -> Void
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

    /// On the queue: what the store holds now, as the state later changes are measured against; `afresh` for the
    /// first observer after none, whose baseline a look that ran while the last one left may have left stale.
    func takeBaseline(from store: Store, afresh: Bool) {
        guard isObserved, afresh || last.withLock({ $0 == nil }) else { return }
        let state = try? store.load().state
        last.withLock { $0 = state }
    }

    /// On the queue: reads the store and tells every observer what changed since they last heard.
    func noteChange(in store: Store, kind: StoreChange.Kind) {
        guard isObserved else { return }
        // NB: a store another process is writing may not read whole for a moment; the next look sees it.
        guard let snapshot = try? store.load(), snapshot.problems.isEmpty || kind != .seen else { return }
        let previous = last.withLock { last -> AppState? in
            defer { last = snapshot.state }
            return last
        }
        guard let previous else { return }
        let change = StoreChange.between(previous, snapshot.state, kind: kind)
        guard !change.isEmpty || kind == .pulled || kind == .committed else { return }
        for continuation in listeners.withLock({ Array($0.continuations.values) }) { continuation.yield(change) }
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
    private let look: @Sendable () -> Void
    private let stopped = Atomic<Bool>(false)

    init(
        root: URL, interval: TimeInterval, inotify: Bool, monitor: String?, look: @escaping @Sendable () -> Void
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
                }
            } else {
                Thread.sleep(forTimeInterval: wait)
            }
            if changed || Date() >= nextLook {
                nextLook = Date().addingTimeInterval(interval)
                if !stopped.load(ordering: .relaxed) { look() }
            }
        }
    }
}
