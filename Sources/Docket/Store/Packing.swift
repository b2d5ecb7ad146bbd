import DocketSystem
import Foundation

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
        guard let git = try? git else { return false }
        return Store.packThreshold <= 0 || git.estimatedLooseObjects() > Store.packThreshold
    }

    /// Packs the loose objects into one pack file and removes the loose
    /// copies; returns how many it packed, 0 when another process is packing.
    ///
    /// Runs beside other docket processes without the store's lock: it only
    /// adds a pack and removes loose objects that pack holds, so a commit
    /// made meanwhile keeps its own new objects.
    public func pack() throws -> Int {
        guard let lock = try StoreError.gate(writing: true, { try FileLock.attempt(gitdir + "docket-pack.lock") })
        else { return 0 }
        defer { lock.release() }
        return try git.packLooseObjects()
    }

    /// Starts `docket pack` for this store in the background, detached from
    /// this process, when its loose objects have passed the threshold.
    /// NB: packing 100,000 objects takes about 15 s; like git's auto gc, nobody waits for it.
    package func packInBackgroundIfNeeded(docket executable: String = "/proc/self/exe") {
        guard needsPacking else { return }
        Spawn.detached(executable: executable, name: "docket", ["-C", rootPath, "pack", "--quiet"])
    }
}
