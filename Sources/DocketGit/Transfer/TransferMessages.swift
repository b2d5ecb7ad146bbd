import DocketCGit2

/// The failures of a transfer that only their words tell apart: libgit2 1.5.1 gives them the generic code, and
/// the ssh program's stderr reaches Docket as text (`ExecTransport.c` sets it as a `GIT_ERROR_NET` error).
///
/// This is the one place where Docket reads such words. `classify` tries the codes first (`GIT_EAUTH`,
/// `GIT_EEOF`, `GIT_ENOTFOUND`, `GIT_ENONFASTFORWARD`), then these rows in order; the first that matches wins.
/// Each row is produced for real by `TransferMessagesSpec`, which also fails when libgit2 is not
/// `libgit2Version`: the words are libgit2's, so another version means checking every row again.
enum TransferMessages {
    /// The libgit2 whose words the rows were checked against.
    static let libgit2Version = "1.5.1"

    /// Which program prints the words.
    enum Layer: Equatable, Sendable {
        /// libgit2 itself, in this source file of 1.5.1.
        case libgit2(String)
        /// libssh2 1.10, through libgit2's `src/libgit2/transports/ssh.c`.
        case libssh2
        /// The OpenSSH client `ssh`, on stderr.
        case openSSH
        /// The shell that runs `GIT_SSH_COMMAND` or `core.sshCommand` (dash's "not found", strerror's words).
        case shell
        /// `git daemon`, in an ERR packet ("remote error: …").
        case gitDaemon
        /// git's programs on the server: `git-upload-pack`, `git-receive-pack`.
        case gitServer
        /// A git host's own gate on its ssh server (a forced command, as gitolite's "… DENIED by fallthru").
        case hosting
    }

    /// What the words mean, as a `TransferError` says it.
    enum Meaning: Equatable, Sendable {
        case sshHostChanged, sshHostUnknown, libssh2HostKeyType, pushDisabled, authentication, forbidden
        case missingRepository, dumbHTTP, unreachable, interrupted
    }

    /// For which remotes a row counts.
    enum Scope: Equatable, Sendable {
        /// Any remote.
        case any
        /// ssh addresses (ssh://, scp-like).
        case ssh
        /// Any remote, when libssh2 carries ssh.
        case libssh2
        /// Addresses without a scheme: paths, and scp-like ssh addresses.
        case schemeless
    }

    /// One kind of message.
    struct Row: Sendable {
        /// Which row (specs name it).
        let id: ID
        /// Who prints it.
        let layer: Layer
        /// The error class libgit2 reports it with (`ExecTransport.c` reports the ssh program's stderr as
        /// `GIT_ERROR_NET`); `TransferMessagesSpec` checks it.
        let errorClass: git_error_t
        /// Lower-case words, any of which marks the row.
        let words: [String]
        /// Words that, also present, mean it is not this row.
        let unless: [String]
        /// For which remotes.
        let scope: Scope
        /// What it means.
        let meaning: Meaning

        init(
            _ id: ID, _ layer: Layer, _ errorClass: git_error_t, _ words: [String], unless: [String] = [],
            scope: Scope = .any, _ meaning: Meaning
        ) {
            (self.id, self.layer, self.errorClass, self.words, self.unless, self.scope, self.meaning) =
                (id, layer, errorClass, words, unless, scope, meaning)
        }

        /// The rows' names.
        enum ID: String, CaseIterable, Sendable {
            case sshHostKeyChanged, sshHostKeyVerificationFailed, libssh2KeyExchange, daemonServiceNotEnabled
            case sshTooManyAuthenticationFailures, sshPermissionDenied, libgit2Authentication
            case httpForbidden, permissionDenied, insufficientPermission, deniedByHost
            case gitNotARepository, daemonNoSuchRepository, daemonNotExported, httpNotFound, noSuchFile, commandNotFound
            case unsupportedProtocolForPath, dumbHTTPContentType
            case libgit2ConnectFailed, libgit2ResolveFailed, sshConnectionRefused, sshCouldNotResolve, sshTimedOut
            case networkUnreachable, noRouteToHost, libssh2SessionFailed
            case brokenPipe, connectionReset, connectionClosed, httpStreamEnded, truncatedStream
        }
    }

    private static let http = Layer.libgit2("src/libgit2/transports/http.c")
    private static let socket = Layer.libgit2("src/libgit2/streams/socket.c")
    private static let (net, os, ssh, httpClass) = (GIT_ERROR_NET, GIT_ERROR_OS, GIT_ERROR_SSH, GIT_ERROR_HTTP)

