import CGit2
import Foundation

extension TransferContext {
    /// The failure of a libgit2 transfer call, classified.
    func classify(_ raw: GitError) -> TransferError {
        if let hostProblem { return hostProblem }
        let text = RemoteURL.scrub(raw.message, of: rawURL)
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        // A program's stderr may start with warnings; its last line says what failed.
        let detail = lines.last ?? text
        let error = GitError(code: raw.code, function: raw.function, message: detail)
        // NB: a remote's own address may hold any word or number ("…/9403-…/denied.git"); only the words around it count.
        let message = RemoteURL.withoutAddress(text, of: rawURL).lowercased()
        let ssh = RemoteURL.isSSH(rawURL)
        let host = RemoteURL.sshHost(rawURL)
        if ssh, message.contains("remote host identification has changed") {
            return .sshHostChanged(host: host.name, port: host.port)
        }
        if ssh, message.contains("host key verification failed") {
            return .sshHostUnknown(host: host.name, port: host.port)
        }
        // NB: libgit2 1.5 asks libssh2 for the key type of the first line ~/.ssh/known_hosts has for the host;
        // libssh2 1.10 signs RSA host keys with SHA-1 only, which OpenSSH 9 no longer offers.
        if options.ssh == .libssh2, message.contains("unable to exchange encryption keys") {
            return .libssh2HostKeyType(host: host.name, port: host.port)
        }
        if message.contains("service not enabled") || message.contains("receive-pack not permitted") || message.contains("receive-pack disabled") {
            return .pushDisabled(url: url, detail: detail)
        }
        if message.contains("permission denied (") || error.code == GIT_EAUTH.rawValue || message.contains("authentication")
            || message.contains("no credential") || message.contains("401") || message.contains("too many authentication failures") {
            if let key = encryptedKeys.first { return .passphraseKey(url: url, key: key) }
            return .authentication(url: url, detail: detail)
        }
        if message.contains("403") || message.contains("permission denied") || message.contains("insufficient permission")
            || message.contains("denied") && !message.contains("access denied or repository not exported") {
            return .forbidden(url: url, detail: detail)
        }
        if message.contains("not found") || message.contains("does not appear to be a git repository") || message.contains("could not find repository")
            || message.contains("failed to resolve path") || message.contains("no such file") || message.contains("404")
            || message.contains("not a git repository") || message.contains("repository not exported") || message.contains("no such repository")
            || message.contains("unsupported url protocol") && !url.contains("://") {
            return .missingRepository(url: url, detail: detail)
        }
        if message.contains("invalid content-type") {
            return .dumbHTTP(url: url)
        }
        if message.contains("failed to connect") || message.contains("connection refused") || message.contains("resolve address")
            || message.contains("could not resolve") || message.contains("timed out") || message.contains("unreachable")
            || message.contains("no route to host") || message.contains("name or service not known")
            || message.contains("failed to start ssh session") && !message.contains("unexpected") {
            return .unreachable(url: url, detail: detail)
        }
        if message.contains("early eof") || message.contains("unexpected") || message.contains("eof") || message.contains("closed")
            || message.contains("broken pipe") || message.contains("reset by peer") || message.contains("short read") || message.contains("incomplete") {
            return .interrupted(url: url, detail: detail)
        }
        return .other(url: url, error: error)
    }
}
