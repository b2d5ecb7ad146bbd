import DocketCGit2
import Foundation

/// A configured remote.
public struct RemoteInfo: Equatable, Sendable {
    /// The remote's name, such as origin.
    public let name: String
    /// Its URL or path.
    public let url: String
}

extension Repository {
    /// The configured remotes.
    public func remotes() throws -> [RemoteInfo] {
        var names = git_strarray()
        try check(git_remote_list(&names, pointer), "git_remote_list")
        defer { git_strarray_dispose(&names) }
        return try (0..<names.count).compactMap { index in
            guard let name = names.strings[index].map({ String(cString: $0) }) else { return nil }
            return RemoteInfo(name: name, url: try remoteURL(name))
        }
    }

    /// The URL of a remote.
    public func remoteURL(_ name: String) throws -> String {
        try withRemote(name) { String(cString: git_remote_url($0)) }
    }

    /// Whether git takes `name` as a remote's name (no spaces, no "..", …).
    public static func isValidRemoteName(_ name: String) -> Bool {
        _ = LibGit2Runtime.started
        var valid: Int32 = 0
        return git_remote_name_is_valid(&valid, name) == 0 && valid == 1
    }

    /// Adds a remote with git's default fetch refspec.
    public func addRemote(_ name: String, url: String) throws {
        var remote: OpaquePointer?
        try check(git_remote_create(&remote, pointer, name, url), "git_remote_create")
        git_remote_free(remote)
    }

    /// Removes a remote and its remote-tracking references.
    public func removeRemote(_ name: String) throws {
        try check(git_remote_delete(pointer, name), "git_remote_delete")
    }

    func withRemote<T>(_ name: String, _ body: (OpaquePointer) throws -> T) throws -> T {
        var remote: OpaquePointer?
        try check(git_remote_lookup(&remote, pointer, name), "git_remote_lookup")
        defer { git_remote_free(remote) }
        return try body(remote!)
    }
}

extension Repository {
    /// The branches a remote has and the one its HEAD names, asked of the remote itself.
    public func remoteBranches(remote name: String, options: TransferOptions) throws -> (
        branches: [String], head: String?
    ) {
        try withRemote(name) { remote in
            try Self.branches(
                of: remote,
                context: TransferContext(
                    options: options, url: String(cString: git_remote_url(remote)), folder: workdir))
        }
    }

    /// The branches a remote has, and the one its HEAD names, asked over a connection of its own.
    static func branches(of remote: OpaquePointer, context: TransferContext) throws -> (
        branches: [String], head: String?
    ) {
        var callbacks = git_remote_callbacks()
        try check(
            git_remote_init_callbacks(&callbacks, UInt32(GIT_REMOTE_CALLBACKS_VERSION)), "git_remote_init_callbacks")
        context.install(into: &callbacks)
        var proxy = context.proxyOptions()
        let code = git_remote_connect(remote, GIT_DIRECTION_FETCH, &callbacks, &proxy, nil)
        if code < 0 {
            git_remote_disconnect(remote)
            let failure = context.classify(lastError(code, "git_remote_connect"))
            context.finished(failure)
            throw failure
        }
        defer {
            git_remote_disconnect(remote)
            context.finished(nil)
        }
        return try listedBranches(of: remote)
    }

    /// The branches a connected remote listed, and the one its HEAD names.
    static func listedBranches(of remote: OpaquePointer) throws -> (branches: [String], head: String?) {
        var heads: UnsafeMutablePointer<UnsafePointer<git_remote_head>?>?
        var count = 0
        try check(git_remote_ls(&heads, &count, remote), "git_remote_ls")
        var branches: [String] = []
        var head: String?
        for i in 0..<count {
            guard let entry = heads?[i]?.pointee else { continue }
            let refName = String(cString: entry.name)
            if refName == "HEAD", let target = entry.symref_target {
                head = String(String(cString: target).dropFirst("refs/heads/".count))
            } else if refName.hasPrefix("refs/heads/") {
                branches.append(String(refName.dropFirst("refs/heads/".count)))
            }
        }
        return (branches.sorted(), head)
    }

    /// Pushes `local` to the remote's `remoteBranch` (a full reference name each).
    public func push(remote name: String, local: String, to remoteBranch: String, options: TransferOptions) throws {
        try push(remote: name, refspec: "\(local):\(remoteBranch)", reference: remoteBranch, options: options)
    }
}
