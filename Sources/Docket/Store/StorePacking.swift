import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension Store {
    /// How many loose objects a store may gather before it should be packed:
    /// `DOCKET_PACK_THRESHOLD`, else 6,700 (git's `gc.auto`); 0 means always.
    public static var packThreshold: Int {
        ProcessInfo.processInfo.environment["DOCKET_PACK_THRESHOLD"].flatMap(Int.init) ?? 6_700
    }

    /// Whether the store's loose git objects have passed `packThreshold`
    /// (estimated from one of git's 256 object folders, as `git gc --auto` does).
    ///
    /// NB: libgit2 never packs, and every commit leaves a few loose objects per
    /// changed item; tens of thousands of loose files slow lookups, clones and backups.
    public var needsPacking: Bool {
        guard let repository = try? repository else { return false }
        return Store.packThreshold <= 0 || repository.estimatedLooseObjects() > Store.packThreshold
    }

    /// Packs the loose objects into one pack file and removes the loose
    /// copies; returns how many it packed, 0 when another process is packing.
    ///
    /// Runs beside other docket processes without the store's lock: it only
    /// adds a pack and removes loose objects that pack holds, so a commit
    /// made meanwhile keeps its own new objects.
    public func pack() throws -> Int {
        let lock = gitdir + "docket-pack.lock"
        var fd = Glibc.open(lock, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        if fd < 0, errno == EEXIST {
            let holder = (try? String(contentsOfFile: lock, encoding: .utf8)).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0
            guard holder > 0, kill(holder, 0) != 0, errno == ESRCH else { return 0 }
            unlink(lock)  // its process is gone
            fd = Glibc.open(lock, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        }
        guard fd >= 0 else { return 0 }
        let pid = "\(getpid())\n"
        _ = pid.withCString { Glibc.write(fd, $0, strlen($0)) }
        close(fd)
        defer { unlink(lock) }
        return try git { try repository.packLooseObjects() }
    }
}
