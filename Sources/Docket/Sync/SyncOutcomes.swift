import DocketMerge
import DocketModel
import Foundation

/// What a pull did.
public enum PullOutcome: Equatable, Sendable {
    /// The remote had nothing new.
    case upToDate
    /// The remote has no branch to pull yet.
    case remoteEmpty
    /// The branch moved forward to the remote's commit; `farAhead` names the
    /// dates it brought that lie more than a day ahead of that commit, as a merge names them.
    case fastForwarded(to: String, farAhead: [FarAheadDate] = [])
    /// Both had new commits: they were merged in a merge commit.
    case merged(commit: String, report: MergeReport)
    /// A cherry-pick or revert git stopped on a store file was finished with Docket's merge; `commit` records the
    /// report.
    case finishedReplay(GitOperation, commit: String, report: MergeReport)
    /// The remote's branch was rewritten (a force push) and the rewritten history was taken, as asked
    /// (`acceptsRewrittenUpstream`); `carried` is the commit that carried this machine's unsynced changes onto it.
    case tookRewrite(to: String, carried: CarriedChanges?)
}

/// This machine's unsynced changes, carried onto a rewritten history: the commit, and what Docket's merge decided.
public struct CarriedChanges: Equatable, Sendable {
    /// The commit on top of the rewritten history.
    public let commit: String
    /// What the merge decided.
    public let report: MergeReport
}

/// What a pull did, and with which remote.
public struct Pulled: Equatable, Sendable {
    /// The remote pulled from.
    public let remote: String
    /// What the pull did.
    public let outcome: PullOutcome
}

/// What a push did.
public struct Pushed: Equatable, Sendable {
    /// The remote pushed to.
    public let remote: String
    /// The remote's branch pushed to (the store branch's upstream).
    public let branch: String
    /// The branch the remote's HEAD names when that branch does not exist (so a
    /// plain `git clone` of it checks out nothing), for a remote Docket cannot fix.
    public let remoteHeadNamesMissing: String?
    /// This store's writer name, when another machine moved the shared branch first and the commits went to this
    /// store's own writer reference (`branch`) instead, for the next sync to carry into the branch.
    public var asWriter: String? = nil
}

/// What a sync did, step by step.
public struct SyncOutcome: Equatable, Sendable {
    /// The remote synced with.
    public let remote: String
    /// The commit of local changes made first, if any.
    public let committed: CommitOutcome
    /// Each pull, in order (more than one when another machine pushed in between; the first may finish what git left).
    public let pulls: [PullOutcome]
    /// The push, when there was anything to send.
    public let pushed: Pushed?
}

/// A past merge, read back from its commit.
public struct MergeRecord: Encodable, Sendable {
    /// The merge commit's id.
    public let commit: String
    /// When it was made.
    @MillisecondDate public var date: Date
    /// The first line of its message.
    public let summary: String
    /// Everything the merge decided.
    public let report: MergeReport
    /// Whether git made the merge commit (its decisions are worked out again from its parents).
    public let madeByGit: Bool
    /// The files a remote brought that this commit set aside (a pull that could not take them in), numbered after
    /// the report's lost values for `restoreLost`; empty for a merge.
    public var setAside: [SetAsideFile] = []
}
