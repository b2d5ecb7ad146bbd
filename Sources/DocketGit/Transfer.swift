import CGit2
import Foundation
#if canImport(Glibc)
import Glibc
#endif

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

/// Why talking to a remote failed, in the terms a person can act on.
public enum TransferError: Error, CustomStringConvertible, Equatable {
    case authentication(url: String, detail: String)
    case unknownHost(host: String, knownHosts: String)
    case hostKeyMismatch(host: String, knownHosts: String)
    case unreachable(url: String, detail: String)
    case missingRepository(url: String, detail: String)
    case interrupted(url: String, detail: String)
    case rejected(url: String, reference: String, reason: String)
    case other(url: String, error: GitError)

    public var description: String {
        switch self {
        case let .authentication(url, detail):
            "\(url) did not accept the credentials (\(detail)); check the ssh key or agent (DOCKET_SSH_KEY), or DOCKET_GIT_USERNAME and DOCKET_GIT_TOKEN for https"
        case let .unknownHost(host, knownHosts):
            "the ssh host \(host) is not in \(knownHosts); if you trust it, add its key with 'ssh-keyscan \(host) >> \(knownHosts)' (or connect once with ssh), then try again"
        case let .hostKeyMismatch(host, knownHosts):
            "the ssh host \(host) showed a key that differs from the one in \(knownHosts); someone may be in between; if the host's key really changed, remove its old line ('ssh-keygen -R \(host)') and add the new one"
        case let .unreachable(url, detail):
            "cannot reach \(url) (\(detail)); check the address and the network, then try again"
        case let .missingRepository(url, detail):
            "there is no git repository at \(url) (\(detail)); check the address, or create the repository there (for example 'git init --bare')"
        case let .interrupted(url, detail):
            "the connection to \(url) broke off during the transfer (\(detail)); nothing was changed here, so try again"
        case let .rejected(url, reference, reason):
            "\(url) refused the update of \(reference) (\(reason)); someone pushed first: run 'docket pull' or 'docket sync', then push again"
        case let .other(url, error):
            "talking to \(url) failed: \(error.message)"
        }
    }
}

/// What the C callbacks of one transfer share.
final class TransferContext {
    let options: TransferOptions
    let url: String
    var triedAgent = false
    var triedKeys = 0
    var triedUserPass = false
    var hostProblem: TransferError?
    var rejected: (reference: String, reason: String)?
    let started = Date()

    init(options: TransferOptions, url: String) {
        // Only https needs the certificates (http may redirect there).
        if url.lowercased().hasPrefix("http") { _ = LibGit2Runtime.privateCertificates }
        self.options = options
        self.url = url
    }

    var pointer: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
    static func from(_ payload: UnsafeMutableRawPointer?) -> TransferContext { Unmanaged<TransferContext>.fromOpaque(payload!).takeUnretainedValue() }

    /// Fills libgit2's callbacks for this transfer.
    func install(into callbacks: inout git_remote_callbacks) {
        callbacks.payload = pointer
        callbacks.credentials = { out, _, usernameFromURL, allowed, payload in
            TransferContext.from(payload).credential(out, user: usernameFromURL.map { String(cString: $0) }, allowed: allowed)
        }
        callbacks.certificate_check = { cert, valid, host, payload in
            TransferContext.from(payload).checkCertificate(cert, valid: valid, host: host.map { String(cString: $0) } ?? "")
        }
        callbacks.transfer_progress = { stats, payload in
            guard let stats = stats?.pointee else { return 0 }
            let context = TransferContext.from(payload)
            context.report(TransferProgress(objectsDone: Int(stats.received_objects), objectsTotal: Int(stats.total_objects), bytes: Int(stats.received_bytes)))
            return 0
        }
        callbacks.push_transfer_progress = { current, total, bytes, payload in
            TransferContext.from(payload).report(TransferProgress(objectsDone: Int(current), objectsTotal: Int(total), bytes: Int(bytes)))
            return 0
        }
        callbacks.push_update_reference = { reference, status, payload in
            if let status {
                TransferContext.from(payload).rejected = (reference.map { String(cString: $0) } ?? "", String(cString: status))
            }
            return 0
        }
    }

    func report(_ progress: TransferProgress) {
        guard let show = options.progress, Date().timeIntervalSince(started) > 1 else { return }
        show(progress)
    }

