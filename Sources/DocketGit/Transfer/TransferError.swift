import Foundation

/// Which side of a transfer: this store, or the remote.
public enum TransferSide: Sendable, Equatable {
    case local, remote
}

/// Why talking to a remote failed, in the terms a person can act on.
public enum TransferError: Error, CustomStringConvertible, Equatable {
    case authentication(url: String, detail: String)
    case passphraseKey(url: String, key: String)
    case unknownHost(host: String, port: Int?, knownHosts: String)
    case hostKeyMismatch(host: String, port: Int?, knownHosts: String)
    case sshHostUnknown(host: String, port: Int?)
    case sshHostChanged(host: String, port: Int?)
    case libssh2HostKeyType(host: String, port: Int?)
    case pushDisabled(url: String, detail: String)
    case forbidden(url: String, detail: String)
    case declined(url: String, reference: String, reason: String, serverSaid: [String])
    case dumbHTTP(url: String)
    case unreachable(url: String, detail: String)
    case missingRepository(url: String, detail: String)
    /// The remote is a repository on this machine that another user owns, which git (and libgit2 1.5) use only
    /// when `safe.directory` names it.
    case unsafeOwner(url: String, path: String)
    case interrupted(url: String, detail: String)
    case rejected(url: String, reference: String, reason: String)
    case untrustedCertificate(url: String, detail: String, checkedAgainst: String?)
    case lackingObjects(url: String, side: TransferSide, absent: [AbsentObject])
    case redirected(url: String, to: String)
    case tooLarge(url: String, object: ObjectID, size: Int)
    case cancelled(url: String)
    case other(url: String, error: GitError)
    /// git, run for what libgit2 1.5 cannot do (a shallow or partial clone's fetch or push), failed: what it said.
    case gitFailed(url: String, command: String, said: String)

    /// "host", or "[host]:port" for a port other than 22, as known_hosts names it.
    static func hostName(_ host: String, _ port: Int?) -> String {
        guard let port, port != 22 else { return host }
        return "[\(host)]:\(port)"
    }

