import Dispatch
import DocketGit
import DocketModel
import Foundation
import Synchronization

/// A store an app shares between tasks and threads.
///
/// Every call runs on one serial queue, so calls never overlap and none sees
/// another's half-written state (GRDB's `DatabaseQueue` is the model). The
/// `async` forms wait off Swift's cooperative threads, and a cancelled task
/// stops its transfer where git allows, leaving the store as a killed one
/// would: resumable, nothing lost. `Store` itself stays the synchronous,
/// single-thread handle for scripts and the command line.
///
/// ```swift
/// let store = try StoreQueue.open(at: folder)
/// try await store.addTodo(TodoItem(text: "Buy milk"))
/// let outcome = try await store.sync()
/// for await change in store.changes() { print(change) }
/// ```
public final class StoreQueue: @unchecked Sendable {
    // NB: @unchecked: `store` and `model` are touched only on `queue`; everything else is immutable or behind a lock.
    private let store: Store
    private let queue: DispatchQueue
    private let onQueue = DispatchSpecificKey<ObjectIdentifier>()
    let observers: StoreObservers
    /// What the store holds, item by item, once an observer or a reader asked; kept up to date on the queue.
    private var model: StoreModel?
    /// The last committed snapshot, for readers, who never wait for the queue.
    private let board = SnapshotBoard()
    /// Calls queued or running.
    private let inFlight = Atomic<Int>(0)
    /// The store's folder.
    public let root: URL
    /// The clock this handle's calls read "now" from (an edit's dates, a commit's); nil for the process's
    /// (`DocketClock`).
    public let clock: (@Sendable () -> Date)?
    /// The source of the ids this handle's calls make; nil for the process's (`DocketIDs`).
    public let ids: (@Sendable () -> UUID)?

    /// A handle on `store`, which it now owns: nothing else may use `store` afterwards. With `clock` and `ids`, its
    /// calls (and the bodies of `read` and `write`) read "now" and make ids from them instead of the process's, so
    /// two stores in one process (an app's tests, say) can each have their own.
    public init(
        _ store: sending Store, clock: (@Sendable () -> Date)? = nil, ids: (@Sendable () -> UUID)? = nil
    ) {
        self.store = store
        (self.clock, self.ids) = (clock, ids)
        root = store.root
        queue = DispatchQueue(label: "docket.store \(store.root.path)")
        observers = StoreObservers()
        queue.setSpecific(key: onQueue, value: ObjectIdentifier(self))
        StoreQueue.handles.add(self)
    }

    deinit { StoreQueue.handles.remove(self) }

    /// Opens the store in `folder` (`Store.open(at:)`).
    public static func open(at folder: URL) throws -> StoreQueue { StoreQueue(try Store.open(at: folder)) }

    /// Makes `folder` a store, or opens the one there (`Store.create(at:)`).
    public static func create(at folder: URL) throws -> StoreQueue { StoreQueue(try Store.create(at: folder)) }

    /// Clones the store at `url` (a folder, as a file URL, or a remote's address) into `folder`, as the String form
    /// does.
    public static func clone(url: URL, into folder: URL, options: TransferOptions = .fromEnvironment())
        async throws -> StoreQueue
    {
        try await clone(url: Store.address(of: url), into: folder, options: options)
    }

