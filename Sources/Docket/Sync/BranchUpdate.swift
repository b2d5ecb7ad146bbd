import DocketGit
import DocketSystem
import Foundation

// Moving the branch to another commit so that a process killed at any point
// leaves a store the next command finishes, and a failure leaves it as it was.
//
// 1. A marker records the update: the target, the commit it moves from, and
//    every path it touches (flushed to disk before any file changes).
// 2. Files outside the store's folders are checked out by git's own safe checkout.
// 3. The store's files are written from their blobs, each atomically (a
//    temporary file renamed into place), all flushed with one syncfs, so a
//    file is always whole: the old version or the new.
// 4. The index takes the touched paths; then the branch moves; then the marker goes.
extension Store {
    /// The file that marks a branch update in progress.
    var updateMarker: String { gitdir + "docket-update" }

    /// Whether a pull or clone killed while it wrote the store's files left
    /// its update unfinished (the next command that changes the store finishes it).
    public var hasInterruptedUpdate: Bool { FileManager.default.fileExists(atPath: updateMarker) }

    /// `body` holding the lock, after an update a killed pull left is
    /// finished: a command that writes the store's files never writes them
    /// among a pull's half-written ones (which then could never be finished).
    func withLockFinishingUpdate<T>(_ body: () throws -> T) throws -> T {
        try withLock {
            try finishInterruptedUpdate()
            return try body()
        }
    }

    /// What the marker records.
    struct UpdateRecord: Codable {
        let target: String
        let previous: String?
        let paths: [String]
        /// Store paths written whatever they held (what an unfinished git merge left there).
        var overwrite: [String]? = nil
        /// Whether files outside the store's folders already hold the target's versions.
        var othersInPlace: Bool? = nil
    }

    /// Moves the branch to `target` after making the working tree and index
    /// match it; `contents` holds blobs already read, by id. The store paths in
    /// `overwriting` are written whatever they hold, and with `othersInPlace`
    /// files outside the store's folders are taken to hold the target's already.
    func moveBranch(
        to target: ObjectID, from previous: ObjectID?, message: String, contents: [ObjectID: Data] = [:],
        overwriting: Set<String> = [], othersInPlace: Bool = false
    ) throws {
        guard let branch = try git.headBranch() else { throw StoreError.state(.detachedHead) }
        let targetTree = try git.tree(ofCommit: target)
        let previousTree = try previous.map { try git.tree(ofCommit: $0) }
        let changes = try mergingOverwrites(
            try git.changedPaths(from: previousTree, to: targetTree), overwriting, previousTree, targetTree)
        // NB: the index Docket wrote is read and written by Docket, not libgit2 (see `Repository.writeIndex`).
        let ownIndex = try git.notedIndexHoldingHead()
        let indexHeldHead = try ownIndex != nil || git.indexHoldsHeadTree()
        let record = UpdateRecord(
            target: target.description, previous: previous?.description, paths: changes.map(\.path),
            overwrite: overwriting.sorted(), othersInPlace: othersInPlace)
        try checkWorkingTree(changes, finishing: false, overwriting: overwriting)
        // NB: git's reference-transaction hook hears `prepared` before the working tree changes, so that one
        // refusing the move leaves every file as it was.
        try moveBranchReference(branch, to: target, message: message) {
            try StoreError.gate(writing: true) {
                try AtomicFile.write(try JSONEncoder().encode(record), to: updateMarker)
            }
            var noted = false
            do {
                noted = try apply(
                    changes, of: target, contents: contents, othersInPlace: othersInPlace,
                    index: ownIndex, noting: indexHeldHead ? targetTree : nil)
            } catch {
                rollBack(changes)
                try? FileManager.default.removeItem(atPath: updateMarker)
                throw error
            }
            if !noted && (indexHeldHead || othersInPlace) { try git.noteIndexHolds(targetTree) }
            Fault.point("after-checkout")
        }
        try? FileManager.default.removeItem(atPath: updateMarker)
        noteArrivals(changes, contents: contents, commit: target)
    }

