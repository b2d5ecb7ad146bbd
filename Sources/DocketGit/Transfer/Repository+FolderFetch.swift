import DocketCGit2
import DocketSystem
import Foundation

extension Repository {
    /// Fetches from a repository on this machine itself when it can: copies
    /// the objects this one lacks, flushes them to disk, then moves the
    /// remote-tracking branches and writes `FETCH_HEAD` as libgit2's fetch
    /// does. False when libgit2 is to fetch: a remote that is not a path or is
    /// shallow; a refspec other than a forced one from `refs/heads/` into
    /// `refs/remotes/`; pruning asked for (`fetch.prune`); every tag asked for
    /// (`remote.<name>.tagOpt`) and one of the remote's this repository does not have the same; a symbolic branch; or anything
    /// that does not read as expected (libgit2 then says what it makes of it).
    ///
    /// NB: libgit2's local transport serves a fetch as a server would: it
    /// builds a pack with a delta search over every object sent (about 20 ms
    /// of a pull at 1,000 items and 340 ms at 100,000), and its indexer then
    /// inflates and hashes each object again. What this repository lacks is
    /// known without a search (`objectsMissing`), as for a push to a folder.
    func fetchedFromFolder(_ remote: OpaquePointer, only: String? = nil, context: TransferContext) throws -> Bool {
        guard let folder = RemoteURL.localPath(context.url), folder.hasPrefix("/"),
            git_repository_is_shallow(pointer) == 0,
            let plan = try? FolderFetchPlan(remote, into: self, from: folder, only: only)
        else { return false }
        // What this store's own references name is taken as whole, as git takes it: checked once, and
        // repaired from the remote where it is not.
        try repair(from: plan.source, context: context)
        if !plan.wanted.isEmpty {
            do {
                try plan.source.copyObjects(
                    to: self, upTo: plan.wanted, known: plan.known, unpackLimit: plan.unpackLimit
                ) { done, total, bytes in
                    context.progress.report(
                        TransferProgress(stage: .receiving, objectsDone: done, objectsTotal: total, bytes: bytes))
                }
            } catch let error as LackingObjects {
                try context.conclude(.lackingObjects(url: context.url, side: .remote, absent: error.absent))
            } catch let error as ObjectTooLarge {
                try context.conclude(.tooLarge(url: context.url, object: error.id, size: error.size))
            } catch let error as GitError {
                try context.conclude(context.classify(error))
            }
        }
        Fault.point("after-fetch-objects")
        for update in plan.updates {
            if try reference(update.tracking) != update.id {
                try setReference(update.tracking, to: update.id, message: "docket: fetch")
            }
        }
        try writeFetchHead(plan.updates, url: context.url)
        noteWhole(plan.ours + plan.wanted, of: ".")
        try context.conclude(nil)
        return true
    }

    /// When the remote is a repository on this machine, checks that this one
    /// holds all that its own references name (once, then what is new) and
    /// copies from the remote what it lacks: first thing in a sync or pull,
    /// before a status or commit reads a tree an earlier copier left out.
    public func repairFromFolderRemote(_ name: String, options: TransferOptions) throws {
        try withRemote(name) { remote in
            let context = TransferContext(
                options: options, url: String(cString: git_remote_url(remote)), folder: workdir)
            guard let folder = RemoteURL.localPath(context.url), folder.hasPrefix("/"),
                git_repository_is_shallow(pointer) == 0
            else { return }
            var opened: OpaquePointer?
            guard git_repository_open_ext(&opened, folder, GIT_REPOSITORY_OPEN_NO_SEARCH.rawValue, nil) == 0, let opened
            else { return }
            try repair(from: Repository(owning: opened), context: context)
        }
    }

    /// Makes what this repository's references name whole from `source`, saying what it copied.
    private func repair(from source: Repository, context: TransferContext) throws {
        guard let ours = try directReferences() else { return }
        let commits = Array(Set(ours.direct.values).filter { (try? objectHeader($0))?.type == GIT_OBJECT_COMMIT })
        do {
            try makeWhole(under: commits, from: source, notedIn: self, as: ".") { count in
                context.warn(
                    "repaired this store: copied \(count) object\(count == 1 ? "" : "s") it lacked under its branches from \(context.url)"
                )
            }
        } catch let error as LackingObjects {
            try context.conclude(.lackingObjects(url: context.url, side: .local, absent: error.absent))
        }
    }

    /// Writes `FETCH_HEAD` as libgit2 writes it: one line per branch fetched,
    /// the one HEAD's branch merges from first, the others by name and "not-for-merge".
    private func writeFetchHead(_ updates: [FolderFetchPlan.Update], url: String) throws {
        var merged: String?
        // NB: as libgit2, only a branch with a commit merges from one (git_reference_resolve fails on an unborn HEAD).
        if try head() != nil, let branch = try headBranch() {
            var upstream = git_buf()
            defer { git_buf_dispose(&upstream) }
            if git_branch_upstream_name(&upstream, pointer, branch) == 0 { merged = String(cString: upstream.ptr) }
        }
        let lines = updates.map { update in
            let forMerge = update.tracking == merged
            let name =
                update.remote.hasPrefix("refs/heads/")
                ? "branch '\(update.remote.dropFirst("refs/heads/".count))'" : "'\(update.remote)'"
            return (forMerge, update.remote, "\(update.id)\t\(forMerge ? "" : "not-for-merge")\t\(name) of \(url)\n")
        }.sorted { ($0.0 ? 0 : 1, $0.1) < ($1.0 ? 0 : 1, $1.1) }
        try AtomicFile.write(Data(lines.map(\.2).joined().utf8), to: gitdir + "FETCH_HEAD", durable: false)
    }
}

