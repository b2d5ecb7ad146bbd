import DocketGit
import Foundation

/// The store's one way into git: each call a store makes, with git's errors
/// turned into `StoreError` here, once, so the store's code reads as plain calls.
struct StoreGit {
    let repository: Repository
    /// Items decoded from this repository's commits: the store's own, shared with no other store.
    let decodedBlobs = DecodedBlobs()

    private func reading<T>(_ body: () throws -> T) throws -> T { try gate(writing: false, body) }
    private func writing<T>(_ body: () throws -> T) throws -> T { try gate(writing: true, body) }

    /// `StoreError.gate`, naming the lock file a call that met one found in this repository.
    private func gate<T>(writing: Bool, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as GitError where error.isLocked {
            throw StoreError.state(.gitLocked(path: Store.heldGitLocks(in: repository).first ?? ""))
        } catch {
            throw StoreError.wrapping(error, writing: writing)
        }
    }

    var gitdir: String { repository.gitdir }

    // MARK: References

    func head() throws -> ObjectID? { try reading { try repository.head() } }
    func reference(_ name: String) throws -> ObjectID? { try reading { try repository.reference(name) } }
    func headBranch() throws -> String? { try reading { try repository.headBranch() } }
    func references(startingWith prefix: String) throws -> [String: ObjectID] {
        try reading { try repository.references(startingWith: prefix) }
    }
    func setHead(_ branch: String) throws { try writing { try repository.setHead(branch) } }
    func setReference(_ name: String, to id: ObjectID, message: String) throws {
        try writing { try repository.setReference(name, to: id, message: message) }
    }

    // MARK: Objects and history

    func tree(ofCommit id: ObjectID) throws -> ObjectID { try reading { try repository.tree(ofCommit: id) } }
    func blob(_ id: ObjectID) throws -> Data { try reading { try repository.blob(id) } }
    func blobSize(_ id: ObjectID) throws -> Int { try reading { try repository.blobSize(id) } }
    func tree(_ tree: ObjectID, replacing blobs: [String: ObjectID]) throws -> ObjectID {
        try writing { try repository.tree(tree, replacing: blobs) }
    }
    func tree(_ tree: ObjectID, removing: [String], setting blobs: [String: ObjectID]) throws -> ObjectID {
        try writing { try repository.tree(tree, removing: removing, setting: blobs) }
    }
    func writeBlob(_ data: Data) throws -> ObjectID { try writing { try repository.writeBlob(data) } }
    func entries(inTree tree: ObjectID, under folders: [String], limit: Int = .max) throws -> [String: TreeEntry] {
        try reading { try repository.entries(inTree: tree, under: folders, limit: limit) }
    }
    func entry(inTree tree: ObjectID, at path: String) throws -> TreeEntry? {
        try reading { try repository.entry(inTree: tree, at: path) }
    }
    func blobID(inTree tree: ObjectID, at path: String) throws -> ObjectID? {
        try reading { try repository.blobID(inTree: tree, at: path) }
    }
    func changedPaths(from old: ObjectID?, to new: ObjectID?, limit: Int = .max) throws -> [ChangedPath] {
        try reading { try repository.changedPaths(from: old, to: new, limit: limit) }
    }
    func log(from start: ObjectID, limit: Int, scanning: Int = .max, where keep: (CommitInfo) -> Bool = { _ in true })
        throws -> [CommitInfo]
    {
        try reading { try repository.log(from: start, limit: limit, scanning: scanning, where: keep) }
    }
    func mergeBase(_ a: ObjectID, _ b: ObjectID) throws -> ObjectID? { try reading { try repository.mergeBase(a, b) } }
    func commits(from start: ObjectID, excluding: [ObjectID], limit: Int = .max) throws -> [ObjectID] {
        try reading { try repository.commits(from: start, excluding: excluding, limit: limit) }
    }
    func parents(of commit: ObjectID) throws -> [ObjectID] { try reading { try repository.commitInfo(commit).parents } }
    func date(of commit: ObjectID) throws -> Date { try reading { try repository.commitInfo(commit).date } }
    func commitInfo(_ commit: ObjectID) throws -> CommitInfo { try reading { try repository.commitInfo(commit) } }

