import DocketSystem
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Docket's temporary files in a repository's object folders (an unfinished pack and its index, an object being
/// written): each made under a name no other process has used, and removed once stale, so that no later process trips
/// over one that a killed process left.
///
/// NB: a pack was once written as `tmp_docket_<pid>.pack`, read-only, and made with `O_TRUNC`: a process killed while
/// writing it left a file that a later process given the same pid (in a container, docket gets the same pid each
/// run) could not open, and every large commit, folder fetch and push failed with "Permission denied".
enum TemporaryFiles {
    /// How long a temporary file no process of this name has touched is taken to be abandoned: a writer touches its
    /// file at least every megabyte, and an object's file lives for the moment it is written.
    static let staleAge: TimeInterval = 600

    /// The paths of the temporary files this process is writing: its own cleaning leaves them.
    private static let ours = Mutex<Set<String>>([])

    /// A new file, `<folder><prefix><pid>_<random><suffix>`, created only if no file has that name (`O_EXCL`),
    /// open for writing and reading back, read-only once closed (as git keeps packs); give it back with `release`.
    static func create(in folder: String, prefix: String, suffix: String) throws -> (fd: Int32, path: String) {
        while true {
            let path = folder + prefix + "\(getpid())_" + String(UInt64.random(in: 0...UInt64.max), radix: 16) + suffix
            let fd = Glibc.open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o444)
            if fd >= 0 {
                ours.withLock { _ = $0.insert(path) }
                return (fd, path)
            }
            if errno == EEXIST { continue }
            if errno == EINTR { continue }
            throw SystemError("open", path: path, code: errno)
        }
    }

    /// Forgets a file from `create` once it is renamed into place or removed.
    static func release(_ path: String) {
        ours.withLock { _ = $0.remove(path) }
    }

    /// Removes the stale files in `folder` whose names start with `prefix`: those this process is not writing, and
    /// that nobody touched for `staleAge` or, when `namingWriter` (`<prefix><pid>…`), whose writer cannot still be
    /// writing, as it is gone or is this process (which took over the pid of one that was killed).
    static func removeStale(in folder: String, prefix: String, namingWriter: Bool, now: Date = Date()) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for name in names where name.hasPrefix(prefix) {
            let path = folder + name
            guard !ours.withLock({ $0.contains(path) }) else { continue }
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            let touched = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
            let pid = namingWriter ? pid_t(name.dropFirst(prefix.count).prefix { $0.isNumber }) : nil
            let writerGone = pid.map { $0 == getpid() || !Spawn.isAlive($0) } ?? false
            if writerGone || now.timeIntervalSince1970 - touched > staleAge { unlink(path) }
        }
    }
}