    // NB: libgit2 asks again after each refused credential; every method is
    // offered once, then the transfer fails as an authentication error
    // instead of looping.
    func credential(_ out: UnsafeMutablePointer<UnsafeMutablePointer<git_credential>?>?, user: String?, allowed: UInt32) -> Int32 {
        if allowed & GIT_CREDENTIAL_SSH_KEY.rawValue != 0 {
            let name = user ?? NSUserName()
            if options.useSSHAgent && !triedAgent {
                triedAgent = true
                if git_credential_ssh_key_from_agent(out, name) == 0 { return 0 }
            }
            let keys = options.sshKeyFiles.filter { FileManager.default.fileExists(atPath: $0) }
            if triedKeys < keys.count {
                let key = keys[triedKeys]
                triedKeys += 1
                let publicKey = FileManager.default.fileExists(atPath: key + ".pub") ? key + ".pub" : nil
                return git_credential_ssh_key_new(out, name, publicKey, key, nil)
            }
        }
        if allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT.rawValue != 0, !triedUserPass,
           let user = options.httpsUser ?? user, let token = options.httpsToken {
            triedUserPass = true
            return git_credential_userpass_plaintext_new(out, user, token)
        }
        git_error_set_str(Int32(GIT_ERROR_SSH.rawValue), "no credential was accepted")
        return GIT_EAUTH.rawValue
    }

    func checkCertificate(_ cert: UnsafeMutablePointer<git_cert>?, valid: Int32, host: String) -> Int32 {
        guard let cert, cert.pointee.cert_type == GIT_CERT_HOSTKEY_LIBSSH2 else {
            return valid != 0 ? 0 : GIT_ECERTIFICATE.rawValue
        }
        let hostkey = UnsafeMutableRawPointer(cert).assumingMemoryBound(to: git_cert_hostkey.self).pointee
        guard hostkey.type.rawValue & GIT_CERT_SSH_RAW.rawValue != 0, let raw = hostkey.hostkey else {
            hostProblem = .unknownHost(host: host, knownHosts: options.knownHostsFile)
            return GIT_ECERTIFICATE.rawValue
        }
        let offered = Data(bytes: raw, count: Int(hostkey.hostkey_len)).base64EncodedString()
        switch KnownHosts.check(host: host, url: url, key: offered, file: options.knownHostsFile) {
        case .match: return 0
        case .unknown:
            hostProblem = .unknownHost(host: host, knownHosts: options.knownHostsFile)
        case .mismatch:
            hostProblem = .hostKeyMismatch(host: host, knownHosts: options.knownHostsFile)
        }
        return GIT_ECERTIFICATE.rawValue
    }

    /// The failure of a libgit2 transfer call, classified.
    func classify(_ error: GitError) -> TransferError {
        if let hostProblem { return hostProblem }
        let message = error.message.lowercased()
        if error.code == GIT_EAUTH.rawValue || message.contains("authentication") || message.contains("no credential")
            || message.contains("permission denied") || message.contains("401") || message.contains("403") {
            return .authentication(url: url, detail: error.message)
        }
        if message.contains("not found") || message.contains("does not appear to be a git repository") || message.contains("could not find repository")
            || message.contains("failed to resolve path") || message.contains("no such file") || message.contains("404")
            || message.contains("not a git repository") || message.contains("repository not exported") || message.contains("no such repository")
            || message.contains("unsupported url protocol") && !url.contains("://") {
            return .missingRepository(url: url, detail: error.message)
        }
        if message.contains("failed to connect") || message.contains("connection refused") || message.contains("resolve address")
            || message.contains("could not resolve") || message.contains("timed out") || message.contains("unreachable")
            || message.contains("failed to start ssh session") && !message.contains("unexpected") {
            return .unreachable(url: url, detail: error.message)
        }
        if message.contains("early eof") || message.contains("unexpected") || message.contains("eof") || message.contains("closed")
            || message.contains("broken pipe") || message.contains("reset by peer") || message.contains("short read") || message.contains("incomplete") {
            return .interrupted(url: url, detail: error.message)
        }
        return .other(url: url, error: error)
    }
}

/// The ssh hosts a person has accepted, read with `ssh-keygen -F`, which knows hashed names and ports.
enum KnownHosts {
    /// What a program printed on stdout, run with posix_spawn and waited for; nil when it could not run.
    static func output(of arguments: [String]) -> String? {
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
        posix_spawn_file_actions_addclose(&actions, pipe[0])
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = (["/usr/bin/env"] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/usr/bin/env", &actions, nil, argv, environ)
        close(pipe[1])
        defer { close(pipe[0]) }
        guard spawned == 0 else { return nil }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(pipe[0], &buffer, buffer.count)
            if count <= 0 { break }
            data.append(buffer, count: count)
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return String(decoding: data, as: UTF8.self)
    }

    enum Verdict { case match, unknown, mismatch }

    static func check(host: String, url: String, key: String, file: String) -> Verdict {
        guard FileManager.default.fileExists(atPath: file) else { return .unknown }
        let port = URLComponents(string: url)?.port
        let name = port.map { $0 == 22 ? host : "[\(host)]:\($0)" } ?? host
        // NB: not Foundation's Process: this runs inside a libgit2 callback,
        // where Process on Linux may never see its child exit.
        guard let text = output(of: ["ssh-keygen", "-F", name, "-f", file]) else { return .unknown }
        let keys = text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line -> String? in
            let fields = line.split(separator: " ")
            return fields.count >= 3 ? String(fields[2]) : nil
        }
        if keys.isEmpty { return .unknown }
        return keys.contains(key) ? .match : .mismatch
    }
}
