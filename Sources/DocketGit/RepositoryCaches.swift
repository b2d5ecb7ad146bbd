import DocketSystem
import Foundation

/// What a `Repository` keeps between calls beside its libgit2 handle, each with the rule that makes it read again,
/// so a handle kept open for days (an app's `StoreQueue`, `sync --watch`) never acts on what has changed since. The
/// concurrency article in the documentation lists every cache's owner and lifetime.
struct RepositoryCaches {
    /// The last four comparisons of two whole trees. A pull compares the same trees more than once (its check, its
    /// merge, its checkout, its undo record): at 100,000 items each comparison of 100 changed folders costs about
    /// 15 ms. Never read again: they are keyed by tree ids, and a tree never changes. `walked` is how many entries
    /// the comparison looked at, for a later call's `limit`.
    var comparedTrees: [(old: ObjectID?, new: ObjectID?, changes: [ChangedPath], walked: Int)] = []
    /// The checksum of the index Docket itself wrote last in this process, if any: replaced at each write, and
    /// trusted only while the index on disk still has it.
    var writtenIndex: [UInt8]?
    /// The index file Docket read last in this process (`readNotedIndex`), used only while the file on disk is still
    /// that one (its inode, size, change and modification times, and checksum): a commit stages from the index its
    /// status read (at 100,000 items, reading and hashing it again took 13 ms).
    var lastIndexRead: IndexFile?
    /// `core.sparseCheckout` (see `Repository.looksAtPresentSkippedFiles`), read again when a configuration file
    /// changes.
    var sparseCheckout: StampedValue<Bool>
    /// `core.filemode` (see `Repository.trustsFileMode`), read again when a configuration file changes.
    var fileMode: StampedValue<Bool>
    /// `docket.monitor` (see `Repository.monitorsChanges`), read again when a configuration file changes: a
    /// `docket monitor off` in another process is obeyed at the next status, and the monitor it stopped is not
    /// started again.
    var changeMonitor: StampedValue<Bool>

    /// Caches for a repository whose settings are read from `settingFiles` (its `config`, `config.worktree` and
    /// the common folder's `config`): a setting is read again when one of them is rewritten, replaced, made or
    /// removed.
    init(settingFiles: [String]) {
        sparseCheckout = StampedValue(paths: settingFiles)
        fileMode = StampedValue(paths: settingFiles)
        changeMonitor = StampedValue(paths: settingFiles)
    }
}
