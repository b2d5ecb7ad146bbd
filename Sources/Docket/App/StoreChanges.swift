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
    /// (another process, a hand edit), seen through inotify on the store's folders as they are made, and by a look
    /// every `pollInterval` (for what inotify misses: another mount, a network file system). Each change names
    /// the items it added, edited and removed; a look that finds nothing new reports nothing.
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
            observers.startWatching(root: root, every: max(0.05, seconds), inotify: watching) { [weak self] in
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
        root: URL, every interval: TimeInterval, inotify: Bool, _ look: @escaping @Sendable () -> Void
    ) {
        let watcher = StoreWatcher(root: root, interval: interval, inotify: inotify, look: look)
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

/// A thread that watches a store's folders while someone observes it: it asks for a look when inotify says a file
/// changed (after 50 ms of quiet, so one command's writes make one look) and every `interval` regardless.
final class StoreWatcher: Sendable {
    private let root: URL
    private let interval: TimeInterval
    private let inotify: Bool
    private let look: @Sendable () -> Void
    private let stopped = Atomic<Bool>(false)

    init(root: URL, interval: TimeInterval, inotify: Bool, look: @escaping @Sendable () -> Void) {
        (self.root, self.interval, self.inotify, self.look) = (root, interval, inotify, look)
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "docket.watch \(root.lastPathComponent)"
        thread.start()
    }

    func stop() { stopped.store(true, ordering: .relaxed) }

    private func run() {
        // NB: without inotify (too many folders, or none to be had) the look every `interval` is what is left.
        let watch = inotify ? try? FolderWatch(folders: [root.path]) : nil
        var nextLook = Date().addingTimeInterval(interval)
        while !stopped.load(ordering: .relaxed) {
            let wait = min(0.2, max(0, nextLook.timeIntervalSinceNow))
            let changed: Bool
            if let watch, watch.isWatching {
                changed = watch.wait(timeout: wait)
            } else {
                Thread.sleep(forTimeInterval: wait)
                changed = false
            }
            if changed {
                while watch?.wait(timeout: 0.05) == true {}
                _ = watch?.drain()
            }
            if changed || Date() >= nextLook {
                nextLook = Date().addingTimeInterval(interval)
                if !stopped.load(ordering: .relaxed) { look() }
            }
        }
    }
}
