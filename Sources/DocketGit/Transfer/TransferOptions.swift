import DocketSystem
import Foundation

/// Which program carries ssh:// and scp-like remotes.
public enum SSHClient: Sendable, Equatable {
    /// The system's OpenSSH (or `GIT_SSH_COMMAND`, `core.sshCommand`, `GIT_SSH`), as git runs it:
    /// `~/.ssh/config`, the agent, every key type, passphrase prompts and known_hosts are its own.
    case openSSH
    /// libssh2 inside libgit2, with the key files and known_hosts file these options name.
    case libssh2
}

/// How to authenticate and what to show while talking to a remote.
public struct TransferOptions: Sendable {
    /// Which program carries ssh (OpenSSH unless told otherwise, or when no `ssh` program exists).
    public var ssh: SSHClient
    /// Called with each line a server sent for a person to read (hook output, warnings); nil shows nothing.
    public var serverMessage: (@Sendable (String) -> Void)?
    /// Called with a warning about how the transfer is made (certificates not checked, a token over plain http).
    public var warning: (@Sendable (String) -> Void)?
    /// Whether git's credential helpers (`git credential fill`) may give the https user and token when none is set.
    public var useCredentialHelpers: Bool
    /// The environment git's settings are read from (`GIT_SSH_COMMAND`, `https_proxy`, `GIT_SSL_CAINFO`, …).
    public var environment: [String: String]
    /// Private key files for ssh through libssh2, used when the agent offers none that works.
    public var sshKeyFiles: [String]
    /// Whether libssh2 asks a running ssh-agent first.
    public var useSSHAgent: Bool
    /// The known_hosts file an ssh host must be listed in, for libssh2 (OpenSSH reads its own).
    public var knownHostsFile: String
    /// The user name for https.
    public var httpsUser: String?
    /// The token (or password) for https; never printed.
    public var httpsToken: String?
    /// Called with transfer progress (objects done, objects in all, bytes); nil shows nothing.
    public var progress: (@Sendable (TransferProgress) -> Void)?
    /// Asked while data moves; true stops the transfer where git allows (between chunks, not inside a write),
    /// and it fails with `TransferError.cancelled`, leaving both sides as a killed transfer would.
    public var isCancelled: (@Sendable () -> Bool)?
    /// Called with each failure's classification and what decided it (for `TransferMessagesSpec`).
    var classified: (@Sendable (TransferClassification) -> Void)?

    /// Options as given.
    public init(
        sshKeyFiles: [String], useSSHAgent: Bool, knownHostsFile: String, httpsUser: String? = nil,
        httpsToken: String? = nil, progress: (@Sendable (TransferProgress) -> Void)? = nil, ssh: SSHClient = .openSSH,
        useCredentialHelpers: Bool = true, environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.ssh = ssh
        self.useCredentialHelpers = useCredentialHelpers
        self.environment = environment
        self.sshKeyFiles = sshKeyFiles
        self.useSSHAgent = useSSHAgent
        self.knownHostsFile = knownHostsFile
        self.httpsUser = httpsUser
        self.httpsToken = httpsToken
        self.progress = progress
    }

    /// Options from the environment: `DOCKET_SSH_KEY`, else `~/.ssh/id_ed25519` and `~/.ssh/id_rsa`;
    /// the agent when `SSH_AUTH_SOCK` is set; `~/.ssh/known_hosts`; `DOCKET_GIT_USERNAME`/`DOCKET_GIT_TOKEN`.
    /// ssh goes through OpenSSH unless `DOCKET_SSH=libssh2`, or no ssh program is found (then the key and
    /// known_hosts settings above are libssh2's).
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment)
        -> TransferOptions
    {
        let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? Home.folder.path
        let keys = environment["DOCKET_SSH_KEY"].map { [$0] } ?? ["\(home)/.ssh/id_ed25519", "\(home)/.ssh/id_rsa"]
        let explicitSSH = ["GIT_SSH_COMMAND", "GIT_SSH"].contains { !(environment[$0] ?? "").isEmpty }
        let ssh: SSHClient =
            environment["DOCKET_SSH"] == "libssh2"
                || !explicitSSH && Executables.find("ssh", environment: environment) == nil ? .libssh2 : .openSSH
        var options = TransferOptions(
            sshKeyFiles: keys, useSSHAgent: environment["SSH_AUTH_SOCK"] != nil,
            knownHostsFile: "\(home)/.ssh/known_hosts",
            httpsUser: environment["DOCKET_GIT_USERNAME"],
            httpsToken: environment["DOCKET_GIT_TOKEN"], progress: nil, ssh: ssh,
            environment: environment)
        // NB: for a failure docket names oddly, and for TransferMessagesSpec, which runs the docket tool where
        // libgit2 must read a scratch $HOME: what decided the classification, on stderr.
        if environment["DOCKET_TRANSFER_TRACE"] == "1" {
            options.classified = { FileHandle.standardError.write(Data("docket: \($0.trace)\n".utf8)) }
        }
        return options
    }
}

/// How far a clone, fetch, push or the checks and writes after them have come.
public struct TransferProgress: Sendable {
    /// What is being done.
    public enum Stage: String, Sendable {
        /// Objects coming from the remote.
        case receiving
        /// Objects going to the remote.
        case sending
        /// Files that came being checked before anything moves.
        case checking
        /// Files being written into the working tree.
        case writing
    }

    /// What is being done.
    public let stage: Stage
    /// Objects (or files) done so far.
    public let objectsDone: Int
    /// Objects (or files) in all; 0 while not yet known.
    public let objectsTotal: Int
    /// Bytes received or sent so far (0 for checking and writing).
    public let bytes: Int

    /// A report of `stage`, as libgit2 or Docket's own checks count it.
    public init(stage: Stage, objectsDone: Int, objectsTotal: Int, bytes: Int = 0) {
        (self.stage, self.objectsDone, self.objectsTotal, self.bytes) = (stage, objectsDone, objectsTotal, bytes)
    }

    /// Whether this is the last report of its stage.
    public var isFinal: Bool { objectsTotal > 0 && objectsDone >= objectsTotal }
}

/// Passes progress on at most ten times a second (and always the last of a
/// stage), so a transfer of 20,000 objects does not flood a terminal.
public final class ProgressThrottle: @unchecked Sendable {
    private let show: ((TransferProgress) -> Void)?
    private var last = Date.distantPast
    private var lastStage: TransferProgress.Stage?
    private var finalShown = false
    /// Threads checking parts of a clone report at once.
    private let lock = NSLock()

    /// A throttle in front of `show`; nil listens to nothing.
    public init(_ show: ((TransferProgress) -> Void)?) {
        self.show = show
    }

    /// Whether anyone listens: callers may skip counting when nobody does.
    public var isListening: Bool { show != nil }

    /// Passes `progress` on (from any thread, one at a time) when a tenth of a second has passed, a stage starts, or a
    /// stage's last figure comes first.
    public func report(_ progress: TransferProgress) {
        guard let show else { return }
        lock.lock()
        defer { lock.unlock() }
        let now = Date()
        let newStage = progress.stage != lastStage
        if newStage { finalShown = false }
        // A stage's last figure shows once: libgit2 repeats it while it indexes what it received.
        let firstFinal = progress.isFinal && !finalShown
        guard newStage || firstFinal || now.timeIntervalSince(last) >= 0.1 else { return }
        if progress.isFinal { finalShown = true }
        last = now
        lastStage = progress.stage
        show(progress)
    }
}
