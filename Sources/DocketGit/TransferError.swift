import Foundation

/// Why talking to a remote failed, in the terms a person can act on.
public enum TransferError: Error, CustomStringConvertible, Equatable {
    case authentication(url: String, detail: String)
    case passphraseKey(url: String, key: String)
    case unknownHost(host: String, knownHosts: String)
    case hostKeyMismatch(host: String, knownHosts: String)
    case unreachable(url: String, detail: String)
    case missingRepository(url: String, detail: String)
    case interrupted(url: String, detail: String)
    case rejected(url: String, reference: String, reason: String)
    case untrustedCertificate(url: String, detail: String)
    case other(url: String, error: GitError)

    public var description: String {
        switch self {
        case let .authentication(url, detail):
            "\(url) did not accept the credentials (\(detail)); check the ssh key or agent (DOCKET_SSH_KEY), or DOCKET_GIT_USERNAME and DOCKET_GIT_TOKEN for https"
        case let .passphraseKey(url, key):
            "\(url) needs an ssh key, and \(key) is protected by a passphrase, which docket cannot ask for; add it to the ssh-agent ('ssh-add \(key)'), then try again"
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
        case let .untrustedCertificate(url, detail):
            "the https certificate of \(url) is not trusted (\(detail)); if the server uses a private certificate authority, set SSL_CERT_FILE to its certificate, then try again"
        case let .other(url, error):
            "talking to \(url) failed: \(error.message)"
        }
    }
}
