import DocketGit
import DocketSystem
import Foundation

/// What a commit brings into the store (or sends from it), checked before
/// anything moves: every path it adds or changes must be one git may write
/// anywhere, and in the store's folders a regular file at an item's path,
/// within the size limit, that decodes and holds the id its path names.
/// A refusal names the file and the commit that introduced it.
struct IntakeCheck {
    let git: StoreGit
    /// Hears how many files are checked.
    var progress: ProgressThrottle? = nil

    /// Refuses `target` when a file it adds or changes since `current` (every
    /// file when nil) is one Docket must not take in or pass on; returns the
    /// bytes of the store files it read, by blob, for the checkout that follows.
    @discardableResult
    func check(_ target: ObjectID, since current: ObjectID?) throws -> [ObjectID: Data] {
        let targetTree = try git.tree(ofCommit: target)
        let paths: [String]
        if let current {
            paths = try git.changedPaths(from: try git.tree(ofCommit: current), to: targetTree).filter { $0.kind != .deleted }.map(\.path)
        } else {
            paths = Array(try git.entries(inTree: targetTree, under: []).keys)
        }
        let source = try CommitSource(git: git, commit: target)
        source.keepsContents = true
        var reader = StoreReader(source)
        let sorted = paths.sorted()
        for (index, path) in sorted.enumerated() {
            if let progress, index % 256 == 0 || index == sorted.count - 1 {
                progress.report(TransferProgress(stage: .checking, objectsDone: index + 1, objectsTotal: sorted.count))
            }
            if let reason = IntakeCheck.pathProblem(path) { throw try refused(path, reason, in: target, since: current) }
            guard StoreLayout.isInStore(path) else { continue }
            if StoreLayout.item(at: path) == .other {
                let reason: String
                do {
                    _ = try source.read(path)
                    reason = StoreReader.strayReason
                } catch let problem as FileProblem where problem == .link {
                    reason = problem.description
                } catch {
                    reason = StoreReader.strayReason
                }
                throw try refused(path, reason, in: target, since: current)
            }
            _ = reader.item(at: path)
            if let problem = reader.problems.first { throw try refused(problem.path, problem.reason, in: target, since: current) }
        }
        return source.contents
    }

    /// Why git (or a file system) should not be given this path; nil when it may.
    static func pathProblem(_ path: String) -> String? {
        if path.utf8.count > 4096 { return "has a path longer than 4,096 bytes" }
        for part in path.split(separator: "/", omittingEmptySubsequences: false) {
            if part.isEmpty || part == "." || part == ".." { return "has '\(part)' as a part of its path" }
            if isGitFolderName(part) { return "would write into git's own folder" }
            if part.utf8.count > 255 { return "has a name longer than the 255 bytes a file name may have" }
            if part.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) { return "has a control character in its name" }
        }
        return nil
    }

    /// ".git" in any case, or a short name that stands for it ("GIT~1").
    private static func isGitFolderName(_ part: Substring) -> Bool {
        let bytes = Array(part.utf8).map { $0 | 0x20 }  // ASCII lower case; other bytes cannot match
        if bytes == Array(".git".utf8) { return true }
        return bytes.count > 4 && bytes.starts(with: Array("git~".utf8)) && bytes.dropFirst(4).allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    private func refused(_ path: String, _ reason: String, in target: ObjectID, since current: ObjectID?) throws -> StoreError {
        let commit = try introducer(of: path, in: target, since: current)
        return StoreError.state(.refusedInCommit(path: path, commit: commit.short, reason: reason))
    }

    /// The commit that brought the file at `path` as `target` has it: the
    /// newest commit holding it whose parents do not.
    private func introducer(of path: String, in target: ObjectID, since current: ObjectID?) throws -> ObjectID {
        let bad = try git.entry(inTree: try git.tree(ofCommit: target), at: path)
        for commit in try git.commits(from: target, excluding: current.map { [$0] } ?? [], limit: 10_000) {
            guard try git.entry(inTree: try git.tree(ofCommit: commit), at: path) == bad else { continue }
            let parentsHoldIt = try git.parents(of: commit).contains { try git.entry(inTree: try git.tree(ofCommit: $0), at: path) == bad }
            if !parentsHoldIt { return commit }
        }
        return target
    }
}
