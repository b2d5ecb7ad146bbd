import DocketCGit2
import DocketCGitTransport
import Foundation

/// What the C callbacks of one transfer share.
final class TransferContext {
    let options: TransferOptions
    /// The remote's address as messages show it (no user-info).
    let url: String
    /// The address as given, for scrubbing its secrets out of libgit2's messages.
    let rawURL: String
    /// git's settings for this remote.
    let settings: GitSettings
    /// The repository's folder, where git's settings and helpers are read; nil while cloning.
    let folder: String?
    var triedAgent = false
    var triedKeys = 0
    var triedUserPass = false
    /// Key files skipped because a passphrase protects them.
    var encryptedKeys: [String] = []
    var hostProblem: TransferError?
    var rejected: (reference: String, reason: String)?
    /// Why the program carrying the transfer (ssh, git) could not be started: posix_spawn's errno.
    var spawnErrno: Int32?
    /// A credential a helper gave, to approve or reject when the transfer ends.
    var helperCredential: (helper: CredentialHelper, user: String, password: String)?
    /// Lines the server sent for a person (sideband messages, a program's stderr).
    private(set) var serverLines: [String] = []
    private var partialLine = ""
    private var warned = Set<String>()
    private var proxyURL: UnsafeMutablePointer<CChar>?
    /// Whether this transfer uses the process's trusted certificates (an http one), until it ends.
    private var holdsCertificates = false
    let progress: ProgressThrottle

    init(options: TransferOptions, url: String, folder: String? = nil) {
        self.options = options
        self.progress = ProgressThrottle(options.progress)
        self.url = RemoteURL.redacted(url)
        self.rawURL = url
        self.folder = folder
        let isSSH = options.ssh == .openSSH && RemoteURL.isSSH(url)
        settings = GitSettings.read(for: url, in: folder, environment: options.environment, needs: isSSH)
        // Only https needs the certificates (http may redirect there).
        if url.lowercased().hasPrefix("http") {
            _ = LibGit2Runtime.started
            let custom = settings.caFile != nil || settings.caPath != nil
            TrustedCertificates.shared.enter(
                custom ? TrustedCertificates.Locations(file: settings.caFile?.path, folder: settings.caPath) : nil)
            holdsCertificates = true
        }
        if let proxy = settings.proxy { proxyURL = strdup(proxy.url) }
    }

    deinit {
        free(proxyURL)
        if holdsCertificates { TrustedCertificates.shared.leave() }
    }

    var pointer: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
    static func from(_ payload: UnsafeMutableRawPointer?) -> TransferContext {
        Unmanaged<TransferContext>.fromOpaque(payload!).takeUnretainedValue()
    }

    /// The proxy libgit2 should use: the one git would, else none (libgit2's own guess is not git's).
    func proxyOptions() -> git_proxy_options {
        var proxy = git_proxy_options()
        git_proxy_options_init(&proxy, UInt32(GIT_PROXY_OPTIONS_VERSION))
        if let proxyURL {
            proxy.type = GIT_PROXY_SPECIFIED
            proxy.url = UnsafePointer(proxyURL)
            proxy.payload = pointer
            proxy.certificate_check = { cert, valid, host, payload in
                TransferContext.from(payload).checkCertificate(
                    cert, valid: valid, host: host.map { String(cString: $0) } ?? "")
            }
        }
        return proxy
    }

    /// Whether the caller asked the transfer to stop (`TransferOptions.isCancelled`).
    var isCancelled: Bool { options.isCancelled?() ?? false }