    // MARK: Working tree and index

    /// The store's changes under `folders`. An item's file counts even when
    /// git's ignore rules (a global `*.json`, say) would hide it: a todo that
    /// never reaches a commit would never sync.
    func status(under folders: [String]) throws -> [StatusEntry] { try statusReport(under: folders).entries }
    /// The sparse checkout's definition while one is on.
    func sparseDefinition() throws -> SparseDefinition? { try reading { repository.sparseDefinition } }
    /// `status(under:)`, with the files found unchanged whose index entries' stat data is out of date.
    func statusReport(under folders: [String]) throws -> StatusReport {
        try reading {
            try repository.statusReport(under: folders, alwaysTracked: { StoreLayout.item(at: $0) != .other })
        }
    }
    func writeTreeFromIndex() throws -> ObjectID { try writing { try repository.writeTreeFromIndex() } }
    func indexFileChecksum() -> [UInt8]? { repository.indexFileChecksum() }
    func indexFlags() throws -> [String: IndexFlag] { try reading { try repository.indexFlags() } }
    func hashFile(_ path: String) throws -> ObjectID { try reading { try repository.hashFile(path) } }
    func indexHoldsHeadTree() throws -> Bool { try reading { try repository.indexHoldsHeadTree() } }
    func notedIndexHoldingHead() throws -> NotedIndex? { try reading { try repository.notedIndexHoldingHead() } }
    func writeIndex(_ index: NotedIndex, setting entries: [(path: String, id: ObjectID?)], noting tree: ObjectID?)
        throws -> Bool
    {
        try writing { try repository.writeIndex(index, setting: entries, noting: tree) }
    }
    func noteIndexHolds(_ tree: ObjectID) throws { try writing { try repository.noteIndexHolds(tree) } }
    func noteIndexHoldsWithTreeCache(_ tree: ObjectID) throws {
        try writing { try repository.noteIndexHoldsWithTreeCache(tree) }
    }
    func checkoutIntoEmpty(_ commit: ObjectID, contents: [ObjectID: Data], progress: ProgressThrottle?) throws -> Bool {
        try writing { try repository.checkoutIntoEmpty(commit, contents: contents, progress: progress) }
    }
    func stageAndWriteTree(_ paths: [String], refreshing stale: [String] = []) throws -> ObjectID {
        try writing { try repository.stageAndWriteTree(paths, refreshing: stale) }
    }
    /// The files the last status found unchanged but with stat data the index no longer matches.
    func refreshStatData(_ paths: [String]) throws -> Bool { try writing { try repository.refreshStatData(paths) } }
    func updateIndex(_ paths: [String]) throws { try writing { try repository.updateIndex(paths) } }
    func setIndexEntries(_ entries: [(path: String, id: ObjectID?)]) throws {
        try writing { try repository.setIndexEntries(entries) }
    }
    func blobID(of data: Data) throws -> ObjectID { try reading { try Repository.blobID(of: data) } }
    func isInHistory(_ ancestor: ObjectID, of commit: ObjectID) throws -> Bool? {
        try reading { repository.isInHistory(ancestor, of: commit) }
    }
    func reflogTargets(_ name: String, limit: Int, fetchedOnly: Bool) throws -> [ObjectID] {
        try reading { try repository.reflogTargets(name, limit: limit, fetchedOnly: fetchedOnly) }
    }
    func partialCloneFilter(remote: String) throws -> (remote: String, filter: String)? {
        try reading { try repository.partialCloneFilter(remote: remote) }
    }
    func configValues(_ name: String) throws -> [String] { try reading { try repository.configValues(name) } }
    func filtersMayApply(to paths: [String]) throws -> Bool {
        try reading { try repository.filtersMayApply(to: paths) }
    }
    func blobID(ofWorkingTreeBytes data: Data, at path: String) throws -> ObjectID {
        try reading { try repository.blobID(ofWorkingTreeBytes: data, at: path) }
    }
    func workingTreeBytes(ofBlob data: Data, at path: String) throws -> Data {
        try reading { try repository.workingTreeBytes(ofBlob: data, at: path) }
    }
    func checkout(
        _ commit: ObjectID, force: Bool = false, only paths: [String]? = nil, progress: ProgressThrottle? = nil
    ) throws {
        try writing { try repository.checkout(commit, force: force, only: paths, progress: progress) }
    }

