import CGit2
import Foundation

extension Repository {
    /// What a commit says of itself.
    public func commitInfo(_ id: ObjectID) throws -> CommitInfo {
        try withCommit(id) { commit in
            let author = git_commit_author(commit)!.pointee
            let parents = (0..<git_commit_parentcount(commit)).compactMap { ObjectID(git_commit_parent_id(commit, $0)) }
            return CommitInfo(id: id, message: String(cString: git_commit_message(commit)),
                              authorName: String(cString: author.name), authorEmail: String(cString: author.email),
                              date: Date(timeIntervalSince1970: TimeInterval(author.when.time)), parents: parents)
        }
    }

    /// The commits reachable from `start`, newest first, at most `limit`.
    public func log(from start: ObjectID, limit: Int) throws -> [CommitInfo] {
        var walker: OpaquePointer?
        try check(git_revwalk_new(&walker, pointer), "git_revwalk_new")
        defer { git_revwalk_free(walker) }
        git_revwalk_sorting(walker, GIT_SORT_TIME.rawValue)
        var oid = start.oid
        try check(git_revwalk_push(walker, &oid), "git_revwalk_push")
        var commits: [CommitInfo] = []
        var next = git_oid()
        while commits.count < limit, git_revwalk_next(&next, walker) == 0 {
            commits.append(try commitInfo(ObjectID(next)))
        }
        return commits
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
