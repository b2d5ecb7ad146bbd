import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A lock file held by a live process through the kernel (`flock`), so a
/// process that ends, however it ends, lets the lock go at once: a lock file
/// left behind by a killed process is free, and two processes never both
/// hold it. The holder's pid is written into the file for messages.
///
/// NB: `@unchecked Sendable`: a lock is handed from task to task (a service takes it, then holds it while it
/// runs) but used by one holder at a time; its one mutation is `release`.
public final class FileLock: @unchecked Sendable {
    /// The lock file.
    public let path: String
    private var fd: Int32

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    /// Another process holds the lock.
    public struct Busy: Error, Equatable, Sendable {
        /// The lock file.
        public let path: String
        /// The holder's pid, when the file names one.
        public let pid: Int32?
    }

    /// Takes the lock at `path`, waiting up to `timeout` seconds while another
    /// process holds it; throws `Busy` when it is still held then.
    public static func acquire(_ path: String, timeout: TimeInterval) throws -> FileLock {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let fd = try systemCall("open", path: path) { open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644) }
            if flock(fd, LOCK_EX | LOCK_NB) == 0 {
                // NB: the holder before may have removed the file after this
                // one opened it; a lock on a removed file locks nothing.
                var held = stat()
                var named = stat()
                if fstat(fd, &held) == 0, lstat(path, &named) == 0, held.st_ino == named.st_ino,
                    held.st_dev == named.st_dev
                {
                    let lock = FileLock(path: path, fd: fd)
                    lock.writeOwner()
                    return lock
                }
                close(fd)
                continue
            }
            let reason = errno
            let holder = FileLock.holder(fd)
            close(fd)
            guard reason == EWOULDBLOCK || reason == EINTR else { throw SystemError("flock", path: path, code: reason) }
            if Date() >= deadline { throw Busy(path: path, pid: holder) }
            usleep(20_000)
        }
    }

    /// Takes the lock only if no other process holds it; nil when one does.
    public static func attempt(_ path: String) throws -> FileLock? {
        do {
            return try acquire(path, timeout: 0)
        } catch is Busy {
            return nil
        }
    }

    /// Whether a live process holds the lock at `path` (without taking it).
    public static func isHeld(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return false
        }
        return errno == EWOULDBLOCK
    }

    /// Lets the lock go and removes the file.
    public func release() {
        guard fd >= 0 else { return }
        unlink(path)
        close(fd)
        fd = -1
    }

    deinit { release() }

    private func writeOwner() {
        let text = "\(getpid())\n"
        _ = ftruncate(fd, 0)
        _ = text.withCString { pwrite(fd, $0, strlen($0), 0) }
    }

    private static func holder(_ fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = pread(fd, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
