import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Lock files that other programs (git) make by creating a file and holding
/// it open until they are done: such a file that no process has open was left
/// by a process that is gone.
public enum AbandonedLocks {
    /// Whether the lock file at `path` was left by a process that is gone: no
    /// process on this machine has it open (every process's open files were
    /// seen), or, when some could not be seen, it is older than an hour.
    public static func isAbandoned(_ path: String, now: Date = Date()) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return false }
        let (holders, complete) = processesHolding(dev: info.st_dev, inode: info.st_ino)
        if holders > 0 { return false }
        if complete { return age(info, now) >= settle }
        return age(info, now) > 3600
    }

    /// How long a lock file no process holds must have been still before it is judged abandoned.
    ///
    /// NB: a writer closes its lock file before it renames it into place (libgit2's filebuf, git's lockfile.c):
    /// for that moment no process holds it, and a lock removed then makes the writer's rename fail. Two stores
    /// pushing to one folder remote at once met it.
    public static let settle: TimeInterval = 0.5

    /// Removes each of these lock files that is abandoned, waiting until a fresh one has been still for `settle`
    /// (a live writer renames it by then); returns those that remain (held by a live process).
    public static func clear(_ paths: [String]) -> [String] {
        paths.filter { path in
            var info = stat()
            guard lstat(path, &info) == 0 else { return false }
            let wait = settle - age(info, Date())
            if wait > 0 {
                Thread.sleep(forTimeInterval: wait)
                guard lstat(path, &info) == 0 else { return false }
            }
            if isAbandoned(path) && unlink(path) == 0 { return false }
            return lstat(path, &info) == 0
        }
    }

    /// Seconds since the file was last modified.
    private static func age(_ info: stat, _ now: Date) -> TimeInterval {
        now.timeIntervalSince1970 - (Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
    }

    /// How many processes have the file open, and whether every process's files could be seen.
    private static func processesHolding(dev: UInt, inode: UInt) -> (Int, Bool) {
        guard let proc = opendir("/proc") else { return (0, false) }
        defer { closedir(proc) }
        var holders = 0
        var complete = true
        while let entry = readdir(proc) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(cString: $0.bindMemory(to: CChar.self).baseAddress!)
            }
            // NB: this process counts too: another thread's store (an app's) may hold the lock.
            guard let pid = Int32(name) else { continue }
            guard let fds = opendir("/proc/\(pid)/fd") else {
                if errno == EACCES { complete = false }
                continue
            }
            defer { closedir(fds) }
            while let fd = readdir(fds) {
                let fdName = withUnsafeBytes(of: fd.pointee.d_name) {
                    String(cString: $0.bindMemory(to: CChar.self).baseAddress!)
                }
                guard Int(fdName) != nil else { continue }
                var target = stat()
                if stat("/proc/\(pid)/fd/\(fdName)", &target) == 0, target.st_dev == dev, target.st_ino == inode {
                    holders += 1
                }
            }
        }
        return (holders, complete)
    }
}
