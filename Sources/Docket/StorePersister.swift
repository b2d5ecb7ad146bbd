import DocketModel
import Foundation

/// Persists an `AppState` into a store, for `AppStore`: loading reads every
/// item file, and each new state writes only the items that changed since the
/// last state it loaded or wrote. Nothing is committed; `Store.commit` does that.
public final class StorePersister: AppPersisting {
    /// The store written to.
    public let store: Store
    /// The files the last load skipped, each with why.
    public private(set) var problems: [StoreProblem] = []
    /// Why the last persist failed, if it did.
    public private(set) var lastError: StoreError?
    /// The state last loaded or written, with its order keys: what the next write starts from.
    private var last = StoreSnapshot(state: AppState(), order: Order(), problems: [])

    /// A persister of the store.
    public init(store: Store) {
        self.store = store
    }

    public func loadAppState() -> AppState {
        do {
            last = try store.load()
            problems = last.problems
            return last.state
        } catch {
            lastError = error as? StoreError ?? .io(.read(path: store.root.path, reason: "\(error)"))
            return AppState()
        }
    }

    public func persist(appState: AppState) {
        do {
            last = try store.withLockFinishingUpdate { try store.write(from: last, to: appState) }
            lastError = nil
        } catch {
            lastError = error as? StoreError ?? .io(.write(path: store.root.path, reason: "\(error)"))
        }
    }

    /// Removes every item file and records nothing: the store's folders are emptied.
    public func destroy() {
        for folder in [StoreLayout.todos, StoreLayout.projects, StoreLayout.removed] {
            try? FileManager.default.removeItem(at: store.root.appendingPathComponent(folder))
        }
        last = StoreSnapshot(state: AppState(), order: Order(), problems: [])
    }
}
