import CGit2
import DocketSystem
import Foundation

extension Repository {
    /// Fetches from a repository on this machine itself when it can: copies
    /// the objects this one lacks, flushes them to disk, then moves the
    /// remote-tracking branches and writes `FETCH_HEAD` as libgit2's fetch
    /// does. False when libgit2 is to fetch: a remote that is not a path or is
    /// shallow; a refspec other than a forced one from `refs/heads/` into
    /// `refs/remotes/`; pruning asked for (`fetch.prune`); a tag of the remote
    /// this repository does not have the same; a symbolic branch; or anything
    /// that does not read as expected (libgit2 then says what it makes of it).
    ///
    /// NB: libgit2's local transport serves a fetch as a server would: it
    /// builds a pack with a delta search over every object sent (about 20 ms
    /// of a pull at 1,000 items and 340 ms at 100,000), and its indexer then
    /// inflates and hashes each object again. What this repository lacks is
    /// known without a search (`objectsMissing`), as for a push to a folder.
    func fetchedFromFolder(_ remote: OpaquePointer, context: TransferContext) throws -> Bool {
        guard let folder = RemoteURL.localPath(context.url), folder.hasPrefix("/"), git_repository_is_shallow(pointer) == 0,
              let plan = try? FolderFetchPlan(remote, into: self, from: folder) else { return false }
        if !plan.objects.isEmpty {
            do {
                try writingObjectsTogether {
                    let report = { (done: Int, bytes: Int) in
                        context.progress.report(TransferProgress(stage: .receiving, objectsDone: done, objectsTotal: plan.objects.count, bytes: bytes))
                    }
                    if plan.objects.count < plan.unpackLimit {
                        try writeLoose(plan.objects, from: plan.source, report: report)
                    } else {
                        try writePack(plan.objects, from: plan.source, report: report)
                    }
                }
            } catch let error as GitError {
                try context.conclude(context.classify(error))
            }
        }
        Fault.point("after-fetch-objects")
        for update in plan.updates {
            if try reference(update.tracking) != update.id { try setReference(update.tracking, to: update.id, message: "docket: fetch") }
        }
        try writeFetchHead(plan.updates, url: context.url)
        try context.conclude(nil)
        return true
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
            let name = update.remote.hasPrefix("refs/heads/") ? "branch '\(update.remote.dropFirst("refs/heads/".count))'" : "'\(update.remote)'"
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
    /// The objects the fetching repository lacks.
    let objects: [Outgoing]
    /// Fewer objects than this are written loose (`fetch.unpackLimit`, `transfer.unpackLimit`, 100).
    let unpackLimit: Int

    init?(_ remote: OpaquePointer, into local: Repository, from folder: String) throws {
        let name = String(cString: git_remote_name(remote))
        if try local.configBool("remote.\(name).prune") ?? local.configBool("fetch.prune") ?? false { return nil }
        var specs: [OpaquePointer] = []
        for index in 0..<git_remote_refspec_count(remote) {
            guard let spec = git_remote_get_refspec(remote, index), git_refspec_direction(spec) == GIT_DIRECTION_FETCH else { continue }
            guard git_refspec_force(spec) == 1, String(cString: git_refspec_src(spec)).hasPrefix("refs/heads/"),
                  String(cString: git_refspec_dst(spec)).hasPrefix("refs/remotes/") else { return nil }
            specs.append(spec)
        }
        var opened: OpaquePointer?
        guard !specs.isEmpty, git_repository_open_ext(&opened, folder, GIT_REPOSITORY_OPEN_NO_SEARCH.rawValue, nil) == 0,
              let opened else { return nil }
        let source = Repository(owning: opened)
        self.source = source
        guard git_repository_is_shallow(source.pointer) == 0,
              let served = try source.directReferences(), let ours = try local.directReferences(),
              !served.symbolic.contains(where: { $0.hasPrefix("refs/heads/") || $0.hasPrefix("refs/tags/") }) else { return nil }

        var updates: [Update] = []
        for (reference, id) in served.direct.sorted(by: { $0.key < $1.key }) where reference.hasPrefix("refs/heads/") {
            for spec in specs where git_refspec_src_matches(spec, reference) != 0 {
                var tracking = git_buf()
                defer { git_buf_dispose(&tracking) }
                try check(git_refspec_transform(&tracking, spec, reference), "git_refspec_transform")
                updates.append(Update(remote: reference, tracking: String(cString: tracking.ptr), id: id))
            }
        }
        // Tags libgit2 would fetch (or might, following them): its to fetch.
        if git_remote_autotag(remote) != GIT_REMOTE_DOWNLOAD_TAGS_NONE,
           served.direct.contains(where: { $0.key.hasPrefix("refs/tags/") && ours.direct[$0.key] != $0.value }) { return nil }
        guard !updates.isEmpty else { return nil }
        self.updates = updates

        // NB: a commit being here is not taken as having what it holds (as libgit2's fetch takes it): a
        // `git fetch` killed while `git unpack-objects` wrote objects one by one, commits first, may have
        // left it without its tree. What a reference here names is whole.
        let wanted = Set(updates.map(\.id)).subtracting(ours.direct.values)
        if wanted.isEmpty {
            objects = []
        } else {
            // What this repository has, as far as the remote knows it: the commits its references name.
            let known = Set(ours.direct.values).filter { (try? source.objectHeader($0))?.type == GIT_OBJECT_COMMIT }
            // NB: each is not also looked up here: a lookup of a missing object took 60–300 µs (a path walk
            // to a loose file), and one this repository has already is only written twice.
            objects = try source.objectsMissing(upTo: Array(wanted), known: Array(known))
        }
        unpackLimit = try local.configInt("fetch.unpackLimit") ?? local.configInt("transfer.unpackLimit") ?? 100
    }
}

private extension Repository {
    /// Every reference under `refs/` and the object it names, and the names
    /// of those that are symbolic; nil when one does not read.
    func directReferences() throws -> (direct: [String: ObjectID], symbolic: [String])? {
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
