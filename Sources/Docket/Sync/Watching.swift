import DocketSystem
import Foundation

extension Store {
    /// The lock a `sync --watch` holds while it runs, so two never watch one store.
    package var watchLockFile: String { gitdir + "docket/watch.lock" }

    /// Another process watching the store.
    public struct AlreadyWatched: Error, Sendable {
        /// Its pid, when the lock names it.
        public let pid: Int32?
    }

    /// Takes the watch lock for as long as the returned lock lives; throws
    /// `AlreadyWatched` when another process holds it.
    package func takeWatchLock() throws -> FileLock {
        try StoreError.gate(writing: true) { try AtomicFile.makeFolder(of: watchLockFile) }
        do {
            return try FileLock.acquire(watchLockFile, timeout: 0)
        } catch let busy as FileLock.Busy {
            throw AlreadyWatched(pid: busy.pid)
        } catch {
            throw StoreError.wrapping(error, writing: true)
        }
    }

    /// The pid of the process watching the store, if one is.
    package var watcher: Int32? {
        var info = stat()
        guard lstat(watchLockFile, &info) == 0 else { return nil }
        guard let lock = try? FileLock.attempt(watchLockFile) else {
            let text = (try? Folder.readFile(watchLockFile, limit: 64)).map { String(decoding: $0, as: UTF8.self) }
            return text.flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? -1
        }
        lock.release()
        return nil
    }

    /// Whether the store has changes that are not committed (what `status` lists).
    public var hasUncommittedChanges: Bool {
        get throws { !(try status().isEmpty) }
    }
}