    /// Fills libgit2's callbacks for this transfer; `pushing` routes a push to a
    /// repository on this machine through `git receive-pack`, so its hooks run as they do for git.
    func install(into callbacks: inout git_remote_callbacks, pushing: Bool = false) {
        callbacks.payload = pointer
        callbacks.credentials = { out, url, usernameFromURL, allowed, payload in
            TransferContext.from(payload).credential(
                out, for: url.map { String(cString: $0) }, user: usernameFromURL.map { String(cString: $0) },
                allowed: allowed)
        }
        callbacks.certificate_check = { cert, valid, host, payload in
            TransferContext.from(payload).checkCertificate(
                cert, valid: valid, host: host.map { String(cString: $0) } ?? "")
        }
        callbacks.sideband_progress = { text, length, payload in
            let context = TransferContext.from(payload)
            if let text, length > 0 {
                context.heard(String(decoding: UnsafeRawBufferPointer(start: text, count: Int(length)), as: UTF8.self))
            }
            return context.isCancelled ? GIT_EUSER.rawValue : 0
        }
        callbacks.transfer_progress = { stats, payload in
            guard let stats = stats?.pointee else { return 0 }
            let context = TransferContext.from(payload)
            context.progress.report(
                TransferProgress(
                    stage: .receiving, objectsDone: Int(stats.received_objects),
                    objectsTotal: Int(stats.total_objects), bytes: Int(stats.received_bytes)))
            return context.isCancelled ? GIT_EUSER.rawValue : 0
        }
        callbacks.push_transfer_progress = { current, total, bytes, payload in
            let context = TransferContext.from(payload)
            context.progress.report(
                TransferProgress(
                    stage: .sending, objectsDone: Int(current), objectsTotal: Int(total), bytes: Int(bytes)))
            return context.isCancelled ? GIT_EUSER.rawValue : 0
        }
        callbacks.push_update_reference = { reference, status, payload in
            if let status {
                TransferContext.from(payload).rejected = (
                    reference.map { String(cString: $0) } ?? "", String(cString: status)
                )
            }
            return 0
        }
        if options.ssh == .openSSH, RemoteURL.isSSH(rawURL), settings.sshCommand != nil {
            callbacks.transport = { out, owner, payload in
                TransferContext.from(payload).makeTransport(out, owner, local: false)
            }
        } else if pushing, RemoteURL.localPath(rawURL) != nil, settings.git != nil {
            callbacks.transport = { out, owner, payload in
                TransferContext.from(payload).makeTransport(out, owner, local: true)
            }
        }
    }

    /// A transport that runs ssh (or, for a folder on this machine, git) and speaks git's protocol through it.
    private func makeTransport(
        _ out: UnsafeMutablePointer<UnsafeMutablePointer<git_transport>?>?, _ owner: OpaquePointer?, local: Bool
    ) -> Int32 {
        let command = local ? [settings.git!] : settings.sshCommand!
        let pointers = command.map { strdup($0) } + [nil]
        defer { pointers.forEach { free($0) } }
        return pointers.map { UnsafePointer($0) }.withUnsafeBufferPointer { argv in
            docket_exec_transport_new(
                out, owner, argv.baseAddress, local ? 1 : 0,
                { text, status, payload in
                    let context = TransferContext.from(payload)
                    if status < 0 {
                        context.spawnErrno = -status
                    } else if let text {
                        context.heardProgram(String(cString: text))
                    }
                }, pointer)
        }
    }

    /// Text a server sent on its message channel; complete lines are kept, progress counters dropped.
    func heard(_ text: String) {
        partialLine += text
        while let end = partialLine.firstIndex(where: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) {
            let line = String(partialLine[..<end])
            partialLine = String(partialLine[partialLine.index(after: end)...])
            keep(line)
        }
    }