    public var description: String {
        switch self {
        case let .authentication(url, detail):
            "\(url) did not accept the credentials (\(detail)); check the ssh key or agent (DOCKET_SSH_KEY), or DOCKET_GIT_USERNAME and DOCKET_GIT_TOKEN for https"
        case let .passphraseKey(url, key):
            "\(url) needs an ssh key, and \(key) is protected by a passphrase, which docket cannot ask for; add it to the ssh-agent ('ssh-add \(key)'), then try again"
        case let .unknownHost(host, port, knownHosts):
            "the ssh host \(TransferError.hostName(host, port)) is not in \(knownHosts); if you trust it, add its key with "
                + "'ssh-keyscan \(port.map { $0 == 22 ? "" : "-p \($0) " } ?? "")\(host) >> \(knownHosts)' (or connect once with ssh), then try again"
        case let .hostKeyMismatch(host, port, knownHosts):
            "the ssh host \(TransferError.hostName(host, port)) showed a key that differs from the one in \(knownHosts); someone may be in between; "
                + "if the host's key really changed, remove its old line ('ssh-keygen -R \(TransferError.hostName(host, port))') and add the new one"
        case let .sshHostUnknown(host, port):
            "ssh does not know the host \(TransferError.hostName(host, port)) yet; connect once with "
                + "'ssh \(port.map { $0 == 22 ? "" : "-p \($0) " } ?? "")\(host)' to check its key and accept it, then try again"
        case let .sshHostChanged(host, port):
            "the ssh host \(TransferError.hostName(host, port)) showed a key that differs from the one ssh knows; someone may be in between; "
                + "if the host's key really changed, remove its old line ('ssh-keygen -R \(TransferError.hostName(host, port))') and connect once with ssh"
        case let .libssh2HostKeyType(host, port):
            "libssh2 could not agree on a host key with \(TransferError.hostName(host, port)) (Unable to exchange encryption keys): it asks for the type "
                + "of the first line ~/.ssh/known_hosts has for the host, and an ssh-rsa line there is refused by OpenSSH 9; move the host's "
                + "ssh-ed25519 or ecdsa line above its ssh-rsa line, or install OpenSSH's ssh client, which docket uses when present"
        case let .pushDisabled(url, detail):
            "\(url) does not take pushes (\(detail)); ask its owner to allow them (for git daemon: --enable=receive-pack), or push over ssh or https"
        case let .forbidden(url, detail):
            "\(url) refused access (\(detail)); the server knows you but does not let you do this: ask its owner for access"
        case let .declined(url, reference, reason, serverSaid):
            "\(url) declined the update of \(reference) (\(reason))"
                + (serverSaid.isEmpty ? "" : "; the server said: " + serverSaid.suffix(5).joined(separator: " / "))
                + "; nothing was pushed; what the server checks must pass first"
        case let .dumbHTTP(url):
            "\(url) is a plain (\"dumb\") http folder, which docket cannot sync with; serve the repository with git http-backend, or use ssh"
        case let .unreachable(url, detail):
            "cannot reach \(url) (\(detail)); check the address and the network, then try again"
        case let .missingRepository(url, detail):
            "there is no git repository at \(url) (\(detail)); check the address, or create the repository there (for example 'git init --bare')"
        case let .unsafeOwner(url, path):
            "\(url) is a repository another user owns, which git uses only when safe.directory names it "
                + "(git says \"dubious ownership\"); nothing was changed; if you trust it, run "
                + "'git config --global --add safe.directory \(path)', then try again"
        case let .interrupted(url, detail):
            "the connection to \(url) broke off during the transfer (\(detail)); nothing was changed here, so try again; "
                + "if it breaks off again at once, check that the repository exists there and that you may use it"
        case let .rejected(url, reference, reason):
            "\(url) refused the update of \(reference) (\(reason)); someone pushed first: run 'docket pull' or 'docket sync', then push again"
        case let .untrustedCertificate(url, detail, checkedAgainst):
            "the https certificate of \(url) is not trusted (\(detail))"
                + (checkedAgainst.map { "; checked against \($0)" } ?? "")
                + "; if the server uses a private certificate authority, name its certificate with "
                + "'git config --global http.sslCAInfo /path/to/ca.pem' (or GIT_SSL_CAINFO), then try again"
        case let .lackingObjects(url, side, absent):
            (side == .remote ? "\(url) lacks" : "this store lacks")
                + " \(absent.count) object\(absent.count == 1 ? "" : "s") its branches name, "
                + (side == .remote ? "and this store has no copy" : "and \(url) has no copy") + ": "
                + absent.prefix(3).map(\.description).joined(separator: ", ") + (absent.count > 3 ? ", …" : "")
                + "; nothing was changed; run 'docket sync' with \(url) on a machine that has commit \(absent[0].commit.short) "
                + "(the one that made it, or one that synced it since): it copies them \(side == .remote ? "back" : "there"); then sync here again"
        case let .tooLarge(url, object, size):
            "\(url) holds a file of \(size >> 20) MiB (object \(object.short)), over the \(ObjectTooLarge.limit >> 20) MiB docket copies; "
                + "nothing was changed; take the file out of the remote's history with git, or keep it in another repository"
        case let .redirected(url, to):
            "\(url) sent docket to \(to), another server, which asked for credentials; docket gives the credentials for an address "
                + "to no other server; nothing was sent; if you trust \(to), use its address for the remote instead"
        case let .cancelled(url):
            "the transfer with \(url) was cancelled; nothing was changed by it, and the next pull, push or sync starts it again"
        case let .other(url, error):
            "talking to \(url) failed: \(error.message)"
        case let .gitFailed(url, command, said):
            "'\(command)' with \(url) failed (docket runs git for this clone): \(said)"
        }
    }
}
