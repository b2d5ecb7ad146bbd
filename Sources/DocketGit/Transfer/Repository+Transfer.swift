import DocketCGit2
import DocketSystem
import Foundation

extension Repository {
    /// Fetches a remote's branches into `refs/remotes/<name>/…`: only
    /// `branch` when given (the one the store follows) and git is not told to
    /// prune, so that a remote with many branches costs what its one branch costs;
    /// with `mirror`, the references it names too, over the same connection. No tag
    /// comes unless `remote.<name>.tagOpt` is `--tags`. Returns the mirrored references.
    @discardableResult
    public func fetch(
        remote name: String, branch: String? = nil, mirror: MirroredReferences? = nil, options: TransferOptions
    ) throws -> [String: ObjectID] {
        if let partial = try partialCloneFilter(remote: name) {
            try makeWholeThroughGit(remote: partial.remote, filter: partial.filter, options: options)
        }
        // NB: none are mirrored into a shallow clone, which libgit2 cannot fetch into (`fetchThroughGit`).
        if shallowCommits() != nil {
            try fetchThroughGit(remote: name, branch: branch)
            return [:]
        }
        if let mirror { try emptyMirror(mirror) }
        try withRemote(name) { remote in
            let context = TransferContext(
                options: options, url: String(cString: git_remote_url(remote)), folder: workdir)
            if context.isCancelled { throw TransferError.cancelled(url: context.url) }
            let prunes = try configBool("remote.\(name).prune") ?? configBool("fetch.prune") ?? false
            let only = prunes ? nil : branch.map { "refs/heads/" + $0 }
            if try fetchedFromFolder(remote, only: only, context: context) {
                // NB: Docket's folder copier takes branches only: the mirrored references come through libgit2.
                if let mirror { try fetch(mirror, from: remote, context: context) }
                return
            }
            var specs = try Self.fetchSpecs(of: remote, only: only)
            if let mirror { specs.append(mirror.refspec) }
            try fetch(specs, from: remote, tags: tagsAsked(remote: name), context: context, message: "docket: fetch")
            if let mirror { try dropFromFetchHead(mirror) }
        }
        return try mirror.map { try references(startingWith: $0.local) } ?? [:]
    }

    /// The refspecs a fetch of `only` (a branch's full name) takes: the branch's own, made from the remote's
    /// configured one so it lands where that one puts it; the configured ones without a branch, or when none
    /// names it.
    static func fetchSpecs(of remote: OpaquePointer, only: String?) throws -> [String] {
        var specs: [String] = []
        var configured: [String] = []
        for index in 0..<git_remote_refspec_count(remote) {
            guard let spec = git_remote_get_refspec(remote, index), git_refspec_direction(spec) == GIT_DIRECTION_FETCH
            else { continue }
            configured.append(String(cString: git_refspec_string(spec)))
            guard let only, git_refspec_src_matches(spec, only) != 0 else { continue }
            var tracking = git_buf()
            defer { git_buf_dispose(&tracking) }
            try check(git_refspec_transform(&tracking, spec, only), "git_refspec_transform")
            specs.append((git_refspec_force(spec) == 1 ? "+" : "") + only + ":" + String(cString: tracking.ptr))
        }
        return specs.isEmpty ? configured : specs
    }

    /// Whether `remote.<name>.tagOpt` asks for every tag (`--tags`), as `git fetch` reads it.
    func tagsAsked(remote name: String) throws -> Bool {
        try configString("remote.\(name).tagOpt") == "--tags"
    }

    /// One fetch of `specs` through libgit2 over the remote's connection (made first unless it is open), which
    /// it closes; every tag when `tags`, else none.
    func fetch(
        _ specs: [String], from remote: OpaquePointer, tags: Bool, fetchHead: Bool = true, context: TransferContext,
        message: String
    ) throws {
        var fetchOptions = git_fetch_options()
        try check(git_fetch_options_init(&fetchOptions, UInt32(GIT_FETCH_OPTIONS_VERSION)), "git_fetch_options_init")
        context.install(into: &fetchOptions.callbacks)
        fetchOptions.proxy_opts = context.proxyOptions()
        // NB: libgit2's default follows tags, weighing every tag the remote lists against the objects here and
        // keeping those it has: from a remote of 250,000 tags a clone took 288 s and kept them all (now 0.8 s).
        fetchOptions.download_tags = tags ? GIT_REMOTE_DOWNLOAD_TAGS_ALL : GIT_REMOTE_DOWNLOAD_TAGS_NONE
        fetchOptions.update_fetchhead = fetchHead ? 1 : 0
        let code = withStrArray(specs) { refspecs in
            var refspecs = refspecs
            return git_remote_fetch(remote, &refspecs, &fetchOptions, message)
        }
        // NB: the transport's program ends (and says its last words) when the remote lets go of it.
        git_remote_disconnect(remote)
        try context.conclude(code < 0 ? context.classify(lastError(code, "git_remote_fetch")) : nil)
    }

