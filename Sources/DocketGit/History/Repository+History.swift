import DocketCGit2
import Foundation

extension Repository {
    /// What a commit says of itself.
    public func commitInfo(_ id: ObjectID) throws -> CommitInfo {
        try withCommit(id) { commit in
            let author = git_commit_author(commit)!.pointee
            let parents = (0..<git_commit_parentcount(commit)).compactMap { ObjectID(git_commit_parent_id(commit, $0)) }
            return CommitInfo(
                id: id, message: String(cString: git_commit_message(commit)),
                authorName: String(cString: author.name), authorEmail: String(cString: author.email),
                date: Date(timeIntervalSince1970: TimeInterval(author.when.time)), parents: parents)
        }
    }

    /// The commits reachable from `start`, newest first (by commit date, as
    /// `git log` orders them), at most `limit` of those `keep` accepts,
    /// looking at no more than `scanning` commits.
    ///
    /// NB: the walk reads a commit only when it is the newest left to show, as
    /// git's does: `log -n 1` reads one commit however long the history is
    /// (libgit2's time-sorted walk read the whole history first: 120 ms at 20,000 commits).
    public func log(
        from start: ObjectID, limit: Int, scanning: Int = .max, where keep: (CommitInfo) -> Bool = { _ in true }
    ) throws -> [CommitInfo] {
        var queue = CommitQueue()
        var seen: Set<ObjectID> = [start]
        var found: [CommitInfo] = []
        var scanned = 0
        queue.push(try commitTime(start), start)
        while found.count < limit, scanned < scanning, let next = queue.pop() {
            scanned += 1
            let info = try commitInfo(next)
            if keep(info) { found.append(info) }
            for parent in info.parents where seen.insert(parent).inserted { queue.push(try commitTime(parent), parent) }
        }
        return found
    }

    /// When `id` was committed, in seconds since 1970.
    func commitTime(_ id: ObjectID) throws -> Int64 { try withCommit(id) { Int64(git_commit_time($0)) } }
}

/// Commits by commit date, newest first (ties by id, so the order never depends on the order they came in).
struct CommitQueue {
    private var heap: [(time: Int64, id: ObjectID)] = []

    private static func newer(_ a: (time: Int64, id: ObjectID), _ b: (time: Int64, id: ObjectID)) -> Bool {
        a.time != b.time ? a.time > b.time : a.id.description > b.id.description
    }

    mutating func push(_ time: Int64, _ id: ObjectID) {
        heap.append((time, id))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.newer(heap[child], heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> ObjectID? {
        guard !heap.isEmpty else { return nil }
        let top = heap[0].id
        heap[0] = heap[heap.count - 1]
        heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var newest = parent
            if left < heap.count, Self.newer(heap[left], heap[newest]) { newest = left }
            if right < heap.count, Self.newer(heap[right], heap[newest]) { newest = right }
            if newest == parent { break }
            heap.swapAt(parent, newest)
            parent = newest
        }
        return top
    }
}

/// A commit as `git log` shows it.
public struct CommitInfo: Equatable, Sendable {
    /// The commit's id.
    public let id: ObjectID
    /// The whole message.
    public let message: String
    /// The author's name.
    public let authorName: String
    /// The author's e-mail.
    public let authorEmail: String
    /// When it was authored.
    public let date: Date
    /// Its parents: none for a first commit, two for a merge.
    public let parents: [ObjectID]

    /// The first line of the message.
    public var summary: String { String(message.split(separator: "\n", omittingEmptySubsequences: false).first ?? "") }
}

extension Repository {
    /// The commits reachable from `start` but not from any of `excluding`, newest first (topological), at most `limit`;
    /// a walk that cannot go on (a missing or broken commit) throws rather than stopping short.
    public func commits(from start: ObjectID, excluding: [ObjectID], limit: Int = .max) throws -> [ObjectID] {
        try commits(from: [start], excluding: excluding, limit: limit)
    }

    /// The commits reachable from any of `starts` and from none of `excluding`, newest first.
    public func commits(from starts: [ObjectID], excluding: [ObjectID], limit: Int = .max) throws -> [ObjectID] {
        var walker: OpaquePointer?
        try check(git_revwalk_new(&walker, pointer), "git_revwalk_new")
        defer { git_revwalk_free(walker) }
        git_revwalk_sorting(walker, GIT_SORT_TOPOLOGICAL.rawValue | GIT_SORT_TIME.rawValue)
        for start in starts {
            var oid = start.oid
            try check(git_revwalk_push(walker, &oid), "git_revwalk_push")
        }
        for commit in excluding {
            var hidden = commit.oid
            try check(git_revwalk_hide(walker, &hidden), "git_revwalk_hide")
        }
        var found: [ObjectID] = []
        var next = git_oid()
        while found.count < limit {
            let code = git_revwalk_next(&next, walker)
            if code == GIT_ITEROVER.rawValue { break }
            try check(code, "git_revwalk_next")
            found.append(ObjectID(next))
        }
        return found
    }
}
