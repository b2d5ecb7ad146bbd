import DocketCGit2
import Foundation

// A clone costs what the branch a store follows costs, however many branches and tags the remote has: it takes
// that branch (and the references `mirror` names) without tags, over one connection, while its configuration is a
// plain `git clone`'s, so `git fetch` still takes every branch.
extension Repository {
    /// git's fetch refspec for a clone's `origin`.
    static let defaultFetchRefspec = "+refs/heads/*:refs/remotes/origin/*"

    /// Clones `url` into `path`, checking out its default branch unless `checkout` is false
    /// (then the working tree stays empty, for the caller to check what came before checking it out).
    ///
    /// Only the branch a store would follow is fetched (the one the remote's HEAD names, else `main`, else
    /// its only branch), with the references `mirror` names and no tags: a remote's other branches and its tags
    /// cost nothing. `remote.origin.fetch` is git's usual one.
    public static func clone(
        url: String, to path: String, mirror: MirroredReferences? = nil, options: TransferOptions,
        checkout: Bool = true
    ) throws -> Repository {
        _ = LibGit2Runtime.started
        let context = TransferContext(options: options, url: url)
        if context.isCancelled { throw TransferError.cancelled(url: context.url) }
        if RemoteURL.localPath(url) != nil {
            return try cloneFolder(url: url, to: path, mirror: mirror, options: options, checkout: checkout)
        }
        var initOptions = git_repository_init_options()
        try check(
            git_repository_init_options_init(&initOptions, UInt32(GIT_REPOSITORY_INIT_OPTIONS_VERSION)),
            "git_repository_init_options_init")
        initOptions.flags = GIT_REPOSITORY_INIT_MKPATH.rawValue | GIT_REPOSITORY_INIT_NO_REINIT.rawValue
        let existed = FileManager.default.fileExists(atPath: path)
        var repo: OpaquePointer?
        try check(git_repository_init_ext(&repo, path, &initOptions), "git_repository_init_ext")
        let repository = Repository(owning: repo!)
        do {
            try repository.cloneFetch(url: url, mirror: mirror, context: context, checkout: checkout)
        } catch {
            // NB: as libgit2's own clone, a failed one leaves nothing behind.
            try? FileManager.default.removeItem(
                atPath: existed ? (path as NSString).appendingPathComponent(".git") : path)
            throw error
        }
        return repository
    }

    /// The branch a clone follows among a remote's: the one its HEAD names, else `main`, else its only one.
    static func branchToFollow(_ branches: [String], head: String?) -> String? {
        head.flatMap { branches.contains($0) ? $0 : nil }
            ?? (branches.contains("main") ? "main" : branches.count == 1 ? branches[0] : nil)
    }

    /// A new repository's `origin` at `url`, its followed branch fetched, made its branch and checked out
    /// (unless `checkout` is false), as `git clone` does; one connection lists the remote's references and fetches.
    func cloneFetch(url: String, mirror: MirroredReferences?, context: TransferContext, checkout: Bool) throws {
        var created: OpaquePointer?
        try check(git_remote_create(&created, pointer, "origin", url), "git_remote_create")
        defer { git_remote_free(created) }
        let remote = created!
        var callbacks = git_remote_callbacks()
        try check(
            git_remote_init_callbacks(&callbacks, UInt32(GIT_REMOTE_CALLBACKS_VERSION)), "git_remote_init_callbacks")
        context.install(into: &callbacks)
        var proxy = context.proxyOptions()
        let code = git_remote_connect(remote, GIT_DIRECTION_FETCH, &callbacks, &proxy, nil)
        if code < 0 {
            git_remote_disconnect(remote)
            try context.conclude(context.classify(lastError(code, "git_remote_connect")))
        }
        let (branches, head) = try Self.listedBranches(of: remote)
        let followed = Self.branchToFollow(branches, head: head)
        // NB: the fetch reuses the connection the listing opened (libgit2 connects only a remote that is not).
        var specs = [followed.map { "+refs/heads/\($0):refs/remotes/origin/\($0)" } ?? Self.defaultFetchRefspec]
        if let mirror { specs.append(mirror.refspec) }
        try fetch(specs, from: remote, tags: false, context: context, message: "clone: from \(url)")
        if let mirror { try dropFromFetchHead(mirror) }
        guard let followed, let tip = try reference("refs/remotes/origin/\(followed)") else { return }
        if head == followed {
            // NB: origin/HEAD names the branch the remote's HEAD names, as git's clone and libgit2's leave it.
            var symbolic: OpaquePointer?
            try check(
                git_reference_symbolic_create(
                    &symbolic, pointer, "refs/remotes/origin/HEAD", "refs/remotes/origin/\(followed)", 1,
                    "clone: from \(url)"),
                "git_reference_symbolic_create")
            git_reference_free(symbolic)
        }
        try setReference("refs/heads/\(followed)", to: tip, message: "clone: from \(url)")
        try setHead("refs/heads/\(followed)")
        try setConfig("branch.\(followed).remote", to: "origin")
        try setConfig("branch.\(followed).merge", to: "refs/heads/\(followed)")
        if checkout { try self.checkout(tip, force: true) }
    }

    /// A clone of a repository on this machine, through libgit2's own clone, which links its objects rather than
    /// packing them; the remote's branches are listed first over a connection of their own (it is local).
    static func cloneFolder(
        url: String, to path: String, mirror: MirroredReferences?, options: TransferOptions, checkout: Bool
    ) throws -> Repository {
        let context = TransferContext(options: options, url: url)
        var cloneOptions = git_clone_options()
        try check(git_clone_options_init(&cloneOptions, UInt32(GIT_CLONE_OPTIONS_VERSION)), "git_clone_options_init")
        // NB: asked first over a connection of its own; when that fails, the clone says why.
        var detached: OpaquePointer?
        var fetchspec: UnsafeMutablePointer<CChar>?
        defer { free(fetchspec) }
        if git_remote_create_detached(&detached, url) == 0, let detached {
            defer { git_remote_free(detached) }
            if let (branches, head) = try? branches(of: detached, context: TransferContext(options: options, url: url)),
                let branch = branchToFollow(branches, head: head)
            {
                fetchspec = strdup("+refs/heads/\(branch):refs/remotes/origin/\(branch)")
                cloneOptions.remote_cb_payload = UnsafeMutableRawPointer(fetchspec)
                cloneOptions.remote_cb = { out, repository, name, url, payload in
                    git_remote_create_with_fetchspec(
                        out, repository, name, url, payload?.assumingMemoryBound(to: CChar.self))
                }
            }
        }
        context.install(into: &cloneOptions.fetch_opts.callbacks)
        cloneOptions.fetch_opts.proxy_opts = context.proxyOptions()
        cloneOptions.fetch_opts.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE
        if !checkout { cloneOptions.checkout_opts.checkout_strategy = GIT_CHECKOUT_NONE.rawValue }
        var repo: OpaquePointer?
        let code = git_clone(&repo, url, path, &cloneOptions)
        try context.conclude(code < 0 ? context.classify(lastError(code, "git_clone")) : nil)
        let repository = Repository(owning: repo!)
        try repository.setConfigValues("remote.origin.fetch", to: defaultFetchRefspec)
        if let mirror {
            try repository.withRemote("origin") { remote in
                try repository.fetch(mirror, from: remote, context: TransferContext(options: options, url: url))
            }
        }
        return repository
    }
}
