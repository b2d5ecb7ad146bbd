import DocketGit
import DocketSystem
import Foundation

// Moving the branch to another commit so that a process killed at any point
// leaves a store the next command finishes: the working tree goes first, and
// a marker file records the move until the branch has moved.
extension Store {
    /// The file that marks a branch update in progress: "<target commit> <previous commit or none>".
    var updateMarker: String { gitdir + "docket-update" }

    /// Moves the branch to `target` after making the working tree and index match it.
    func moveBranch(to target: ObjectID, from previous: ObjectID?, message: String) throws {
        guard let branch = try git.headBranch() else { throw StoreError.state(.detachedHead) }
        try StoreError.gate(writing: true) {
            try AtomicFile.write(Data("\(target) \(previous?.description ?? "none")\n".utf8), to: updateMarker)
        }
        let targetTree = try git.tree(ofCommit: target)
        // Whether the index held HEAD's tree: then, after the checkout, it holds the target's.
        let indexHeldHead = try git.indexHoldsHeadTree()
        // Only the paths that differ need looking at; past a few thousand, a whole checkout is as quick.
        let paths = try previous.map { try git.changedPaths(from: try git.tree(ofCommit: $0), to: targetTree).map(\.path) }
        try git.checkout(target, only: (paths?.count ?? .max) <= 5_000 ? paths : nil)
        if indexHeldHead { try git.noteIndexHolds(targetTree) }
        Fault.point("after-checkout")
        try git.setReference(branch, to: target, message: message)
        try? FileManager.default.removeItem(atPath: updateMarker)
    }

    /// Finishes a branch update a killed process left half done.
    func finishInterruptedUpdate() throws {
        guard let text = try? String(contentsOfFile: updateMarker, encoding: .utf8) else { return }
        let parts = text.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        let done: () -> Void = { try? FileManager.default.removeItem(atPath: self.updateMarker) }
        guard parts.count == 2, let target = ObjectID(hex: parts[0]) else { return done() }
        let head = try git.head()
        if head == target { return done() }
        guard head?.description ?? "none" == parts[1] else { return done() }
        // Every file that differs from HEAD must already be the target's, so
        // finishing the checkout cannot overwrite anything a person changed.
        let targetTree = try git.tree(ofCommit: target)
        for entry in try git.status(under: []) {
            let wanted = try git.blobID(inTree: targetTree, at: entry.path)
            let actual = entry.kind == .deleted ? nil : try git.hashFile(entry.path)
            if wanted != actual { throw StoreError.state(.interruptedUpdate(path: entry.path, marker: updateMarker)) }
        }
        guard let branch = try git.headBranch() else { throw StoreError.state(.detachedHead) }
        try git.checkout(target, force: true)
        try git.setReference(branch, to: target, message: "docket: finish an interrupted pull")
        done()
    }
}
