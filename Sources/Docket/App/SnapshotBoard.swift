import DocketModel
import Foundation

/// The last committed snapshot of a store, for readers on any thread: the queue posts what each call changed (at the
/// cost of what changed), and the first reader after a change builds the snapshot from the last one and the changes
/// since, off the queue.
final class SnapshotBoard: Sendable {
    private struct Board {
        /// The last snapshot built; nil until the store's model is kept.
        var base: StoreSnapshot?
        /// What changed since `base`, in order.
        var pending: [StoreModel.Delta] = []
        var problems: [StoreProblem] = []
        /// Counts the bases, so a reader's build replaces only the base it started from.
        var generation = 0
    }

    /// Past this many changes the queue builds the snapshot itself, so that a board no one reads stays small.
    static let mostPending = 4096

    private let board = Locked(Board())

    /// Starts the board at `snapshot`.
    func start(_ snapshot: StoreSnapshot) {
        board.withLock {
            $0 = Board(base: snapshot, pending: [], problems: snapshot.problems, generation: $0.generation + 1)
        }
    }

    /// Posts `deltas` and the problems the store has now; `whole` builds the snapshot with them (on the queue).
    func publish(_ deltas: [StoreModel.Delta], problems: [StoreProblem], whole: () -> StoreSnapshot) {
        let full = board.withLock { board -> Bool in
            guard board.base != nil else { return false }
            board.pending += deltas
            board.problems = problems
            return board.pending.count > SnapshotBoard.mostPending
        }
        guard full else { return }
        start(whole())
    }

    /// The last committed snapshot, or nil when the store's model is not kept yet.
    func current() -> StoreSnapshot? {
        let (base, pending, problems, generation) = board.withLock { ($0.base, $0.pending, $0.problems, $0.generation) }
        guard let base else { return nil }
        guard !pending.isEmpty else {
            return StoreSnapshot(state: base.state, order: base.order, problems: problems)
        }
        let built = SnapshotBoard.snapshot(base, with: pending)
        let snapshot = StoreSnapshot(state: built.state, order: built.order, problems: problems)
        board.withLock { board in
            guard board.generation == generation, board.pending.count >= pending.count else { return }
            board.base = snapshot
            board.pending.removeFirst(pending.count)
            board.generation += 1
        }
        return snapshot
    }
}

extension SnapshotBoard {
    /// `base` with `deltas` in. NB: when only todos changed (most writes), the projects, tombstones and order keys
    /// are taken as they are and the todos in one pass; else the whole snapshot is built anew from a model of it.
    fileprivate static func snapshot(_ base: StoreSnapshot, with deltas: [StoreModel.Delta]) -> StoreSnapshot {
        var latest: [UUID: TodoItem?] = [:]
        for delta in deltas {
            guard case let .todo(id, todo) = delta else {
                let model = StoreModel(base)
                _ = model.apply(deltas)
                return model.snapshot
            }
            latest.updateValue(todo, forKey: id)
        }
        let kept = base.state.todos.filter { latest[$0.id] == nil }
        let state = AppState(
            todos: kept + latest.values.compactMap { $0 }, projects: base.state.projects, removed: base.state.removed)
        return StoreSnapshot(state: state, order: base.order, problems: base.problems)
    }
}

extension StoreQueue {
    /// The handles open in this process, by store folder: a change through one is told to the others.
    static let handles = Handles()

    final class Handles: Sendable {
        private struct Weak {
            weak var queue: StoreQueue?
        }
        private let byRoot = Locked<[String: [Weak]]>([:])

        func add(_ queue: StoreQueue) {
            byRoot.withLock { $0[queue.root.path, default: []].append(Weak(queue: queue)) }
        }

        func remove(_ queue: StoreQueue) {
            byRoot.withLock { byRoot in
                let left = byRoot[queue.root.path]?.filter { $0.queue != nil && $0.queue !== queue } ?? []
                byRoot[queue.root.path] = left.isEmpty ? nil : left
            }
        }

        /// The other handles on `queue`'s store.
        func others(than queue: StoreQueue) -> [StoreQueue] {
            byRoot.withLock { $0[queue.root.path]?.compactMap(\.queue).filter { $0 !== queue } ?? [] }
        }
    }
}