    /// Clones `url` into `folder` (`Store.clone(url:into:options:)`), off the cooperative threads; a cancelled task
    /// stops the transfer, and the next clone into `folder` starts again.
    public static func clone(url: String, into folder: URL, options: TransferOptions = .fromEnvironment())
        async throws -> StoreQueue
    {
        let cancelled = CancelFlag()
        let options = options.stopping(at: cancelled)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                DispatchQueue.global().async {
                    continuation.resume(
                        with: Result { try StoreQueue(Store.clone(url: url, into: folder, options: options)) }
                            .mapError { cancelled.isSet() ? CancellationError() : $0 })
                }
            }
        } onCancel: {
            cancelled.set()
        }
    }

    // MARK: Any work on the store

    /// Runs `body` with the store on the queue and waits for it. Not reentrant: calling it from inside `body` traps.
    public func read<T>(_ body: (Store) throws -> T) throws -> T {
        precondition(DispatchQueue.getSpecific(key: onQueue) != ObjectIdentifier(self), "StoreQueue is not reentrant")
        inFlight.add(1, ordering: .relaxed)
        defer { inFlight.subtract(1, ordering: .relaxed) }
        return try queue.sync { try scoped { try body(store) } }
    }

    /// Runs `body`, which changes the store, on the queue and waits for it, all or nothing: when `body` throws, what
    /// it wrote through the store's edits is taken back before the error reaches the caller. The lock its first edit
    /// takes is held to the end, so no other process edits between `body`'s calls. Observers then hear what changed.
    public func write<T>(_ body: (Store) throws -> T) throws -> T {
        precondition(DispatchQueue.getSpecific(key: onQueue) != ObjectIdentifier(self), "StoreQueue is not reentrant")
        inFlight.add(1, ordering: .relaxed)
        defer { inFlight.subtract(1, ordering: .relaxed) }
        return try queue.sync { try scoped { try perform(.edited, body) } }
    }

    /// Runs `body` with the store on the queue without blocking the calling task's thread.
    public func read<T: Sendable>(_ body: @escaping @Sendable (Store) throws -> T) async throws -> T {
        try await run(kind: nil) { store, _ in try body(store) }
    }

    /// Runs `body`, which changes the store, on the queue without blocking the calling task's thread; all or
    /// nothing, as the synchronous form is. A task cancelled before `body` starts throws `CancellationError`, and
    /// nothing is written.
    public func write<T: Sendable>(_ body: @escaping @Sendable (Store) throws -> T) async throws -> T {
        try await run(kind: .edited) { store, _ in try body(store) }
    }

    /// Runs `body` on the queue; `kind` (when the body changes the store) is what observers hear afterwards.
    /// `body` gets a flag that is set when the task is cancelled, for transfers to stop at; a task cancelled before
    /// its turn comes throws `CancellationError` without running `body`.
    private func run<T: Sendable>(
        kind: StoreChange.Kind?, _ body: @escaping @Sendable (Store, CancelFlag) throws -> T
    ) async throws -> T {
        let cancelled = CancelFlag()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                inFlight.add(1, ordering: .relaxed)
                queue.async { [self] in
                    defer { inFlight.subtract(1, ordering: .relaxed) }
                    guard !cancelled.isSet() else { return continuation.resume(throwing: CancellationError()) }
                    let result = Result { try scoped { try perform(kind) { try body($0, cancelled) } } }
                    continuation.resume(with: result.mapError { cancelled.isSet() ? CancellationError() : $0 })
                }
            }
        } onCancel: {
            cancelled.set()
        }
    }

    /// Runs `body` with this handle's clock and id source, when it has them.
    private func scoped<T>(_ body: () throws -> T) rethrows -> T {
        guard clock != nil || ids != nil else { return try body() }
        return try DocketClock.$scoped.withValue(clock) { try DocketIDs.$scoped.withValue(ids) { try body() } }
    }

    /// On the queue: runs `body` as a call of `kind`. An edit is all or nothing, under the store's lock; once the
    /// model of the store is kept (an observer or a reader asked), it takes in what the call wrote — an edit's
    /// writes alone, a commit's or a pull's after a look at the files — and observers and the other handles on the
    /// store hear of it. A change made elsewhere before a commit or pull is told apart first, as seen.
    private func perform<T>(_ kind: StoreChange.Kind?, _ body: (Store) throws -> T) throws -> T {
        guard let kind else { return try body(store) }
        let log = WriteLog()
        store.writeLog = log
        defer { store.writeLog = nil }
        if kind != .edited, model != nil { look(as: .seen) }
        let result: Result<T, Error>
        if kind == .edited {
            // The lock the first edit takes is kept to the end, so no other process edits between the body's calls.
            store.keepsLock = true
            result = Result {
                do {
                    return try body(store)
                } catch {
                    // NB: should taking back fail, what stays written is told as written.
                    if (try? store.withLock { try store.takeBack(log) }) != nil { log.entries = [] }
                    throw error
                }
            }
            store.releaseKeptLock()
        } else {
            result = Result { try body(store) }
        }
        var deltas = log.deltas
        if let model {
            var items = model.apply(deltas)
            if kind != .edited, let found = try? model.look(at: store) {
                items += model.apply(found)
                deltas += found
            }
            tell(StoreChange(kind: kind, items: items), deltas: deltas, model: model)
        }
        // NB: without a model of its own, a handle still knows what it wrote; the others find a pull by looking.
        if !deltas.isEmpty {
            let told = deltas
            for other in StoreQueue.handles.others(than: self) { other.enqueue { _ in other.hear(told) } }
        }
        return try result.get()
    }

    /// On the queue: looks at the store's files and tells what changed since the model last knew, as `kind`.
    /// With `only`, it looks at those files (store paths) alone.
    func look(as kind: StoreChange.Kind, only: Set<String>? = nil) {
        guard let model, let deltas = try? model.look(at: store, only: only) else { return }
        tell(StoreChange(kind: kind, items: model.apply(deltas)), deltas: deltas, model: model)
    }

    /// On the queue: hands `deltas` (which `model` has taken in) to readers, and `change` (when something changed) to
    /// observers.
    private func tell(_ change: StoreChange, deltas: [StoreModel.Delta], model: StoreModel) {
        guard !deltas.isEmpty else { return }
        board.publish(deltas, problems: model.problemList) { model.snapshot }
        guard !change.isEmpty else { return }
        observers.tell(change)
    }

    /// On the queue: takes in what another handle on the store wrote.
    private func hear(_ deltas: [StoreModel.Delta]) {
        guard let model else { return }
        let change = StoreChange(kind: .otherHandle, items: model.apply(deltas))
        board.publish(deltas, problems: model.problemList) { model.snapshot }
        if !change.isEmpty { observers.tell(change) }
    }

    /// On the queue: starts keeping the model of the store, when none is kept yet; else, with `refresh`, looks at
    /// the files for changes made elsewhere (heard as seen).
    func startModel(refresh: Bool) throws {
        if model == nil {
            let started = try StoreModel(reading: store)
            model = started
            board.start(started.snapshot)
        } else if refresh {
            look(as: .seen)
        }
    }

    /// Runs `body` on the queue, later; for work no caller waits on (observers' looks).
    func enqueue(_ body: @escaping @Sendable (Store) -> Void) {
        inFlight.add(1, ordering: .relaxed)
        queue.async { [self] in
            defer { inFlight.subtract(1, ordering: .relaxed) }
            body(store)
        }
    }

    // MARK: Reading without waiting

    /// The store as last committed to its files: every item, its order keys, and the files that do not read.
    ///
    /// A reader never waits for a write, a commit, a pull or a sync: while one runs, it gets the snapshot as it
    /// was before that call began — never part of the call (a `write {}` of three edits is seen when it returns).
    /// When the queue is idle and no `changes()` stream watches the store, the snapshot is brought up to date with
    /// the files first (a look that reads only the files whose stat data changed); while a stream watches, the
    /// snapshot is the one the stream's looks keep. The first snapshot of a handle loads the whole store, on the queue,
    /// as `Store.load()` does (unchanged files' items from the caches of decoded items).
    public func snapshot() async throws -> StoreSnapshot {
        let idle = inFlight.load(ordering: .relaxed) == 0
        if let current = board.current(), !idle || observers.isObserved { return current }
        return try await run(kind: nil) { [self] _, _ in
            try startModel(refresh: true)
            return board.current() ?? StoreSnapshot(state: AppState(), order: Order(), problems: [])
        }
    }

    /// The entries `filter` shows, in its order, as `docket list` shows them (with `--ready`, `--blocked`, tags,
    /// due windows, sorting and a limit: `EntryFilter`), from `snapshot()`: never waiting for a write or a sync.
    public func entries(
        _ filter: EntryFilter, now: Date = DocketClock.now, calendar: Calendar = DocketClock.calendar
    ) async throws -> (entries: [Entry], problems: [StoreProblem], blocking: Blocking) {
        let snapshot = try await snapshot()
        let (entries, blocking) = filter.entries(
            todos: snapshot.state.todos, projects: snapshot.state.projects, now: now, calendar: calendar)
        return (entries, snapshot.problems, blocking)
    }

    // MARK: Reading and editing

    /// Every item, as `Store.load()` reads them, on the queue (after every call queued before it); `snapshot()`
    /// answers without waiting.
    public func load() async throws -> StoreSnapshot { try await read { try $0.load() } }

    /// Adds a todo (`Store.addTodo`).
    public func addTodo(_ todo: TodoItem) async throws { try await write { try $0.addTodo(todo) } }

    /// Changes a todo (`Store.updateTodo`).
    @discardableResult
    public func updateTodo(_ id: UUID, _ change: @escaping @Sendable (TodoItem) throws -> TodoItem) async throws
        -> Changed<TodoItem>
    {
        try await write { try $0.updateTodo(id, change) }
    }

    /// Removes a todo, leaving a tombstone (`Store.removeTodo`).
    @discardableResult
    public func removeTodo(_ id: UUID) async throws -> TodoItem { try await write { try $0.removeTodo(id) } }

    /// Adds a project (`Store.addProject`).
    public func addProject(_ project: Project) async throws { try await write { try $0.addProject(project) } }

    /// Adds a task to a project (`Store.addTask`).
    public func addTask(_ task: ProjectTask, to project: UUID) async throws {
        try await write { try $0.addTask(task, to: project) }
    }

    /// Changes a task (`Store.updateTask`).
    public func updateTask(
        _ id: UUID, in project: UUID, _ change: @escaping @Sendable (ProjectTask) throws -> ProjectTask
    ) async throws {
        try await write { _ = try $0.updateTask(id, in: project, change) }
    }

    /// Applies `change` to the whole state and writes what changed (`Store.edit`).
    @discardableResult
    public func edit(_ change: @escaping @Sendable (AppState) throws -> AppState) async throws -> AppState {
        try await write { try $0.edit(change) }
    }

    /// Brings a batch read from another tool (`Taskwarrior.read`, `TodoTxt.read`, a calendar) in as one commit
    /// (`Store.importBatch`), off the cooperative threads; observers hear of it as of a commit.
    @discardableResult
    public func importBatch(
        _ batch: ExchangeBatch, from source: String, skippingBad: Bool = false, tool: String? = nil
    ) async throws -> ImportOutcome {
        try await run(kind: .committed) { store, _ in
            try store.importBatch(batch, from: source, skippingBad: skippingBad, tool: tool)
        }
    }

    // MARK: Commits and remotes

    /// Commits what changed (`Store.commit(message:)`).
    @discardableResult
    public func commit(message: String? = nil) async throws -> CommitOutcome {
        try await run(kind: .committed) { store, _ in try store.commit(message: message) }
    }

    /// Fetches and merges (`Store.pull`); cancelling the task stops the fetch.
    @discardableResult
    public func pull(remote: String? = nil, options: TransferOptions = .fromEnvironment()) async throws -> Pulled {
        try await run(kind: .pulled) { store, cancelled in
            try store.pull(remote: remote, options: options.stopping(at: cancelled))
        }
    }

    /// Sends the branch (`Store.push`); cancelling the task stops the push before the remote's branch moves.
    @discardableResult
    public func push(remote: String? = nil, options: TransferOptions = .fromEnvironment()) async throws -> Pushed {
        try await run(kind: nil) { store, cancelled in
            try store.push(remote: remote, options: options.stopping(at: cancelled))
        }
    }

    /// Commits, pulls and pushes (`Store.sync`); cancelling the task stops the transfer under way. `onCommit` hears
    /// of the commit of local changes as soon as it is made.
    @discardableResult
    public func sync(
        remote: String? = nil, options: TransferOptions = .fromEnvironment(),
        onCommit: @escaping @Sendable (CommitOutcome) -> Void = { _ in }
    ) async throws -> SyncOutcome {
        try await run(kind: .pulled) { store, cancelled in
            try store.sync(remote: remote, options: options.stopping(at: cancelled), onCommit: onCommit)
        }
    }
}

/// Set once, from any thread: a task's cancellation, as a transfer asks after it.
final class CancelFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    func set() { flag.store(true, ordering: .relaxed) }
    @Sendable func isSet() -> Bool { flag.load(ordering: .relaxed) }
}

extension TransferOptions {
    /// These options, stopping when `flag` is set as well as when they said to.
    func stopping(at flag: CancelFlag) -> TransferOptions {
        var options = self
        let before = isCancelled
        options.isCancelled = { flag.isSet() || before?() == true }
        return options
    }
}
