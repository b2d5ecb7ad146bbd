import Foundation

// A partial clone (`git clone --filter=blob:none` or `tree:0`) lacks objects
// that git fetches from its promisor remote when it needs them. libgit2 1.5
// knows nothing of that: a read of a missing object fails, and a fetch asks
// for packs thinned against objects the clone never had ("missing delta
// bases"). Docket reads old blobs and trees to merge and to report merges,
// so such a clone is made whole, through git, before it fetches.
extension Repository {
    /// The filter a partial clone fetches `remote` with (`remote.<name>.partialclonefilter`), or that its promisor
    /// remote (`extensions.partialClone`) does; nil for a whole clone.
    public func partialCloneFilter(remote: String) throws -> (remote: String, filter: String)? {
        var names = [remote]
        if let promisor = try configString("extensions.partialclone"), promisor != remote { names.append(promisor) }
        for name in names {
            if let filter = try configString("remote.\(name).partialclonefilter"), !filter.isEmpty {
                return (name, filter)
            }
        }
        return nil
    }

    /// Makes a partial clone whole through git, as `git fetch --refetch` does once its filter is gone: every object
    /// of every fetched branch is there afterwards, and later fetches (git's and Docket's) take every object.
    /// Says so through `options.warning`.
    func makeWholeThroughGit(remote: String, filter: String, options: TransferOptions) throws {
        let url = (try? configString("remote.\(remote).url")).flatMap { $0 } ?? remote
        let said =
            try runGit(["config", "--unset-all", "remote.\(remote).partialclonefilter"])
            ?? runGit(["fetch", "-q", "--refetch", remote])
        if let said {
            throw TransferError.gitFailed(url: RemoteURL.redacted(url), command: "git fetch --refetch", said: said)
        }
        options.warning?(
            "this clone was partial (--filter=\(filter)), and Docket reads objects it lacked; "
                + "fetched them all from \(remote) ('git fetch --refetch'), so it is whole now")
    }
}