    /// Tells the hooks of the items a pull or merge brought.
    private func noteArrivals(_ changes: [ChangedPath], contents: [ObjectID: Data], commit: ObjectID) {
        guard !hooks.isEmpty else { return }
        let items = changes.compactMap { change -> HookedChange? in
            let item = StoreLayout.item(at: change.path)
            switch item {
            case .todo, .project, .task:
                let read = { (id: ObjectID?) in id.flatMap { contents[$0] ?? (try? self.git.blob($0)) } }
                return HookedChange(item: item, old: read(change.oldID), new: read(change.newID))
            case .tombstone, .format, .other: return nil
            }
        }
        noteForHooks(items, origin: .pull, commit: commit)
    }

    /// Finishes a branch update a killed process left half done: every path it
    /// touches must hold its old version, its new one, or nothing; then the
    /// update is made again from the start, which changes only what is left to change.
    func finishInterruptedUpdate() throws {
        let data: Data?
        do {
            data = try Folder.readFile(updateMarker, limit: Store.maximumFileSize)
        } catch FileProblem.missing {
            return
        } catch {
            data = nil
        }
        let done = { _ = try? FileManager.default.removeItem(atPath: self.updateMarker) }
        // A marker that does not read (not a regular file, or not a record) names nothing to finish.
        guard let data, let record = try? JSONDecoder().decode(UpdateRecord.self, from: data),
            let target = ObjectID(hex: record.target)
        else {
            return done()
        }
        let previous = record.previous.flatMap(ObjectID.init(hex:))
        let head = try git.head()
        // The branch already moved, or moved elsewhere since (by git): nothing is left to finish.
        guard head != target, head == previous else { return done() }
        guard let branch = try git.headBranch() else { throw StoreError.state(.detachedHead) }
        let targetTree = try git.tree(ofCommit: target)
        let previousTree = try previous.map { try git.tree(ofCommit: $0) }
        let overwriting = Set(record.overwrite ?? [])
        let changes = try mergingOverwrites(
            try git.changedPaths(from: previousTree, to: targetTree), overwriting, previousTree, targetTree)
        try checkWorkingTree(changes, finishing: true, overwriting: overwriting)
        _ = try apply(changes, of: target, othersInPlace: record.othersInPlace ?? false)
        try git.noteIndexHolds(targetTree)
        try moveBranchReference(branch, to: target, message: "docket: finish an interrupted pull")
        removeLeftoverTemporaryFiles(in: Set(changes.map { split($0.path).folder }))
        done()
        noteArrivals(changes, contents: [:], commit: target)
    }

    /// Removes the temporary files a killed docket left in these folders (those whose writer is gone).
    func removeLeftoverTemporaryFiles(in folders: Set<String>) {
        guard let root = try? tree else { return }
        for path in folders {
            guard let folder = try? root.folder(path), let entries = try? folder.allEntries() else { continue }
            for name in entries {
                if let pid = AtomicFile.writer(ofTemporary: Substring(name)), !Spawn.isAlive(pid) {
                    try? folder.remove(name)
                }
            }
        }
    }

    /// Refuses an update that would overwrite what a person changed: each
    /// touched store file must hold its old version (or, when `finishing` a
    /// killed update, its new version or nothing).
    private func checkWorkingTree(_ changes: [ChangedPath], finishing: Bool, overwriting: Set<String> = []) throws {
        let source = try workingTree
        var flags: [String: IndexFlag]?
        var changedToStatus: Set<String>?
        let checked = changes.filter { StoreLayout.isInStore($0.path) && !overwriting.contains($0.path) }
        // A file is compared as git compares it: through the filters git cleans it with (a CRLF checkout).
        let filtered = try !checked.isEmpty && git.filtersMayApply(to: checked.map(\.path))
        for change in checked {
            let current = try? source.read(change.path)
            let currentID = try current.map {
                try filtered ? git.blobID(ofWorkingTreeBytes: $0, at: change.path) : git.blobID(of: $0)
            }
            if currentID == change.oldID || finishing && (currentID == change.newID || current == nil) { continue }
            // A file git is told not to look at: one a sparse checkout left out is written (`git sparse-checkout
            // reapply` leaves it out again); one changed here is named, for git would neither commit nor keep it.
            if flags == nil { flags = try git.indexFlags() }
            if let flag = flags?[change.path] {
                if flag == .skipWorktree && current == nil { continue }
                throw StoreError.state(.changeGitIgnores(path: change.path, flag: flag))
            }
            // NB: a file whose index entry's stat data still matches it is unchanged to git (and to `status`), which
            // overwrites it: one checked out under other line-ending settings (CRLF, `core.autocrlf` unset since).
            if !finishing, changedToStatus == nil {
                changedToStatus = try Set(git.status(under: StoreLayout.folders).map(\.path))
            }
            if !finishing, changedToStatus?.contains(change.path) == false { continue }
            throw finishing
                ? StoreError.state(.interruptedUpdate(path: change.path, marker: updateMarker))
                : StoreError.state(.uncommittedChanges)
        }
    }

