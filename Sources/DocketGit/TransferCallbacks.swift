import CGit2
import Foundation

/// What the C callbacks of one transfer share.
final class TransferContext {
    let options: TransferOptions
    /// The remote's address as messages show it (no user-info).
    let url: String
    /// The address as given, for scrubbing its secrets out of libgit2's messages.
    let rawURL: String
    var triedAgent = false
    var triedKeys = 0
    var triedUserPass = false
    /// Key files skipped because a passphrase protects them.
    var encryptedKeys: [String] = []
    var hostProblem: TransferError?
    var rejected: (reference: String, reason: String)?
    let progress: ProgressThrottle

    init(options: TransferOptions, url: String) {
        // Only https needs the certificates (http may redirect there).
        if url.lowercased().hasPrefix("http") { _ = LibGit2Runtime.privateCertificates }
        self.options = options
        self.progress = ProgressThrottle(options.progress)
        self.url = RemoteURL.redacted(url)
        self.rawURL = url
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
            context.progress.report(TransferProgress(stage: .receiving, objectsDone: Int(stats.received_objects),
                                                     objectsTotal: Int(stats.total_objects), bytes: Int(stats.received_bytes)))
            return 0
        }
        callbacks.push_transfer_progress = { current, total, bytes, payload in
            TransferContext.from(payload).progress.report(TransferProgress(stage: .sending, objectsDone: Int(current), objectsTotal: Int(total), bytes: Int(bytes)))
            return 0
        }
        callbacks.push_update_reference = { reference, status, payload in
            if let status {
                TransferContext.from(payload).rejected = (reference.map { String(cString: $0) } ?? "", String(cString: status))
            }
            return 0
        }
    }

    // NB: libgit2 asks again after each refused credential; every method is
    // offered once, then the transfer fails as an authentication error
    // instead of looping.
    func credential(_ out: UnsafeMutablePointer<UnsafeMutablePointer<git_credential>?>?, user: String?, allowed: UInt32) -> Int32 {
        if allowed & GIT_CREDENTIAL_SSH_KEY.rawValue != 0 {
            let name = user ?? NSUserName()
            // NB: an agent variable left from a closed session points at no
            // agent; offering it would end the transfer instead of trying the keys.
            if options.useSSHAgent && !triedAgent {
                triedAgent = true
                if SSHKeys.agentAnswers(ProcessInfo.processInfo.environment["SSH_AUTH_SOCK"]),
                   git_credential_ssh_key_from_agent(out, name) == 0 { return 0 }
            }
            let keys = options.sshKeyFiles.filter { FileManager.default.fileExists(atPath: $0) }
            while triedKeys < keys.count {
                let key = keys[triedKeys]
                triedKeys += 1
                if SSHKeys.isEncrypted(key) {
                    encryptedKeys.append(key)
                    continue
                }
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
            if valid != 0 { return 0 }
            hostProblem = .untrustedCertificate(url: url, detail: "\(host) shows a certificate no trusted authority signed")
            return GIT_ECERTIFICATE.rawValue
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
    func classify(_ raw: GitError) -> TransferError {
        if let hostProblem { return hostProblem }
        let error = GitError(code: raw.code, function: raw.function, message: RemoteURL.scrub(raw.message, of: rawURL))
        let message = error.message.lowercased()
        if error.code == GIT_EAUTH.rawValue || message.contains("authentication") || message.contains("no credential")
            || message.contains("permission denied") || message.contains("401") || message.contains("403") {
            if let key = encryptedKeys.first { return .passphraseKey(url: url, key: key) }
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
