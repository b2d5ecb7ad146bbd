import DocketGit
import Foundation

// One branch per store, tracked as git tracks it (`branch.<name>.remote` and
// `.merge`): set by clone, by the first pull or push, or by git itself. Without
// one, a pull follows the remote's only branch, or the one its HEAD names, and
// refuses to guess between several; a store on `master` and a remote on `main`
// never split silently.
extension Store {
    /// The store's branch: its full and short names.
    func localBranch() throws -> (ref: String, short: String) {
        guard let ref = try git.headBranch() else {
            if let operation = try git.unfinishedOperation {
                throw StoreError.state(.unfinishedGitOperation(operation))
            }
            throw StoreError.state(.detachedHead)
        }
        return (ref, String(ref.dropFirst("refs/heads/".count)))
    }

    /// The remote branch the store's branch follows on `remote` (its short name), as configured.
    func configuredUpstream(remote: String) throws -> String? {
        let (_, short) = try localBranch()
        guard let merge = try git.configString("branch.\(short).merge"), merge.hasPrefix("refs/heads/"),
            (try git.configString("branch.\(short).remote")) ?? remote == remote
        else { return nil }
        return String(merge.dropFirst("refs/heads/".count))
    }

    /// The remote branch to pull from, after a fetch: the configured upstream,
    /// else the remote's only branch, else the one its HEAD names, else the
    /// branch of the same name; nil when the remote has no branch yet.
    /// Remembers what it chose as the upstream, when the store has none.
    func upstream(remote: String, options: TransferOptions) throws -> String? {
        if let configured = try configuredUpstream(remote: remote) { return configured }
        let fetched = try git.references(startingWith: "refs/remotes/\(remote)/").keys
            .map { String($0.dropFirst("refs/remotes/\(remote)/".count)) }.filter { $0 != "HEAD" }.sorted()
        guard !fetched.isEmpty else { return nil }
        let head = fetched.count > 1 ? try git.remoteBranches(remote: remote, options: options).head : nil
        let chosen = try chooseUpstream(remote: remote, branches: fetched, head: head)
        try rememberUpstream(remote: remote, branch: chosen)
        return chosen
    }

    /// The branch to follow among a remote's: its only one, else the one its
    /// HEAD names, else the one named as the store's branch; else none is guessed.
    func chooseUpstream(remote: String, branches: [String], head: String?) throws -> String {
        if branches.count == 1 { return branches[0] }
        if let head, branches.contains(head) { return head }
        let (_, short) = try localBranch()
        if branches.contains(short) { return short }
        throw StoreError.state(.ambiguousUpstream(remote: remote, branches: branches))
    }

    /// After `remote add`: the remote is fetched, as `git remote add -f` does,
    /// and when it has branches the one to follow is chosen and remembered;
    /// nil when it has none yet (the first push chooses).
    func followNewRemote(_ remote: String, options: TransferOptions) throws -> String? {
        try git.fetch(remote: remote, options: options)
        return try upstream(remote: remote, options: options)
    }

    /// Makes `remote`'s `branch` the store branch's upstream, as `git branch
    /// --set-upstream-to` would, unless it follows another remote already (a
    /// second remote, such as a backup, does not take the store over).
    func rememberUpstream(remote: String, branch: String) throws {
        let (_, short) = try localBranch()
        if let current = try git.configString("branch.\(short).remote"), current != remote,
            try git.configString("branch.\(short).merge") != nil
        {
            return
        }
        try git.setConfig("branch.\(short).remote", to: remote)
        try git.setConfig("branch.\(short).merge", to: "refs/heads/\(branch)")
    }

    /// After a push to `remote`'s `branch`: a remote whose HEAD names a branch
    /// it does not have gives an empty checkout to every plain `git clone`. A
    /// remote on this machine gets its HEAD pointed at the pushed branch; for
    /// another, the branch its HEAD names is returned, to say how to fix it.
    func checkRemoteHead(remote: String, branch: String, options: TransferOptions) throws -> String? {
        guard let url = try remotes().first(where: { $0.name == remote })?.url else { return nil }
        if let path = RemoteURL.localPath(url), let bare = try? Repository.open(at: path), bare.isBare {
            if let target = try? bare.headTarget(), (try? bare.reference(target)) ?? nil == nil {
                try? bare.setHead("refs/heads/\(branch)")
            }
            return nil
        }
        let (branches, head) = try git.remoteBranches(remote: remote, options: options)
        guard let head, !branches.contains(head) else { return nil }
        return head
    }
}
