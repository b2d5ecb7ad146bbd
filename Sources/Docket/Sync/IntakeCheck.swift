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
    /// Up to how many files the bytes read are kept for the checkout that
    /// follows; past it, it reads them again. Kept, they take about twice
    /// their size: 50 MB at 100,000 items, which a clone cannot spare.
    var keepsContentsUpTo = Int.max
    /// Whether the check goes on past a refused file, to find them all (`refusals(in:since:)`).
    var collectsAll = false

    /// Refuses `target` when a file it adds or changes since `current` (every
    /// file when nil) is one Docket must not take in or pass on; returns the
    /// bytes of the store files it read, by blob, for the checkout that follows (none past `keepsContentsUpTo` files).
    @discardableResult
    func check(_ target: ObjectID, since current: ObjectID?) throws -> [ObjectID: Data] {
        let targetTree = try git.tree(ofCommit: target)
        let files: [(path: String, id: ObjectID?)]
        // NB: bounded while walking, not after: nine folders of ten names of one small subtree list a billion files
        // in a few kilobytes (ten million took 53 s and 2.7 GB to count). A diff looks at both trees' entries.
        do {
            if let current {
                files = try git.changedPaths(
                    from: try git.tree(ofCommit: current), to: targetTree, limit: 2 * Self.mostFiles
                ).filter { $0.kind != .deleted }.map { ($0.path, $0.newID) }
            } else {
                files = try git.entries(inTree: targetTree, under: [], limit: Self.mostFiles).map {
                    ($0.key, $0.value.id)
                }
            }
        } catch is TooManyFiles {
            throw StoreError.state(.tooManyFiles(commit: target.short, limit: Self.mostFiles))
        }
        if files.count > Self.mostFiles {
            throw StoreError.state(.tooManyFiles(commit: target.short, limit: Self.mostFiles))
        }
        // NB: a file outside the store's folders is git's to write, whole, from memory: its size is read from
        // the object's header first (a 2 GiB blob of zeros packs into 9 MB, and took a clone to 4.2 GB).
        // NB: refused whole even when collecting: the object copy that brings such a file refuses it too.
        var otherBytes = 0
        for (path, id) in files where !StoreLayout.isInStore(path) {
            if let id, let size = try? git.blobSize(id) {
                if size > Self.largestOtherFile {
                    let reason =
                        "is a file of \(size >> 20) MiB, over the \(Self.largestOtherFile >> 20) MiB docket takes in outside its folders"
                    throw try refused(path, reason, in: target, since: current)
                }
                otherBytes += size
                if otherBytes > Self.mostBytes {
                    throw StoreError.state(.tooManyBytes(commit: target.short, limit: Self.mostBytes))
                }
            }
        }
        let paths = files.map(\.path)
        let sorted = paths.sorted()
        let keeping = sorted.count <= keepsContentsUpTo
        let bytes = SharedCount()
        _ = bytes.add(otherBytes)
        let found =
            sorted.count >= Self.onAllCoresFrom
            ? try checkOnAllCores(sorted, of: target, keeping: keeping, bytes: bytes)
            : try check(sorted[...], of: target, with: git, bytes: bytes, keeping: keeping)
        if collectsAll {
            collected.append(contentsOf: found.refusals)
            return found.contents
        }
        if let refusal = found.refusals.first {
            throw try refused(refusal.path, refusal.reason, in: target, since: current)
        }
        return found.contents
    }

    /// Every file `target` adds or changes since `current` (every file when nil) that `check` would refuse, with
    /// why and the commit that brought it; a file whose object is missing here still throws, as no fault of its own.
    func refusals(in target: ObjectID, since current: ObjectID?) throws -> [Refusal] {
        var collecting = self
        collecting.collectsAll = true
        collecting.keepsContentsUpTo = 0
        let found = Collected()
        collecting.collected = found
        try collecting.check(target, since: current)
        let tree = try git.tree(ofCommit: target)
        return try found.refusals.map { path, reason in
            // NB: a path git's own fsck rejects (a '..' or '.git' part, a control character) would put a tree git
            // calls corrupt into this machine's history: such a commit is refused whole, as git refuses it.
            if IntakeCheck.pathProblem(path) != nil { throw try refused(path, reason, in: target, since: current) }
            if let entry = try? git.entry(inTree: tree, at: path), entry.mode != .submodule,
                !git.repository.exists(entry.id)
            {
                throw try refused(path, reason, in: target, since: current)
            }
            return Refusal(path: path, reason: reason, commit: try introducer(of: path, in: target, since: current))
        }
    }

    /// A file `refusals(in:since:)` found.
    struct Refusal {
        let path: String
        let reason: String
        /// The commit that brought the file.
        let commit: ObjectID
    }

    /// Where a collecting check puts what it refuses.
    final class Collected {
        var refusals: [(path: String, reason: String)] = []
        func append(contentsOf more: [(path: String, reason: String)]) { refusals += more }
    }
    fileprivate(set) var collected = Collected()

    /// The most files a commit a pull or clone takes in may add or change.
    static let mostFiles = 1_000_000

    /// The most bytes of files a commit a pull or clone takes in may add or change (ten times the largest store
    /// Docket is made for).
    ///
    /// NB: twenty names of one 99 MiB blob of zeros, 672 KB on the remote, wrote 2 GB to disk; a store file can be
    /// 1 MiB, and a thousand of them differing only by their id pack as small.
    static let mostBytes = 1 << 30

    /// The largest file outside the store's folders a pull or clone takes in (GitHub's limit too).
    static let largestOtherFile = 100 << 20

    /// From this many files on, the check runs on all cores (a clone, a first pull).
    static let onAllCoresFrom = 512

    /// What checking some of the files found: the first refused (in their order; every one when collecting all),
    /// else the bytes read.
    private typealias Found = (refusals: [(path: String, reason: String)], contents: [ObjectID: Data])

    /// Checks `paths` in order through `git`, stopping at the first refused.
    private func check(
        _ paths: ArraySlice<String>, of target: ObjectID, with git: StoreGit, counted: SharedCount? = nil,
        total: Int? = nil, bytes: SharedCount, keeping: Bool
    ) throws -> Found {
        let source = try CommitSource(git: git, commit: target)
        source.keepsContents = keeping
        source.countsBytes = true
        var reader = StoreReader(source)
        var bytesCounted = 0
        var seen = 0
        var reported = 0
        var refusals: [(path: String, reason: String)] = []
        for path in paths {
            seen += 1
            if let progress, seen % 256 == 0 || seen == paths.count {
                let done = counted.map { $0.add(seen - reported) } ?? seen
                reported = seen
                progress.report(
                    TransferProgress(stage: .checking, objectsDone: done, objectsTotal: total ?? paths.count))
            }
            if let reason = IntakeCheck.pathProblem(path) {
                refusals.append((path, reason))
                if collectsAll { continue } else { return (refusals, [:]) }
            }
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
                refusals.append((path, reason))
                if collectsAll { continue } else { return (refusals, [:]) }
            }
            let known = reader.problems.count
            _ = reader.item(at: path)
            if source.bytesRead > bytesCounted {
                let total = bytes.add(source.bytesRead - bytesCounted)
                bytesCounted = source.bytesRead
                if total > Self.mostBytes {
                    throw StoreError.state(.tooManyBytes(commit: target.short, limit: Self.mostBytes))
                }
            }
            if reader.problems.count > known {
                refusals += reader.problems[known...].map { ($0.path, $0.reason) }
                if !collectsAll { return (refusals, [:]) }
            }
        }
        return (refusals, refusals.isEmpty ? source.contents : [:])
    }

    /// `check(_:of:with:)` over consecutive parts of `paths` on all cores, each
    /// part reading through a repository of its own (one libgit2 repository must
    /// not be read from two threads at once); the first refusal in order wins.
    ///
    /// NB: a clone of 10,000 items spent a third of its time here on one core,
    /// reading each blob and decoding each item.
    private func checkOnAllCores(_ paths: [String], of target: ObjectID, keeping: Bool, bytes: SharedCount) throws
        -> Found
    {
        let count = SharedCount()
        let parts = Parallel.parts
        let size = (paths.count + parts - 1) / parts
        let folder = git.repository.workdir ?? git.gitdir
        // Each part uses only `progress` (which takes one report at a time) and its own repository.
        let me = UncheckedSendable(self)
        let results = Parallel.map(parts) { part -> UncheckedSendable<Result<Found, Error>> in
            let range = min(paths.count, part * size)..<min(paths.count, (part + 1) * size)
            return UncheckedSendable(
                Result {
                    guard !range.isEmpty else { return ([], [:]) }
                    let own = StoreGit(
                        repository: try StoreError.gate(writing: false) { try Repository.open(at: folder) })
                    return try me.value.check(
                        paths[range], of: target, with: own, counted: count, total: paths.count, bytes: bytes,
                        keeping: keeping)
                })
        }
        var contents: [ObjectID: Data] = [:]
        contents.reserveCapacity(paths.count)
        var refusals: [(path: String, reason: String)] = []
        for result in results {
            let found = try result.value.get()
            if !found.refusals.isEmpty && !collectsAll { return found }
            refusals += found.refusals
            contents.merge(found.contents) { first, _ in first }
        }
        return (refusals, refusals.isEmpty ? contents : [:])
    }

    /// Why git (or a file system) should not be given this path; nil when it may.
    static func pathProblem(_ path: String) -> String? {
        let bytes = path.utf8
        if bytes.count > 4096 { return "has a path longer than 4,096 bytes" }
        // NB: read as bytes, part by part, without making a string of each part: a clone checks every path.
        for part in bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            if part.isEmpty || part.allSatisfy({ $0 == UInt8(ascii: ".") }) && part.count <= 2 {
                return "has '\(String(decoding: part, as: UTF8.self))' as a part of its path"
            }
            if isGitFolderName(part) { return "would write into git's own folder" }
            if part.count > 255 { return "has a name longer than the 255 bytes a file name may have" }
            if part.contains(where: { $0 < 0x20 || $0 == 0x7F }) { return "has a control character in its name" }
        }
        return nil
    }

    /// ".git" in any case, or a short name that stands for it ("GIT~1").
    private static func isGitFolderName(_ part: Substring.UTF8View.SubSequence) -> Bool {
        // ASCII lower case; other bytes cannot match.
        let lower = part.lazy.map { $0 | 0x20 }
        if part.count == 4 { return lower.elementsEqual(".git".utf8) }
        return part.count > 4 && lower.prefix(4).elementsEqual("git~".utf8)
            && part.dropFirst(4).allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    private func refused(_ path: String, _ reason: String, in target: ObjectID, since current: ObjectID?) throws
        -> StoreError
    {
        let commit = try introducer(of: path, in: target, since: current)
        // A file that cannot be read because its object is not here is no fault of the file's or its author's. A
        // submodule's object is a commit of another repository, never here: the entry itself is at fault.
        let entry = try? git.entry(inTree: git.tree(ofCommit: target), at: path)
        if let entry, entry.mode == .submodule {
            let said = "is a submodule (a commit of another repository, as 'git submodule add' makes), not a file"
            return StoreError.state(.refusedInCommit(path: path, commit: commit.short, reason: said))
        }
        if let entry, !git.repository.exists(entry.id) {
            return StoreError.state(.objectMissingInCommit(path: path, commit: commit.short, object: entry.id.short))
        }
        // Markers a merge commit brought are merged again on the way in (`resolvingCommittedMarkers`); these came
        // otherwise.
        let said =
            reason == StoredItem.markersReason
            ? "holds git's conflict markers, committed outside a merge commit Docket could merge again (a rebase or cherry-pick finished by hand, say)"
            : reason
        return StoreError.state(.refusedInCommit(path: path, commit: commit.short, reason: said))
    }

    /// The commit that brought the file at `path` as `target` has it: the
    /// newest commit holding it whose parents do not.
    private func introducer(of path: String, in target: ObjectID, since current: ObjectID?) throws -> ObjectID {
        let bad = try git.entry(inTree: try git.tree(ofCommit: target), at: path)
        for commit in try git.commits(from: target, excluding: current.map { [$0] } ?? [], limit: 10_000) {
            guard try git.entry(inTree: try git.tree(ofCommit: commit), at: path) == bad else { continue }
            let parentsHoldIt = try git.parents(of: commit).contains {
                try git.entry(inTree: try git.tree(ofCommit: $0), at: path) == bad
            }
            if !parentsHoldIt { return commit }
        }
        return target
    }
}
