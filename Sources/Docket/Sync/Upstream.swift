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
        // A remote branch another local branch follows is that branch's (a linked worktree's new branch is never
        // pulled from, nor pushed into, main's): the branch of its own name, if any, is left.
        let (_, short) = try localBranch()
        let taken = try followedByOtherBranches(remote: remote, than: short)
        let fetched = try git.references(startingWith: "refs/remotes/\(remote)/").keys
            .map { String($0.dropFirst("refs/remotes/\(remote)/".count)) }
            .filter { $0 != "HEAD" && ($0 == short || !taken.contains($0)) }.sorted()
        guard !fetched.isEmpty else { return nil }
        let head = fetched.count > 1 ? try git.remoteBranches(remote: remote, options: options).head : nil
        let chosen = try chooseUpstream(remote: remote, branches: fetched, head: head)
        try rememberUpstream(remote: remote, branch: chosen)
        return chosen
    }

    /// The branches of `remote` that local branches other than `branch` follow (`branch.<name>.merge`).
    func followedByOtherBranches(remote: String, than branch: String) throws -> Set<String> {
        var taken = Set<String>()
        for other in try git.configuredBranches() where other != branch {
            guard try git.configString("branch.\(other).remote") == remote,
                let merge = try git.configString("branch.\(other).merge"), merge.hasPrefix("refs/heads/")
            else { continue }
            taken.insert(String(merge.dropFirst("refs/heads/".count)))
        }
        return taken
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

// A rewritten upstream (`git filter-repo`, `rebase -i`, `commit --amend` and a
// force push): the last commit of the remote's branch this machine took in is
// no longer in the branch's history. A merge would bring the old history
// back and push it, so it is refused, as git's "forced update" is a warning
// to look; `docket sync --accept-rewrite` takes the new history instead,
// carrying this machine's unsynced changes onto it with a record.
extension Store {
    /// A rewrite found by a fetch: the last tip this machine took in, and the branch's new one.
    struct Rewrite {
        let remoteBranch: String
        let known: ObjectID
        let tip: ObjectID
    }

    /// The rewrite of `remote`'s `branch` a fetch brought, if any: a commit
    /// the remote-tracking reference pointed at (`before` the fetch, then back
    /// through its reflog, as `git pull --rebase` finds a fork point, so a
    /// `git fetch` run first hides nothing) that is in this machine's history
    /// but not in the new tip's. Stores that never shared history (a first pull
    /// from another store) are no rewrite.
    func rewrite(of remote: String, branch: String, before: ObjectID?, tip: ObjectID, ours: ObjectID) throws
        -> Rewrite?
    {
        let tracking = "refs/remotes/\(remote)/\(branch)"
        // Pushes that go elsewhere than the fetches come from (`pushurl`s that leave out the `url`) move the
        // remote-tracking branch to commits the fetched repository may never get: only what fetches found counts.
        let pushURLs = try git.configValues("remote.\(remote).pushurl")
        let fetchedOnly = try !pushURLs.isEmpty && !pushURLs.contains(git.configString("remote.\(remote).url") ?? "")
        // NB: each candidate costs two walks of history; the last 20 updates are enough to see past a `git fetch`.
        let logged = (try? git.reflogTargets(tracking, limit: 20, fetchedOnly: fetchedOnly)) ?? []
        // Newest first: the tip itself (a `git fetch` moved the branch already) tells nothing; the first known
        // tip that is in both histories settles it, so a sync walks history once or twice.
        for candidate in (fetchedOnly ? [] : [before].compactMap { $0 }) + logged where candidate != tip {
            // One this history cannot tell (a shallow clone's, an object not here) is not taken as known.
            guard try git.isInHistory(candidate, of: ours) == true else { continue }
            guard try git.isInHistory(candidate, of: tip) == false else { return nil }
            return Rewrite(remoteBranch: "\(remote)/\(branch)", known: candidate, tip: tip)
        }
        return nil
    }

    /// Takes a rewritten history: the branch moves to its new tip, with what
    /// this machine committed since the last tip it took in carried onto it by
    /// Docket's merge (base: that tip) in a commit whose only parent is the
    /// new tip; its message records the decisions, for `docket merges`.
    func takeRewrite(_ rewrite: Rewrite, ours: ObjectID, intake: IntakeCheck) throws -> PullOutcome {
        let since = try git.mergeBase(rewrite.known, rewrite.tip)
        let contents = try intake.check(rewrite.tip, since: since)
        guard ours != rewrite.known else {
            try moveBranch(
                to: rewrite.tip, from: ours, message: "docket: pull (rewritten history)", contents: contents)
            return .tookRewrite(to: rewrite.tip.description, carried: nil)
        }
        let (commit, report) = try git.writingObjectsTogether {
            let merged = try MergeCommitBuilder(git: git, base: rewrite.known, ours: ours, theirs: rewrite.tip)
                .mergeStore()
            let tree = try git.mergeTrees(
                base: merged.trees.base, ours: merged.trees.ours, theirs: merged.trees.theirs,
                replacing: merged.replacements, changes: merged.changes)
            let message =
                "Carry unsynced changes onto \(rewrite.remoteBranch)'s rewritten history\n\n"
                + "\(rewrite.remoteBranch) no longer holds \(rewrite.known.short); the commits made here since then are "
                + "carried onto \(rewrite.tip.short).\n\n"
                + MergeHistory.replayTrailers(merged.report, ours: ours, theirs: rewrite.tip)
            return (try git.commit(tree: tree, parents: [rewrite.tip], message: message), merged.report)
        }
        try moveBranch(to: commit, from: ours, message: "docket: pull (rewritten history)", contents: contents)
        return .tookRewrite(
            to: rewrite.tip.description, carried: CarriedChanges(commit: commit.description, report: report))
    }
}

extension Store {
    /// Refuses a command that reads old commits' files in a partial clone, which lacks them (a sync makes it whole).
    func refusePartialClone() throws {
        let remote = (try? remoteName(nil)) ?? "origin"
        if let partial = try git.partialCloneFilter(remote: remote) {
            throw StoreError.state(.partialClone(remote: partial.remote, filter: partial.filter))
        }
    }
}

// Where a push goes, as git reads its settings: the remote is the one named,
// else `branch.<name>.pushRemote`, else `remote.pushDefault`, else the one
// pulled from (a fork workflow pulls from one and pushes to another); the
// branch follows `push.default`. What Docket cannot do as git would is
// refused before anything is sent, naming the setting.
extension Store {
    /// The remote and branch a push of the store's branch goes to; `pulling` is the remote pulled from, `named`
    /// whether a person named it (then it is the one pushed to, as with `git push <remote>`).
    func pushDestination(pulling remote: String, named: Bool, options: TransferOptions) throws -> (
        remote: String, branch: String
    ) {
        let (_, short) = try localBranch()
        var pushRemote = remote
        if !named {
            pushRemote =
                try git.configString("branch.\(short).pushRemote") ?? git.configString("remote.pushDefault") ?? remote
            guard try remotes().contains(where: { $0.name == pushRemote }) else {
                throw StoreError.input(.unknownRemote(pushRemote))
            }
        }
        if try !git.configValues("remote.\(pushRemote).push").isEmpty {
            throw StoreError.state(
                .pushSetting(
                    setting: "remote.\(pushRemote).push",
                    reason: "remote.\(pushRemote).push maps the branches to push, which docket does not read",
                    remote: pushRemote, branch: short))
        }
        let mode = (try git.configString("push.default") ?? "simple").lowercased()
        switch mode {
        case "nothing":
            throw StoreError.state(
                .pushSetting(
                    setting: "push.default",
                    reason: "push.default is 'nothing', so git pushes no branch it is not told to",
                    remote: pushRemote, branch: short))
        case "current":
            return (pushRemote, short)
        case "upstream", "tracking":
            guard pushRemote == remote else {
                throw StoreError.state(
                    .pushSetting(
                        setting: "push.default",
                        reason: "push.default is '\(mode)', and \(pushRemote) is not the remote \(short) pulls from",
                        remote: pushRemote, branch: short))
            }
            return (
                remote, try configuredUpstream(remote: remote) ?? upstream(remote: remote, options: options) ?? short
            )
        default:
            // `simple` (git's default) and `matching`: the branch's upstream on the remote it pulls from, else the
            // branch of its own name.
            guard pushRemote == remote else { return (pushRemote, short) }
            return (
                remote, try configuredUpstream(remote: remote) ?? upstream(remote: remote, options: options) ?? short
            )
        }
    }
}