    /// Every row, in the order they are tried.
    static let rows: [Row] = [
        // An ssh client's words about the host, before any other.
        Row(
            .sshHostKeyChanged, .openSSH, net, ["remote host identification has changed"], scope: .ssh,
            .sshHostChanged),
        Row(
            .sshHostKeyVerificationFailed, .openSSH, net, ["host key verification failed"], scope: .ssh,
            .sshHostUnknown),
        // NB: libgit2 1.5 asks libssh2 for the key type of the first line ~/.ssh/known_hosts has for the host;
        // libssh2 1.10 signs RSA host keys with SHA-1 only, which OpenSSH 9 no longer offers.
        Row(
            .libssh2KeyExchange, .libssh2, ssh, ["unable to exchange encryption keys"], scope: .libssh2,
            .libssh2HostKeyType),
        // daemon.c, with --informative-errors: "remote error: service not enabled: /x.git".
        Row(.daemonServiceNotEnabled, .gitDaemon, net, ["service not enabled"], .pushDisabled),
        // sshd hangs up: "Received disconnect from …: Too many authentication failures".
        Row(.sshTooManyAuthenticationFailures, .openSSH, net, ["too many authentication failures"], .authentication),
        // "user@host: Permission denied (publickey)."
        Row(.sshPermissionDenied, .openSSH, net, ["permission denied ("], .authentication),
        // "too many redirects or authentication replays", "server requires authentication that we do not support".
        Row(.libgit2Authentication, http, httpClass, ["authentication"], .authentication),
        // "unexpected http status code: 403" (a port number "…403…" is no status).
        Row(.httpForbidden, http, httpClass, ["status code: 403"], .forbidden),
        // EACCES: "sh: 1: /x/ssh: Permission denied".
        Row(.permissionDenied, .shell, net, ["permission denied"], .forbidden),
        // receive-pack: "insufficient permission for adding an object to repository database ./objects".
        Row(.insufficientPermission, .gitServer, net, ["insufficient permission"], .forbidden),
        // gitolite: "FATAL: W any x.git user DENIED by fallthru"; git daemon's own "denied" is about a missing
        // repository.
        Row(.deniedByHost, .hosting, net, ["denied"], unless: ["access denied or repository not exported"], .forbidden),
        // upload-pack, receive-pack: "fatal: '/x.git' does not appear to be a git repository".
        Row(
            .gitNotARepository, .gitServer, net, ["does not appear to be a git repository", "not a git repository"],
            .missingRepository),
        Row(.daemonNoSuchRepository, .gitDaemon, net, ["no such repository"], .missingRepository),
        // Without --informative-errors: "remote error: access denied or repository not exported: /x.git".
        Row(.daemonNotExported, .gitDaemon, net, ["repository not exported"], .missingRepository),
        Row(.httpNotFound, http, httpClass, ["status code: 404"], .missingRepository),
        // "Can't open user config file /x: No such file or directory".
        Row(.noSuchFile, .openSSH, net, ["no such file"], .missingRepository),
        // dash: "/x/ssh: 1: /x/ssh: not found".
        Row(.commandNotFound, .shell, net, ["not found"], .missingRepository),
        // For a path that does not exist (so is no local remote): "unsupported URL protocol".
        Row(
            .unsupportedProtocolForPath, .libgit2("src/libgit2/transport.c"), net, ["unsupported url protocol"],
            scope: .schemeless, .missingRepository),
        // From a plain web server: "invalid content-type: 'application/octet-stream'".
        Row(.dumbHTTPContentType, http, httpClass, ["invalid content-type"], .dumbHTTP),
        // "failed to connect to 127.0.0.1: Connection refused".
        Row(.libgit2ConnectFailed, socket, os, ["failed to connect"], .unreachable),
        // "failed to resolve address for x: Name or service not known".
        Row(.libgit2ResolveFailed, socket, net, ["resolve address"], .unreachable),
        // "ssh: connect to host 127.0.0.1 port 22: Connection refused".
        Row(.sshConnectionRefused, .openSSH, net, ["connection refused"], .unreachable),
        // "ssh: Could not resolve hostname x: Name or service not known".
        Row(.sshCouldNotResolve, .openSSH, net, ["could not resolve"], .unreachable),
        // "Connection timed out during banner exchange".
        Row(.sshTimedOut, .openSSH, net, ["timed out"], .unreachable),
        // "ssh: connect to host 224.0.0.1 port 22: Network is unreachable".
        Row(.networkUnreachable, .openSSH, net, ["unreachable"], .unreachable),
        Row(.noRouteToHost, .openSSH, net, ["no route to host"], .unreachable),
        // libssh2 cannot speak with the server: "failed to start SSH session: Failed getting banner".
        Row(
            .libssh2SessionFailed, .libgit2("src/libgit2/transports/ssh.c"), ssh, ["failed to start ssh session"],
            unless: ["unexpected"], .unreachable),
        // A connection that breaks off: "error sending data: Broken pipe", "error receiving socket data: Connection
        // reset by peer", "Connection closed by 127.0.0.1 port 22", "http parser error: stream ended at an
        // unexpected time".
        Row(.brokenPipe, socket, net, ["broken pipe"], .interrupted),
        Row(.connectionReset, socket, net, ["reset by peer"], .interrupted),
        Row(.connectionClosed, .openSSH, net, ["closed"], .interrupted),
        Row(.httpStreamEnded, .libgit2("src/libgit2/transports/httpclient.c"), httpClass, ["unexpected"], .interrupted),
        // A stream cut short inside a message: libgit2's "unexpected EOF", "incomplete pack header"; OpenSSH's
        // "incomplete message".
        Row(
            .truncatedStream, .libgit2("src/libgit2/transports/smart_pkt.c"), net, ["eof", "short read", "incomplete"],
            .interrupted),
    ]

    /// The first row whose words `message` (lower-cased, without the remote's address) holds, for a remote at `url`
    /// carried by `ssh`.
    static func row(for message: String, url: String, ssh: SSHClient) -> Row? {
        rows.first { row in
            switch row.scope {
            case .any: break
            case .ssh: guard RemoteURL.isSSH(url) else { return false }
            case .libssh2: guard ssh == .libssh2 else { return false }
            case .schemeless: guard !url.contains("://") else { return false }
            }
            return row.words.contains(where: message.contains) && !row.unless.contains(where: message.contains)
        }
    }
}
