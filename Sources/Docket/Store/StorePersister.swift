import DocketModel
import Foundation

/// Persists an `AppState` into a store, for `AppStore`: loading reads every
/// item file, and each new state writes only the items that changed since the
/// last state it loaded or wrote. Nothing is committed; `Store.commit` does that.
public final class StorePersister: AppPersisting {
    /// The store written to.
    public let store: Store
    /// The files the last load skipped, and the last write's failure, if any.
    public private(set) var problems: [StoreProblem] = []
    /// Why the last persist failed, if it did.
    public private(set) var lastError: StoreError?
    private var last = AppState()

    /// A persister of the store.
    public init(store: Store) {
        self.store = store
    }

    public func loadAppState() -> AppState {
        do {
            let snapshot = try store.load()
            problems = snapshot.problems
            last = snapshot.state
            return snapshot.state
        } catch {
            lastError = error as? StoreError ?? .io(path: store.root.path, reason: "\(error)")
            return AppState()
        }
    }

    public func persist(appState: AppState) {
        do {
            try store.withLock { try store.write(from: last, to: appState) }
            last = appState
            lastError = nil
        } catch {
            lastError = error as? StoreError ?? .io(path: store.root.path, reason: "\(error)")
        }
    }

    /// Removes every item file and records nothing: the store's folders are emptied.
    public func destroy() {
        for folder in ["todos", "projects", ".docket/removed"] {
            try? FileManager.default.removeItem(at: store.root.appendingPathComponent(folder))
        }
        last = AppState()
    }
}
