import Foundation

/// How to authenticate and what to show while talking to a remote.
public struct TransferOptions: Sendable {
    /// A private key file for ssh, used when the agent offers none that works.
    public var sshKeyFiles: [String]
    /// Whether to ask a running ssh-agent first.
    public var useSSHAgent: Bool
    /// The known_hosts file an ssh host must be listed in.
    public var knownHostsFile: String
    /// The user name for https.
    public var httpsUser: String?
    /// The token (or password) for https; never printed.
    public var httpsToken: String?
    /// Called with transfer progress (objects done, objects in all, bytes); nil shows nothing.
    public var progress: (@Sendable (TransferProgress) -> Void)?

    /// Options as given.
    public init(sshKeyFiles: [String], useSSHAgent: Bool, knownHostsFile: String, httpsUser: String? = nil,
                httpsToken: String? = nil, progress: (@Sendable (TransferProgress) -> Void)? = nil) {
        self.sshKeyFiles = sshKeyFiles
        self.useSSHAgent = useSSHAgent
        self.knownHostsFile = knownHostsFile
        self.httpsUser = httpsUser
        self.httpsToken = httpsToken
        self.progress = progress
    }

    /// Options from the environment: `DOCKET_SSH_KEY`, else `~/.ssh/id_ed25519` and `~/.ssh/id_rsa`;
    /// the agent when `SSH_AUTH_SOCK` is set; `~/.ssh/known_hosts`; `DOCKET_GIT_USERNAME`/`DOCKET_GIT_TOKEN`.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> TransferOptions {
        let home = environment["HOME"] ?? NSHomeDirectory()
        let keys = environment["DOCKET_SSH_KEY"].map { [$0] } ?? ["\(home)/.ssh/id_ed25519", "\(home)/.ssh/id_rsa"]
        return TransferOptions(sshKeyFiles: keys, useSSHAgent: environment["SSH_AUTH_SOCK"] != nil,
                               knownHostsFile: "\(home)/.ssh/known_hosts",
                               httpsUser: environment["DOCKET_GIT_USERNAME"], httpsToken: environment["DOCKET_GIT_TOKEN"], progress: nil)
    }
}

/// How far a fetch or push has come.
public struct TransferProgress: Sendable {
    /// Objects received or sent so far.
    public let objectsDone: Int
    /// Objects in all; 0 while not yet known.
    public let objectsTotal: Int
    /// Bytes received or sent so far.
    public let bytes: Int
}