    /// A fetch into a shallow clone, through `git fetch`.
    ///
    /// NB: libgit2 1.5 fetches into a shallow clone as into a whole one: it
    /// takes new commits without the parents the server left out for the
    /// clone's shallow commits, after which git itself cannot read the
    /// history ("Failed to traverse parents"), not even to `--unshallow` it.
    func fetchThroughGit(remote name: String, branch: String?) throws {
        let url = (try? configString("remote.\(name).url")).flatMap { $0 } ?? name
        let specs = branch.map { ["+refs/heads/\($0):refs/remotes/\(name)/\($0)"] } ?? []
        guard let said = try runGit(["fetch", "-q", name] + specs) else { return }
        throw TransferError.gitFailed(url: RemoteURL.redacted(url), command: "git fetch", said: said)
    }

    /// Runs git on this repository (never asking on a terminal); nil when it
    /// succeeds, else what it said.
    func runGit(_ arguments: [String]) throws -> String? {
        let outcome = try Spawn.run(
            ["git"] + arguments,
            environment: ["GIT_DIR": gitdir, "GIT_WORK_TREE": workdir, "GIT_TERMINAL_PROMPT": "0"],
            captureErrors: true, folder: workdir ?? gitdir)
        return outcome.status == 0
            ? nil : (outcome.text + outcome.errorText).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A push from a shallow clone, through `git push`.
    ///
    /// NB: libgit2 1.5 does not know a shallow clone's `shallow` file: the
    /// pack it builds walks past the clone's shallow commits to parents that
    /// are not there, and fails. git knows where the history stops; it is run
    /// for this shape alone, with its own credential helpers.
    func pushThroughGit(remote name: String, refspec: String, reference: String) throws {
        let url = (try? configString("remote.\(name).url")).flatMap { $0 } ?? name
        guard let said = try runGit(["push", "--porcelain", name, refspec]) else { return }
        // NB: git's words (receive-pack's "shallow update not allowed"): the remote will not take history that stops
        // short.
        if said.contains("shallow update not allowed") { throw ShallowHistory(pushing: true) }
        if said.contains("[rejected]") || said.contains("non-fast-forward") || said.contains("fetch first") {
            throw TransferError.rejected(
                url: RemoteURL.redacted(url), reference: reference, reason: "the remote has commits this clone lacks")
        }
        throw TransferError.gitFailed(url: RemoteURL.redacted(url), command: "git push", said: said)
    }

    /// Pushes a local reference to the same name on the remote; a rejected update throws `TransferError.rejected`.
    public func push(remote name: String, reference: String, options: TransferOptions) throws {
        try push(remote: name, refspec: "\(reference):\(reference)", reference: reference, options: options)
    }

    func push(remote name: String, refspec: String, reference: String, options: TransferOptions) throws {
        if shallowCommits() != nil { return try pushThroughGit(remote: name, refspec: refspec, reference: reference) }
        // NB: libgit2 1.5 reads one `pushurl` (the last); git pushes to each, in order, and so does this.
        let pushURLs = try configValues("remote.\(name).pushurl")
        for url in pushURLs.count > 1 ? pushURLs.map(Optional.some) : [nil] {
            try push(remote: name, refspec: refspec, reference: reference, options: options, pushURL: url)
        }
    }

    private func push(
        remote name: String, refspec: String, reference: String, options: TransferOptions, pushURL: String?
    ) throws {
        try withRemote(name) { remote in
            if let pushURL {
                try check(git_remote_set_instance_pushurl(remote, pushURL), "git_remote_set_instance_pushurl")
            }
            // NB: the push goes to the pushurl, when there is one: its transport (ssh, git on this machine), host and
            // credentials are the ones to use, not the fetch url's (a folder pushurl beside an ssh url was sent to
            // ssh, which took it for an address, so writers' references never left or went).
            let url = git_remote_pushurl(remote).map { String(cString: $0) } ?? String(cString: git_remote_url(remote))
            let context = TransferContext(options: options, url: url, folder: workdir)
            if context.isCancelled { throw TransferError.cancelled(url: context.url) }
            if try pushedToFolder(remote, refspec: refspec, reference: reference, context: context) { return }
            var pushOptions = git_push_options()
            try check(git_push_options_init(&pushOptions, UInt32(GIT_PUSH_OPTIONS_VERSION)), "git_push_options_init")
            context.install(into: &pushOptions.callbacks, pushing: true)
            pushOptions.proxy_opts = context.proxyOptions()
            // NB: libgit2 builds the pack it sends on one thread unless told; 0 is one per core, as git does.
            pushOptions.pb_parallelism = 0
            let code = withStrArray([refspec]) { refspecs in
                var refspecs = refspecs
                return git_remote_push(remote, &refspecs, &pushOptions)
            }
            git_remote_disconnect(remote)
            var failure: TransferError?
            if code < 0 {
                failure = context.classify(lastError(code, "git_remote_push"), pushing: reference)
            } else if let rejected = context.rejected {
                failure = context.refusal(of: rejected.reference, reason: rejected.reason)
            }
            try context.conclude(failure)
        }
    }

    /// When the remote is a repository on this machine that Docket's own
    /// copier writes to, checks that it holds all that `reference` there
    /// names (once, then what is new) and copies from here what it lacks, as
    /// a push would before sending anything: for a sync with nothing to push.
    public func repairFolderRemote(_ name: String, local: String, to remoteBranch: String, options: TransferOptions)
        throws
    {
        try withRemote(name) { remote in
            let context = TransferContext(
                options: options, url: String(cString: git_remote_url(remote)), folder: workdir)
            if context.isCancelled { throw TransferError.cancelled(url: context.url) }
            _ = try pushedToFolder(
                remote, refspec: "\(local):\(remoteBranch)", reference: remoteBranch, context: context, repairOnly: true
            )
        }
    }

    /// Pushes to a bare repository on this machine itself when it can
    /// (`pushToFolder`), then moves the remote-tracking branch as libgit2's
    /// push does; false when `git receive-pack` or libgit2 is to push.
    /// `repairOnly`: the remote is checked, and repaired, but its branch is not moved.
    private func pushedToFolder(
        _ remote: OpaquePointer, refspec: String, reference: String, context: TransferContext,
        repairOnly: Bool = false
    ) throws -> Bool {
        let url = git_remote_pushurl(remote).map { String(cString: $0) } ?? String(cString: git_remote_url(remote))
        let sides = refspec.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard let folder = RemoteURL.localPath(url), sides.count == 2, !sides[0].hasPrefix("+"),
            sides[1].hasPrefix("refs/heads/"),
            let local = try self.reference(sides[0])
        else { return false }
        let outcome: FolderPush
        do {
            outcome = try pushToFolder(
                folder, local: local, remoteReference: sides[1], git: context.settings.git, repairOnly: repairOnly,
                progress: context.progress.report, notice: context.warn)
        } catch let error as LackingObjects {
            try context.conclude(.lackingObjects(url: context.url, side: .remote, absent: error.absent))
            return true
        } catch let error as ObjectTooLarge {
            try context.conclude(.tooLarge(url: context.url, object: error.id, size: error.size))
            return true
        } catch let error as GitError {
            // NB: another push holding the branch's lock file is one about to move it (a lock a killed push left
            // behind is found in the remote's folder and cleared by the store); both are for a pull and a new push.
            let failure =
                error.code == GIT_EMODIFIED.rawValue
                ? TransferError.rejected(
                    url: context.url, reference: reference,
                    reason: "the remote branch moved while pushing (\(error.message))")
                : error.isLocked
                    ? TransferError.rejected(
                        url: context.url, reference: reference,
                        reason: "another push was moving the remote branch (\(error.message))")
                    : context.classify(error)
            try context.conclude(failure)
            return true
        }
        guard outcome != .leftToGit else { return false }
        if repairOnly { return true }
        for index in 0..<git_remote_refspec_count(remote) {
            let spec = git_remote_get_refspec(remote, index)
            guard git_refspec_direction(spec) == GIT_DIRECTION_FETCH, git_refspec_src_matches(spec, sides[1]) != 0
            else { continue }
            var tracking = git_buf()
            defer { git_buf_dispose(&tracking) }
            try check(git_refspec_transform(&tracking, spec, sides[1]), "git_refspec_transform")
            try setReference(String(cString: tracking.ptr), to: local, message: "update by push")
        }
        try context.conclude(nil)
        return true
    }
}

extension TransferContext {

    /// Ends a transfer: tells credential helpers how it went, passes on what the
    /// server said when it worked, and throws its failure.
    func conclude(_ failure: TransferError?) throws {
        finished(failure)
        if let failure { throw failure }
        tellServerLines()
    }

    /// A reference update the server refused: "someone pushed first" only when that is what it said.
    func refusal(of reference: String, reason: String) -> TransferError {
        let lower = reason.lowercased()
        // NB: the server's words name a lock file it could not take, which Docket may clear when it is on this machine.
        // So do words saying another push moved the branch first ("cannot lock ref …: reference already exists",
        // "… is at X but expected Y"), which only a pull and a new push can answer.
        let said = serverLines.filter { line in
            [".lock'", "cannot lock ref", "but expected"].contains(where: line.contains)
        }
        if ["non-fast-forward", "fetch first", "stale info", "failed to lock", "cannot lock ref", "already exists"]
            .contains(where: lower.contains)
            || !said.isEmpty
        {
            return .rejected(url: url, reference: reference, reason: ([reason] + said).joined(separator: ": "))
        }
        return .declined(url: url, reference: reference, reason: reason, serverSaid: serverLines)
    }
}
