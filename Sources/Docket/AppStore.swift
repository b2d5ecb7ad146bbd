import DocketModel

/// Holds the current state, applies changes to it, persists each new state and
/// tells its subscribers.
public final class AppStore {
    /// The current state.
    public private(set) var state: AppState

    private var subscribers: [AppStoreSubscriber]
    private let persister: AppPersisting

    /// A store whose state is loaded from the persister.
    public init(persister: AppPersisting) {
        self.state = persister.loadAppState()
        self.subscribers = []
        self.persister = persister
    }

    /// Applies a change to the state.
    public func change(_ c: AppState.Change) {
        update(to: state.alter(by: c))
    }

    /// Applies changes to the state, in order, as one new state.
    public func change(_ changes: [AppState.Change]) {
        update(to: state.alter(by: changes))
    }

    /// Takes the state the persister holds now, saved by someone else (another handle, a pull, another process),
    /// and tells the subscribers; nothing is persisted. An app calls it for each `StoreQueue.changes()` element.
    public func reload() {
        state = persister.loadAppState()
        notify()
    }

    private func update(to new: AppState) {
        state = new
        persister.persist(appState: state)
        notify()
    }

    /// Tells the subscriber about every new state from now on.
    public func subscribe(subscriber s: AppStoreSubscriber) {
        subscribers.append(s)
    }

    private func notify() {
        subscribers.forEach { $0.updated(store: self) }
    }
}

/// Is told when an `AppStore`'s state changes.
public protocol AppStoreSubscriber {
    /// The store's state has changed.
    func updated(store: AppStore)
}

/// Loads and saves an `AppState`.
public protocol AppPersisting {
    /// The saved state, or an empty one when nothing is saved.
    func loadAppState() -> AppState
    /// Saves the state.
    func persist(appState: AppState)
    /// Removes what was saved.
    func destroy()
}
