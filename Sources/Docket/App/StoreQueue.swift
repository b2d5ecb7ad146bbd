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
    // NB: @unchecked: `store` is touched only on `queue`; everything else is immutable or behind a lock.
    private let store: Store
    private let queue: DispatchQueue
    private let onQueue = DispatchSpecificKey<ObjectIdentifier>()
    let observers: StoreObservers
    /// The store's folder.
    public let root: URL

    /// A handle on `store`, which it now owns: nothing else may use `store` afterwards.
    public init(_ store: Store) {
        self.store = store
        root = store.root
        queue = DispatchQueue(label: "docket.store \(store.root.path)")
        observers = StoreObservers()
        queue.setSpecific(key: onQueue, value: ObjectIdentifier(self))
    }

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
        return try queue.sync { try body(store) }
    }

    /// Runs `body`, which changes the store, on the queue and waits for it; observers then hear what changed.
    public func write<T>(_ body: (Store) throws -> T) throws -> T {
        precondition(DispatchQueue.getSpecific(key: onQueue) != ObjectIdentifier(self), "StoreQueue is not reentrant")
        return try queue.sync {
            // NB: observers hear of it after the caller has its result: their look reads the whole store.
            defer { enqueue { [observers] store in observers.noteChange(in: store, kind: .edited) } }
            return try body(store)
        }
    }

    /// Runs `body` with the store on the queue without blocking the calling task's thread.
    public func read<T: Sendable>(_ body: @escaping @Sendable (Store) throws -> T) async throws -> T {
        try await run(kind: nil) { store, _ in try body(store) }
    }

    /// Runs `body`, which changes the store, on the queue without blocking the calling task's thread.
    public func write<T: Sendable>(_ body: @escaping @Sendable (Store) throws -> T) async throws -> T {
        try await run(kind: .edited) { store, _ in try body(store) }
    }

    /// Runs `body` on the queue; `kind` (when the body changes the store) is what observers hear afterwards.
    /// `body` gets a flag that is set when the task is cancelled, for transfers to stop at.
    private func run<T: Sendable>(
        kind: StoreChange.Kind?, _ body: @escaping @Sendable (Store, CancelFlag) throws -> T
    ) async throws -> T {
        let cancelled = CancelFlag()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                queue.async { [self] in
                    let result = Result { try body(store, cancelled) }
                    continuation.resume(with: result.mapError { cancelled.isSet() ? CancellationError() : $0 })
                    // NB: after the caller has its result (the look reads the whole store), still before the
                    // queue's next call.
                    if let kind { observers.noteChange(in: store, kind: kind) }
                }
            }
        } onCancel: {
            cancelled.set()
        }
    }

    /// Runs `body` on the queue, later; for work no caller waits on (observers' looks).
    func enqueue(_ body: @escaping @Sendable (Store) -> Void) {
        queue.async { [self] in body(store) }
    }

    // MARK: Reading and editing

    /// Every item, as `Store.load()` reads them.
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