    /// Puts the target's version of each changed path in place, in the working tree and the index;
    /// returns whether the index was written from `index` (the one Docket read) and noted as holding `tree`.
    private func apply(
        _ changes: [ChangedPath], of target: ObjectID, contents: [ObjectID: Data] = [:], othersInPlace: Bool = false,
        index: NotedIndex? = nil, noting tree: ObjectID? = nil
    ) throws -> Bool {
        let store = changes.filter { StoreLayout.isInStore($0.path) }
        let others = changes.filter { !StoreLayout.isInStore($0.path) }
        if !others.isEmpty && !othersInPlace { try git.checkout(target, only: others.map(\.path)) }
        try write(store, contents: contents)
        Fault.point("after-store-files")
        let entries = store.map { ($0.path, $0.newID) }
        // libgit2's checkout of other files wrote the index since it was read.
        if let index, others.isEmpty, try git.writeIndex(index, setting: entries, noting: tree) { return tree != nil }
        try git.setIndexEntries(entries)
        return false
    }

    /// Writes each store path's new version (or removes it), each atomically, flushed once.
    private func write(_ changes: [ChangedPath], old: Bool = false, contents: [ObjectID: Data] = [:]) throws {
        try StoreError.gate(writing: true) {
            let root = try tree
            let batch = WriteBatch(root: root)
            var removals: [String] = []
            // Each file as git's checkout writes it: with the line endings its attributes ask for.
            let filtered = try !changes.isEmpty && git.filtersMayApply(to: changes.map(\.path))
            for change in changes {
                if let id = old ? change.oldID : change.newID {
                    let data = try contents[id] ?? git.blob(id)
                    try batch.add(
                        filtered ? git.workingTreeBytes(ofBlob: data, at: change.path) : data, at: change.path)
                } else {
                    removals.append(change.path)
                }
            }
            try batch.commit()
            for path in removals {
                let (folder, name) = split(path)
                try root.folder(folder)?.remove(name)
                var parent = folder
                while parent.contains("/") {
                    let (up, last) = split(parent)
                    try root.folder(up)?.removeIfEmpty(last)
                    parent = up
                }
                if !parent.isEmpty { root.removeIfEmpty(parent) }
            }
        }
    }

    /// The changes, with each overwritten store path the tree change does not already list
    /// (a file git left conflicted, that ends as it was in the previous tree).
    private func mergingOverwrites(
        _ changes: [ChangedPath], _ overwriting: Set<String>, _ previousTree: ObjectID?,
        _ targetTree: ObjectID
    ) throws -> [ChangedPath] {
        let listed = Set(changes.map(\.path))
        var all = changes
        for path in overwriting.sorted() where !listed.contains(path) {
            let old = try previousTree.flatMap { try git.blobID(inTree: $0, at: path) }
            let new = try git.blobID(inTree: targetTree, at: path)
            all.append(ChangedPath(path: path, kind: new == nil ? .deleted : .modified, oldID: old, newID: new))
        }
        return all
    }

    /// Puts the old version of each store path back after a failed update (best effort).
    private func rollBack(_ changes: [ChangedPath]) {
        let store = changes.filter { StoreLayout.isInStore($0.path) }
        try? write(store, old: true)
        try? git.setIndexEntries(store.map { ($0.path, $0.oldID) })
    }
}