    // MARK: Writing commits

    func writingObjectsTogether<T>(_ body: () throws -> T) throws -> T {
        try writing { try repository.writingObjectsTogether(body) }
    }
    func commit(tree: ObjectID, parents: [ObjectID], message: String) throws -> ObjectID {
        try writing { try repository.commit(tree: tree, parents: parents, message: message, updating: nil) }
    }
    func mergeTrees(
        base: ObjectID?, ours: ObjectID, theirs: ObjectID, replacing replacements: [String: ObjectID?],
        changes: (ours: [ChangedPath], theirs: [ChangedPath])?
    ) throws -> ObjectID {
        try writing {
            try repository.mergeTrees(
                base: base, ours: ours, theirs: theirs, replacing: replacements,
                resolvedUnder: StoreLayout.folders, changes: changes)
        }
    }

    // MARK: What git left unfinished

    var unfinishedOperation: GitOperation? { repository.unfinishedOperation }
    func clearOperationState() throws { try writing { try repository.clearOperationState() } }
    func conflictStages(at path: String) throws -> (base: ObjectID?, ours: ObjectID?, theirs: ObjectID?) {
        try reading { try repository.conflictStages(at: path) }
    }
    func conflictedPaths() throws -> [String] { try reading { try repository.conflictedPaths() } }
    func resolveIndex(replacing replacements: [String: ObjectID?]) throws -> ObjectID {
        try writing { try repository.resolveIndex(replacing: replacements) }
    }
    func attachHead(to branch: String) throws { try writing { try repository.attachHead(to: branch) } }

    // MARK: Configuration

    func configString(_ name: String) throws -> String? { try reading { try repository.configString(name) } }
    func setConfig(_ name: String, to value: String) throws {
        try writing { try repository.setConfig(name, to: value) }
    }
    func configuredBranches() throws -> Set<String> { try reading { try repository.configuredBranches() } }
    func removeBranchConfig(_ name: String) throws { try writing { try repository.removeBranchConfig(name) } }

    // MARK: Remotes

    func remotes() throws -> [RemoteInfo] { try reading { try repository.remotes() } }
    func addRemote(_ name: String, url: String) throws { try writing { try repository.addRemote(name, url: url) } }
    func removeRemote(_ name: String) throws { try writing { try repository.removeRemote(name) } }
    func remoteBranches(remote: String, options: TransferOptions) throws -> (branches: [String], head: String?) {
        try reading { try repository.remoteBranches(remote: remote, options: options) }
    }
    func push(remote: String, local: String, to remoteBranch: String, options: TransferOptions) throws {
        try writing { try repository.push(remote: remote, local: local, to: remoteBranch, options: options) }
    }
    func repairFolderRemote(remote: String, local: String, to remoteBranch: String, options: TransferOptions) throws {
        try writing { try repository.repairFolderRemote(remote, local: local, to: remoteBranch, options: options) }
    }
    func repairFromFolderRemote(remote: String, options: TransferOptions) throws {
        try writing { try repository.repairFromFolderRemote(remote, options: options) }
    }
    @discardableResult
    func fetch(remote: String, branch: String? = nil, mirror: MirroredReferences? = nil, options: TransferOptions)
        throws -> [String: ObjectID]
    {
        try writing { try repository.fetch(remote: remote, branch: branch, mirror: mirror, options: options) }
    }
    func push(remote: String, reference: String, options: TransferOptions) throws {
        try writing { try repository.push(remote: remote, reference: reference, options: options) }
    }

    // MARK: Upkeep

    func estimatedLooseObjects() -> Int { repository.estimatedLooseObjects() }
    func packLooseObjects() throws -> Int { try writing { try repository.packLooseObjects() } }
}