/// What a fetch from a repository on this machine copies and moves; nil
/// when it is libgit2's to do (see `Repository.fetchedFromFolder`).
private struct FolderFetchPlan {
    /// A branch of the remote and the remote-tracking branch it goes to.
    struct Update {
        let remote: String
        let tracking: String
        let id: ObjectID
    }

    let source: Repository
    let updates: [Update]
    /// The commits the fetching repository's references name.
    let ours: [ObjectID]
    /// The commits the remote's branches name that those are not.
    let wanted: [ObjectID]
    /// Those of `ours` the remote has too.
    let known: [ObjectID]
    /// Fewer objects than this are written loose (`fetch.unpackLimit`, `transfer.unpackLimit`, 100).
    let unpackLimit: Int

    init?(_ remote: OpaquePointer, into local: Repository, from folder: String, only: String? = nil) throws {
        let name = String(cString: git_remote_name(remote))
        if try local.configBool("remote.\(name).prune") ?? local.configBool("fetch.prune") ?? false { return nil }
        var specs: [OpaquePointer] = []
        for index in 0..<git_remote_refspec_count(remote) {
            guard let spec = git_remote_get_refspec(remote, index), git_refspec_direction(spec) == GIT_DIRECTION_FETCH
            else { continue }
            guard git_refspec_force(spec) == 1, String(cString: git_refspec_src(spec)).hasPrefix("refs/heads/"),
                String(cString: git_refspec_dst(spec)).hasPrefix("refs/remotes/")
            else { return nil }
            specs.append(spec)
        }
        var opened: OpaquePointer?
        guard !specs.isEmpty,
            git_repository_open_ext(&opened, folder, GIT_REPOSITORY_OPEN_NO_SEARCH.rawValue, nil) == 0,
            let opened
        else { return nil }
        let source = Repository(owning: opened)
        self.source = source
        guard git_repository_is_shallow(source.pointer) == 0,
            let served = try source.directReferences(), let held = try local.directReferences(),
            !served.symbolic.contains(where: { $0.hasPrefix("refs/heads/") || $0.hasPrefix("refs/tags/") })
        else { return nil }

        var updates: [Update] = []
        for (reference, id) in served.direct.sorted(by: { $0.key < $1.key })
        where reference.hasPrefix("refs/heads/") && (only ?? reference) == reference {
            for spec in specs where git_refspec_src_matches(spec, reference) != 0 {
                var tracking = git_buf()
                defer { git_buf_dispose(&tracking) }
                try check(git_refspec_transform(&tracking, spec, reference), "git_refspec_transform")
                updates.append(Update(remote: reference, tracking: String(cString: tracking.ptr), id: id))
            }
        }
        // Tags asked for (`remote.<name>.tagOpt` is `--tags`) that libgit2 would fetch: its to fetch.
        if git_remote_autotag(remote) == GIT_REMOTE_DOWNLOAD_TAGS_ALL,
            served.direct.contains(where: { $0.key.hasPrefix("refs/tags/") && held.direct[$0.key] != $0.value })
        {
            return nil
        }
        guard !updates.isEmpty else { return nil }
        self.updates = updates

        // NB: a commit being here is not taken as having what it holds (as libgit2's fetch takes it): a
        // `git fetch` killed while `git unpack-objects` wrote objects one by one, commits first, may have
        // left it without its tree. What a reference here names is whole.
        ours = Array(Set(held.direct.values).filter { (try? local.objectHeader($0))?.type == GIT_OBJECT_COMMIT })
        wanted = Array(Set(updates.map(\.id)).subtracting(ours))
        // What this repository has, as far as the remote knows it: the commits its references name.
        // NB: each is not also looked up here: a lookup of a missing object took 60–300 µs (a path walk
        // to a loose file), and one this repository has already is only written twice.
        known = wanted.isEmpty ? [] : self.ours.filter { (try? source.objectHeader($0))?.type == GIT_OBJECT_COMMIT }
        unpackLimit = try local.configInt("fetch.unpackLimit") ?? local.configInt("transfer.unpackLimit") ?? 100
    }
}

extension Repository {
    /// Every reference under `refs/` and the object it names, and the names
    /// of those that are symbolic; nil when one does not read.
    fileprivate func directReferences() throws -> (direct: [String: ObjectID], symbolic: [String])? {
        var iterator: OpaquePointer?
        try check(git_reference_iterator_new(&iterator, pointer), "git_reference_iterator_new")
        defer { git_reference_iterator_free(iterator) }
        var direct: [String: ObjectID] = [:]
        var symbolic: [String] = []
        var ref: OpaquePointer?
        while true {
            let code = git_reference_next(&ref, iterator)
            if code == GIT_ITEROVER.rawValue { return (direct, symbolic) }
            guard code == 0 else { return nil }
            defer { git_reference_free(ref) }
            let name = String(cString: git_reference_name(ref))
            if let id = ObjectID(git_reference_target(ref)) { direct[name] = id } else { symbolic.append(name) }
        }
    }
}
