import DocketCGit2
import Foundation

extension Repository {
    /// Fetches every reference under `prefix` on the remote (`refs/docket/writers/`) into the same names under
    /// `local`, which first loses what it held, so a reference the remote no longer has goes here too; returns
    /// them. Through libgit2, whatever the remote (Docket's folder copier takes branches only); none in a shallow
    /// clone.
    public func fetchReferences(remote name: String, under prefix: String, into local: String, options: TransferOptions)
        throws -> [String: ObjectID]
    {
        guard shallowCommits() == nil else { return [:] }
        for (reference, _) in try references(startingWith: local) { try deleteReference(reference) }
        // NB: FETCH_HEAD names what the branch's fetch brought, as git's does: libgit2 empties it even when told
        // not to write it, so it is put back.
        let fetchHead = URL(fileURLWithPath: gitdir + "FETCH_HEAD")
        let kept = try? Data(contentsOf: fetchHead)
        defer {
            if let kept, (try? Data(contentsOf: fetchHead)) != kept { try? kept.write(to: fetchHead, options: .atomic) }
        }
        try withRemote(name) { remote in
            let context = TransferContext(
                options: options, url: String(cString: git_remote_url(remote)), folder: workdir)
            if context.isCancelled { throw TransferError.cancelled(url: context.url) }
            var fetchOptions = git_fetch_options()
            try check(
                git_fetch_options_init(&fetchOptions, UInt32(GIT_FETCH_OPTIONS_VERSION)), "git_fetch_options_init")
            context.install(into: &fetchOptions.callbacks)
            fetchOptions.proxy_opts = context.proxyOptions()
            // NB: no tags, and nothing written to FETCH_HEAD: this fetch is Docket's own, beside the branch's.
            fetchOptions.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE
            fetchOptions.update_fetchhead = 0
            let code = withStrArray(["+\(prefix)*:\(local)*"]) { refspecs in
                var refspecs = refspecs
                return git_remote_fetch(remote, &refspecs, &fetchOptions, "docket: fetch writers")
            }
            git_remote_disconnect(remote)
            try context.conclude(code < 0 ? context.classify(lastError(code, "git_remote_fetch")) : nil)
        }
        return try references(startingWith: local)
    }

    /// Pushes one refspec through libgit2 (a writer's own reference, or `:<reference>` to delete it), failing as a
    /// branch's push fails.
    public func pushReference(remote name: String, refspec: String, reference: String, options: TransferOptions)
        throws
    {
        try push(remote: name, refspec: refspec, reference: reference, options: options)
    }

    /// Deletes a reference; nothing when there is none.
    public func deleteReference(_ name: String) throws {
        var found: OpaquePointer?
        let code = git_reference_lookup(&found, pointer, name)
        if code == GIT_ENOTFOUND.rawValue { return }
        try check(code, "git_reference_lookup")
        defer { git_reference_free(found) }
        try check(git_reference_delete(found), "git_reference_delete")
    }
}