    /// What a program carrying the transfer (ssh, git receive-pack) wrote to stderr.
    func heardProgram(_ text: String) {
        for line in text.split(
            omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" })
        {
            keep(String(line))
        }
    }

    private func keep(_ line: String) {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, !TransferContext.isProgress(trimmed) else { return }
        serverLines.append(RemoteURL.scrub(trimmed, of: rawURL))
    }

    /// Whether a server line only counts objects ("Counting objects: 40% (2/5)", "Total 3 (delta 0)").
    static func isProgress(_ line: String) -> Bool {
        let counters = [
            "Enumerating objects", "Counting objects", "Compressing objects", "Writing objects", "Resolving deltas",
            "Total ", "Unpacking objects", "Receiving objects", "Indexing objects", "Finding sources",
        ]
        return counters.contains { line.hasPrefix($0) }
    }

    /// Passes the server's lines on, for a transfer that worked.
    func tellServerLines() {
        guard let show = options.serverMessage else { return }
        serverLines.forEach(show)
    }

    /// Says a warning once per transfer.
    func warn(_ text: String) {
        guard warned.insert(text).inserted else { return }
        options.warning?(text)
    }

    /// Tells a credential helper whether its credential worked, once the transfer has ended.
    func finished(_ error: TransferError?) {
        guard let used = helperCredential else { return }
        helperCredential = nil
        if error == nil {
            used.helper.answer(true, user: used.user, password: used.password)
        } else if case .authentication = error {
            used.helper.answer(false, user: used.user, password: used.password)
        }
    }

    // NB: libgit2 asks again after each refused credential; every method is
    // offered once, then the transfer fails as an authentication error
    // instead of looping.
    func credential(
        _ out: UnsafeMutablePointer<UnsafeMutablePointer<git_credential>?>?, for asking: String?, user: String?,
        allowed: UInt32
    ) -> Int32 {
        // NB: a server that redirected elsewhere gets no credential given for the address asked for: neither
        // DOCKET_GIT_TOKEN nor a credential helper's answer (which was asked about that address) follows it.
        if let asking, let expected = RemoteURL.origin(rawURL), let origin = RemoteURL.origin(asking),
            origin != expected
        {
            hostProblem = .redirected(url: url, to: RemoteURL.redacted(origin))
            git_error_set_str(Int32(GIT_ERROR_HTTP.rawValue), "redirected to \(origin)")
            return GIT_EAUTH.rawValue
        }
        if allowed & GIT_CREDENTIAL_SSH_KEY.rawValue != 0 {
            let name = user ?? NSUserName()
            // NB: an agent variable left from a closed session points at no
            // agent; offering it would end the transfer instead of trying the keys.
            if options.useSSHAgent && !triedAgent {
                triedAgent = true
                if SSHKeys.agentAnswers(ProcessInfo.processInfo.environment["SSH_AUTH_SOCK"]),
                    git_credential_ssh_key_from_agent(out, name) == 0
                {
                    return 0
                }
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
        if allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT.rawValue != 0, !triedUserPass {
            triedUserPass = true
            var given: (user: String, password: String)?
            if let token = options.httpsToken, let name = options.httpsUser ?? user {
                given = (name, token)
            } else if options.useCredentialHelpers, let git = settings.git,
                let helper = CredentialHelper(url: rawURL, user: options.httpsUser ?? user, git: git, folder: folder),
                let filled = helper.fill()
            {
                helperCredential = (helper, filled.user, filled.password)
                given = filled
            }
            if let given {
                if rawURL.lowercased().hasPrefix("http://") {
                    warn(
                        "sending the password or token for \(url) over plain http, where anyone on the network can read it; use an https:// address"
                    )
                }
                return git_credential_userpass_plaintext_new(out, given.user, given.password)
            }
        }
        git_error_set_str(Int32(GIT_ERROR_SSH.rawValue), "no credential was accepted")
        return GIT_EAUTH.rawValue
    }

    func checkCertificate(_ cert: UnsafeMutablePointer<git_cert>?, valid: Int32, host: String) -> Int32 {
        guard let cert, cert.pointee.cert_type == GIT_CERT_HOSTKEY_LIBSSH2 else {
            if valid != 0 { return 0 }
            if !settings.sslVerify {
                warn(
                    "not checking the https certificate of \(url) (\(!(options.environment["GIT_SSL_NO_VERIFY"] ?? "").isEmpty ? "GIT_SSL_NO_VERIFY is set" : "http.sslVerify is false")); "
                        + "anyone between here and the server can read and change what is sent")
                return 0
            }
            var detail = "\(host) shows a certificate no trusted authority signed"
            // NB: libgit2's mbedTLS matches host names only; an address is checked here, against the same authorities.
            let address = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            if let cert, cert.pointee.cert_type == GIT_CERT_X509,
                address.contains(":") || address.allSatisfy({ $0.isNumber || $0 == "." })
            {
                let x509 = UnsafeMutableRawPointer(cert).assumingMemoryBound(to: git_cert_x509.self).pointee
                var reason = [CChar](repeating: 0, count: 256)
                let systemFile = settings.caFile == nil && settings.caPath == nil
                if let data = x509.data,
                    docket_tls_check_ip(
                        data.assumingMemoryBound(to: UInt8.self), x509.len, systemFile ? nil : settings.caFile?.path,
                        settings.caPath, address, &reason, reason.count) == 0
                {
                    return 0
                }
                detail =
                    "\(host): "
                    + String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
            hostProblem = .untrustedCertificate(
                url: url, detail: detail, checkedAgainst: settings.caFile.map { "\($0.path) (\($0.source))" })
            return GIT_ECERTIFICATE.rawValue
        }
        let hostkey = UnsafeMutableRawPointer(cert).assumingMemoryBound(to: git_cert_hostkey.self).pointee
        guard hostkey.type.rawValue & GIT_CERT_SSH_RAW.rawValue != 0, let raw = hostkey.hostkey else {
            hostProblem = .unknownHost(
                host: host, port: RemoteURL.sshHost(rawURL).port, knownHosts: options.knownHostsFile)
            return GIT_ECERTIFICATE.rawValue
        }
        let offered = Data(bytes: raw, count: Int(hostkey.hostkey_len)).base64EncodedString()
        switch KnownHosts.check(host: host, url: url, key: offered, file: options.knownHostsFile) {
        case .match: return 0
        case .unknown:
            hostProblem = .unknownHost(
                host: host, port: RemoteURL.sshHost(rawURL).port, knownHosts: options.knownHostsFile)
        case .mismatch:
            hostProblem = .hostKeyMismatch(
                host: host, port: RemoteURL.sshHost(rawURL).port, knownHosts: options.knownHostsFile)
        }
        return GIT_ECERTIFICATE.rawValue
    }
}
