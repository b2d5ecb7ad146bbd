import DocketGit
import DocketModel
import Foundation

/// A store in a scratch folder of its own, with a bare remote beside it as its `origin`, made in one call: for an
/// app's tests.
///
/// ```swift
/// let scratch = try TemporaryStore.make(clock: { fixedDate })
/// defer { scratch.remove() }
/// try await scratch.store.addTodo(TodoItem(text: "Buy milk"))
/// let laptop = try await scratch.clone("laptop")   // another machine, syncing through the same remote
/// ```
public struct TemporaryStore: Sendable {
    /// The scratch folder, holding the store (`store/`), the remote (`remote.git`) and any clones.
    public let folder: URL
    /// The store.
    public let store: StoreQueue
    /// The bare repository the store pushes to and pulls from as `origin`; it holds the store's first commit.
    public let remote: URL

    /// Makes a scratch folder under the system's temporary folder (named `name` and a random id), a store in it
    /// with its first commit pushed to a bare remote beside it. `clock` and `ids` are the store's own (see
    /// `StoreQueue.init(_:clock:ids:)`).
    public static func make(
        _ name: String = "docket-test", clock: (@Sendable () -> Date)? = nil, ids: (@Sendable () -> UUID)? = nil
    ) throws -> TemporaryStore {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let remote = folder.appendingPathComponent("remote.git")
            _ = try StoreError.gate(writing: true) { try Repository.createBare(at: remote.path) }
            let store = try Store.create(at: folder.appendingPathComponent("store"))
            try store.addRemote("origin", url: remote)
            _ = try store.push(remote: "origin")
            return TemporaryStore(folder: folder, store: StoreQueue(store, clock: clock, ids: ids), remote: remote)
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
    }

    /// Clones the remote into `name` in the scratch folder: another machine's store, with its own clock and ids
    /// when given.
    public func clone(
        _ name: String, clock: (@Sendable () -> Date)? = nil, ids: (@Sendable () -> UUID)? = nil
    ) async throws -> StoreQueue {
        let cloned = try await StoreQueue.clone(url: remote, into: folder.appendingPathComponent(name))
        guard clock != nil || ids != nil else { return cloned }
        return StoreQueue(try Store.open(at: cloned.root), clock: clock, ids: ids)
    }

    /// Removes the scratch folder and all in it.
    public func remove() { try? FileManager.default.removeItem(at: folder) }
}
