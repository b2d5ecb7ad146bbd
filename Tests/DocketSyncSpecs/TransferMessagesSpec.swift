import DocketSpecSupport
import Foundation
import Nimble
import Quick

@testable import DocketGit

/// Every row of `TransferMessages`, produced for real: a server on 127.0.0.1 (or this machine) fails, and the
/// row is what classified libgit2's error. The last example checks that every row was produced here, so a new
/// row needs an example; so do the failures classified by libgit2's code rather than by words.
final class TransferMessagesSpec: QuickSpec {
    /// Rows no example can produce on this machine, and why.
    static let unproducible: [TransferMessages.Row.ID: String] = [
        .noRouteToHost: "EHOSTUNREACH needs a route that rejects, or a neighbour that does not answer, on another "
            + "network; only a change to this machine's routing would make one for 127.0.0.1",
        .insufficientPermission: "receive-pack says it when the repository's objects folder is not writable, and "
            + "specs run as root here, whom file permissions do not stop",
        .truncatedStream: "it needs a server that ends a stream inside a message; git daemon, sshd and http-backend "
            + "cut by CuttingProxy end in 'early EOF' (GIT_EEOF), a broken pipe, a closed connection, or the http "
            + "parser's 'unexpected time' (rows and codes produced below)",
    ]

    /// The rows the examples produced.
    nonisolated(unsafe) static var produced: Set<TransferMessages.Row.ID> = []

    override class func spec() {
        var root: URL!
        beforeEach { root = temporaryFolder("docket-messages") }
        afterEach { try? FileManager.default.removeItem(at: root) }
        // NB: a server per example, stopped after it, as the other specs do: Foundation's Process, waiting for one
        // child, can hang in waitpid on another that keeps running, such as a server kept for a whole describe.

        /// Options that keep ssh and libgit2 from the real ~/.ssh: OpenSSH reads `home`'s config, libssh2 `knownHosts`.
        func options(
            home: URL? = nil, ssh: SSHClient = .openSSH, keys: [String] = [], knownHosts: String = "/dev/null",
            environment extra: [String: String] = [:]
        ) -> TransferOptions {
            let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
            var environment = ["PATH": path].merging(extra) { $1 }
            if let home { environment["HOME"] = home.path }
            return TransferOptions(
                sshKeyFiles: keys, useSSHAgent: false, knownHostsFile: knownHosts, ssh: ssh,
                useCredentialHelpers: false, environment: environment)
        }

        /// The classification of the failure `body` meets with these options.
        func failure(_ options: TransferOptions, _ body: (TransferOptions) throws -> Void) -> TransferClassification? {
            let seen = Seen()
            var options = options
            options.classified = { seen.add($0) }
            do {
                try body(options)
                fail("the transfer worked")
            } catch {}
            return seen.last
        }

        func clone(_ url: String, _ options: TransferOptions) -> TransferClassification? {
            let target = root.appendingPathComponent("clone-\(UUID())").path
            return failure(options) { _ = try Repository.clone(url: url, to: target, options: $0) }
        }

        /// Pushes a new commit with `bytes` of random data to `url`: a first one, or one after those of `base`.
        func push(
            _ url: String, _ options: TransferOptions, after base: URL? = nil,
            bytes: Int = 0
        ) -> TransferClassification? {
            let local = root.appendingPathComponent("local-\(UUID())")
            if let base {
                gitCLI(["clone", "-q", base.path, local.path], in: root)
                gitCLI(["remote", "set-url", "origin", url], in: local)
            } else {
                gitCLI(["init", "-q", "-b", "main", local.path], in: root)
                gitCLI(["remote", "add", "origin", url], in: local)
            }
            runCommand("sh", ["-c", "head -c \(bytes) /dev/urandom > pushed"], in: local)
            gitCLI(["add", "pushed"], in: local)
            gitCLI(["commit", "-q", "-m", "pushed"], in: local)
            return failure(options) {
                try Repository.open(at: local.path).push(remote: "origin", reference: "refs/heads/main", options: $0)
            }
        }

        /// Expects the row to have classified the failure, with the error class the table gives it.
        func expectRow(
            _ id: TransferMessages.Row.ID, _ seen: TransferClassification?, file: FileString = #file,
            line: UInt = #line
        ) {
            let row = TransferMessages.rows.first { $0.id == id }!
            expect(file: file, line: line, seen?.basis).to(equal(.row(id)), description: said(seen))
            expect(file: file, line: line, seen?.raw.errorClass) == Int32(row.errorClass.rawValue)
            produced.insert(id)
        }

        /// Expects libgit2's code to have classified the failure, as `meaning` says.
        func expectCode(
            _ seen: TransferClassification?, _ meaning: (TransferError) -> Bool, file: FileString = #file,
            line: UInt = #line
        ) {
            expect(file: file, line: line, seen?.basis).to(equal(.code), description: said(seen))
            let means = seen.map { meaning($0.error) }
            expect(file: file, line: line, means).to(equal(true), description: said(seen))
        }

        /// What libgit2 said, for a failing expectation.
        func said(_ seen: TransferClassification?) -> String {
            seen.map { "\($0.error) (code \($0.raw.code): \($0.raw.message))" } ?? "no failure"
        }

        it("runs on the libgit2 the message table was checked against") {
            expect(LibGit2.version).to(
                equal(TransferMessages.libgit2Version),
                description: "libgit2 is not the one "
                    + "the words of TransferMessages were checked against: re-check the message table, row by row, "
                    + "then set libgit2Version")
        }

        describe("OpenSSH, through the ssh program") {
            var server: SSHServer!
            var home: URL!
            var remote: URL!
            beforeEach {
                server = SSHServer()
                home = root.appendingPathComponent("home")
                try! FileManager.default.createDirectory(
                    at: home.appendingPathComponent(".ssh"),
                    withIntermediateDirectories: true)
                remote = root.appendingPathComponent("remote.git")
                gitCLI(["init", "-q", "--bare", "-b", "main", remote.path], in: root)
            }
            afterEach { server.stop() }
            /// ~/.ssh/config in the scratch home, naming the server `lists`.
            func writeConfig(
                keys: [String]? = nil, knownHosts: String? = nil, host: String = "127.0.0.1",
                port: Int? = nil, extra: String = ""
            ) {
                let config = """
                    Host lists
                      HostName \(host)
                      Port \(port ?? server.port)
                      User \(server.user)
                    \((keys ?? [server.userKey]).map { "  IdentityFile \($0)" }.joined(separator: "\n"))
                      IdentitiesOnly yes
                      UserKnownHostsFile \(knownHosts ?? server.knownHosts)
                      GlobalKnownHostsFile /dev/null
                      BatchMode yes
                    \(extra)
                    """
                try! config.write(to: home.appendingPathComponent(".ssh/config"), atomically: true, encoding: .utf8)
            }
            func newKey(_ name: String) -> String {
                let key = root.appendingPathComponent(name).path
                runCommand("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", key])
                return key
            }
            func cloneLists(_ environment: [String: String] = [:]) -> TransferClassification? {
                clone("lists:\(remote.path)", options(home: home, environment: environment))
            }

            it("says a host's key changed") {
                let other = newKey("other_host_key")
                let key = try String(contentsOfFile: other + ".pub", encoding: .utf8).split(separator: " ").prefix(2)
                    .joined(separator: " ")
                let forged = root.appendingPathComponent("forged").path
                try "[127.0.0.1]:\(server.port) \(key)\n".write(toFile: forged, atomically: true, encoding: .utf8)
                writeConfig(knownHosts: forged)
                expectRow(.sshHostKeyChanged, cloneLists())
            }
            it("says a host is unknown") {
                writeConfig(knownHosts: "/dev/null")
                expectRow(.sshHostKeyVerificationFailed, cloneLists())
            }
            it("says too many keys were refused") {
                writeConfig(keys: (1...7).map { newKey("stranger\($0)") })
                expectRow(.sshTooManyAuthenticationFailures, cloneLists())
            }
            it("says a key was refused") {
                writeConfig(keys: [newKey("stranger")])
                expectRow(.sshPermissionDenied, cloneLists())
            }
            it("passes on a host's refusal") {
                let key = newKey("refused")
                let refusal = "command=\"echo 'FATAL: R any remote.git docket DENIED by fallthru' >&2; exit 1\" "
                let line = refusal + (try String(contentsOfFile: key + ".pub", encoding: .utf8))
                let authorized = server.folder.appendingPathComponent("authorized_keys").path
                let lines = try String(contentsOfFile: authorized, encoding: .utf8) + line
                try lines.write(toFile: authorized, atomically: true, encoding: .utf8)
                writeConfig(keys: [key])
                expectRow(.deniedByHost, cloneLists())
            }
            it("says a path holds no repository") {
                writeConfig()
                expectRow(.gitNotARepository, clone("lists:\(root.path)/nothing.git", options(home: home)))
            }
            it("passes on ssh's missing file") {
                expectRow(.noSuchFile, cloneLists(["GIT_SSH_COMMAND": "ssh -F \(root.path)/nothing.conf"]))
            }
            it("passes on the shell's missing command") {
                expectRow(.commandNotFound, cloneLists(["GIT_SSH_COMMAND": "\(root.path)/nothing/ssh"]))
            }
            it("passes on the shell's refusal to run a file that is no program") {
                let file = root.appendingPathComponent("not-a-program").path
                _ = FileManager.default.createFile(
                    atPath: file, contents: Data("ssh\n".utf8),
                    attributes: [.posixPermissions: 0o644])
                expectRow(.permissionDenied, cloneLists(["GIT_SSH_COMMAND": file]))
            }
            it("knows a missing ssh program, and one it may not run, by the errno of starting it") {
                let missing = cloneLists(["GIT_SSH": "\(root.path)/nothing/ssh"])
                expect(missing?.basis).to(equal(.errno), description: said(missing))
                guard case .missingRepository = missing?.error else { return fail(said(missing)) }
                let file = root.appendingPathComponent("not-a-program").path
                _ = FileManager.default.createFile(
                    atPath: file, contents: Data("ssh\n".utf8),
                    attributes: [.posixPermissions: 0o644])
                let refused = cloneLists(["GIT_SSH": file])
                expect(refused?.basis).to(equal(.errno), description: said(refused))
                guard case .forbidden = refused?.error else { return fail(said(refused)) }
            }
            it("says a port is closed") {
                writeConfig(port: freePort())
                expectRow(.sshConnectionRefused, cloneLists())
            }
            it("says a name does not resolve") {
                // NB: the resolver refuses a label over 63 characters before it sends any query.
                writeConfig(host: String(repeating: "a", count: 70) + ".invalid")
                expectRow(.sshCouldNotResolve, cloneLists())
            }
            it("says a server never answered") {
                let silent = MisbehavingServer("silent")
                defer { silent.stop() }
                writeConfig(port: silent.port, extra: "  ConnectTimeout 1")
                expectRow(.sshTimedOut, cloneLists())
            }
            it("says a network is unreachable") {
                // NB: Linux refuses a TCP connection to a multicast address (ENETUNREACH) without sending anything.
                writeConfig(host: "224.0.0.1")
                expectRow(.networkUnreachable, cloneLists())
            }
            it("says a server closed the connection") {
                let closing = MisbehavingServer("close")
                defer { closing.stop() }
                writeConfig(port: closing.port)
                expectRow(.connectionClosed, cloneLists())
            }
        }

        describe("libssh2") {
            var server: SSHServer!
            beforeEach { server = SSHServer(hostKeyTypes: ["rsa", "ed25519"]) }
            afterEach { server.stop() }

            it("says it could not speak with a server") {
                let closing = MisbehavingServer("close")
                defer { closing.stop() }
                let url = "ssh://\(server.user)@127.0.0.1:\(closing.port)/x.git"
                let libssh2 = options(ssh: .libssh2, keys: [server.userKey], knownHosts: server.knownHosts)
                expectRow(.libssh2SessionFailed, clone(url, libssh2))
            }
            it("knows a refused key by its code") {
                let key = root.appendingPathComponent("stranger").path
                runCommand("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", key])
                let libssh2 = options(ssh: .libssh2, keys: [key], knownHosts: server.knownHosts)
                let seen = clone(server.url(root.path), libssh2)
                expectCode(seen) { if case .authentication = $0 { true } else { false } }
            }
            it("says an ssh-rsa line first in known_hosts stops it, through the docket tool in a scratch $HOME") {
                // NB: libgit2 reads known_hosts under the $HOME it started with, so this runs the tool with a scratch
                // HOME inside the spec's folder; its DOCKET_TRANSFER_TRACE says what classified the failure.
                let home = root.appendingPathComponent("home").path
                try FileManager.default.createDirectory(atPath: home + "/.ssh", withIntermediateDirectories: true)
                let rsaFirst = server.hostKeyLines.sorted { $0.contains("ssh-rsa") && !$1.contains("ssh-rsa") }
                let scratchKnownHosts = home + "/.ssh/known_hosts"
                try (rsaFirst.joined(separator: "\n") + "\n").write(
                    toFile: scratchKnownHosts, atomically: true, encoding: .utf8)
                let remote = root.appendingPathComponent("remote.git").path
                gitCLI(["init", "-q", "--bare", "-b", "main", remote], in: root)
                let environment = [
                    "HOME": home, "DOCKET_SSH": "libssh2", "DOCKET_SSH_KEY": server.userKey,
                    "DOCKET_TRANSFER_TRACE": "1",
                ]
                let target = root.appendingPathComponent("laptop").path
                let refused = runCommand(docketBinary, ["clone", server.url(remote), target], environment: environment)
                let row = TransferMessages.rows.first { $0.id == .libssh2KeyExchange }!
                expect(refused.stderr)
                    .to(contain("classified by row libssh2KeyExchange (code -1, class \(row.errorClass.rawValue))"))
                produced.insert(.libssh2KeyExchange)
            }
        }

        describe("git daemon") {
            var daemon: GitDaemon!
            beforeEach {
                gitCLI(
                    ["init", "-q", "--bare", "-b", "main", root.appendingPathComponent("remote.git").path], in: root)
                daemon = GitDaemon(serving: root, pushes: false)
            }
            afterEach { daemon.stop() }

            it("says it takes no pushes") {
                expectRow(.daemonServiceNotEnabled, push(daemon.url("remote.git"), options()))
            }
            it("says a repository is not there") {
                expectRow(.daemonNoSuchRepository, clone(daemon.url("nothing.git"), options()))
            }
            it("says a repository is not there, when it says no more than that") {
                let terse = GitDaemon(serving: root, informativeErrors: false)
                defer { terse.stop() }
                expectRow(.daemonNotExported, clone(terse.url("nothing.git"), options()))
            }
            it("says a port is closed") {
                expectRow(.libgit2ConnectFailed, clone("git://127.0.0.1:\(freePort())/remote.git", options()))
            }
            it("says a name does not resolve") {
                let url = "git://\(String(repeating: "a", count: 70)).invalid/remote.git"
                expectRow(.libgit2ResolveFailed, clone(url, options()))
            }
            it("says a server reset the connection") {
                let resetting = MisbehavingServer("reset")
                defer { resetting.stop() }
                expectRow(.connectionReset, clone("git://127.0.0.1:\(resetting.port)/remote.git", options()))
            }
            it("knows a server that hung up by its code") {
                let closing = MisbehavingServer("close")
                defer { closing.stop() }
                let seen = clone("git://127.0.0.1:\(closing.port)/remote.git", options())
                expectCode(seen) { if case .interrupted = $0 { true } else { false } }
            }
        }

        describe("a connection that breaks off") {
            var remote: URL!
            beforeEach {
                remote = root.appendingPathComponent("remote.git")
                let work = root.appendingPathComponent("work")
                gitCLI(["init", "-q", "-b", "main", work.path], in: root)
                runCommand("sh", ["-c", "head -c 1000000 /dev/urandom > blob"], in: work)
                gitCLI(["add", "blob"], in: work)
                gitCLI(["commit", "-qm", "blob"], in: work)
                gitCLI(["clone", "-q", "--bare", work.path, remote.path], in: root)
            }

            it("mid-push says the pipe broke") {
                let daemon = GitDaemon(serving: root)
                defer { daemon.stop() }
                let proxy = CuttingProxy(to: daemon.port, direction: "up", bytes: 4000)
                defer { proxy.stop() }
                let url = "git://127.0.0.1:\(proxy.port)/remote.git"
                // NB: on a busy machine libgit2 can meet the end of the stream (GIT_EEOF, classified by its code)
                // before its send fails; the cut is made again until the send is what fails, as it is on a quiet one.
                var seen = push(url, options(), after: remote, bytes: 1_000_000)
                for _ in 0..<4 where seen?.basis != .row(.brokenPipe) {
                    seen = push(url, options(), after: remote, bytes: 1_000_000)
                }
                expectRow(.brokenPipe, seen)
            }
            it("mid-fetch over http says the stream ended") {
                let web = HTTPSGitServer(serving: root, plain: true)
                defer { web.stop() }
                let proxy = CuttingProxy(to: web.port, direction: "down", bytes: 4000)
                defer { proxy.stop() }
                var http = options()
                (http.httpsUser, http.httpsToken) = (web.user, web.token)
                expectRow(.httpStreamEnded, clone("http://127.0.0.1:\(proxy.port)/remote.git", http))
            }
        }

        describe("https") {
            var server: HTTPSGitServer!
            var https: TransferOptions!
            var name: String!
            var remote: URL!
            beforeEach {
                name = "remote.git"
                remote = root.appendingPathComponent(name)
                gitCLI(["init", "-q", "--bare", "-b", "main", remote.path], in: root)
                server = HTTPSGitServer(serving: root)
                https = options(environment: ["GIT_SSL_CAINFO": server.certificate])
                (https.httpsUser, https.httpsToken) = (server.user, server.token)
            }
            afterEach { server.stop() }

            it("says a folder is served plainly") {
                gitCLI(["update-server-info"], in: remote)
                expectRow(.dumbHTTPContentType, clone(server.url("static/" + name), https))
            }
            it("says a repository is not there") {
                expectRow(.httpNotFound, clone(server.url("nothing.git"), https))
            }
            it("says a push is forbidden") {
                gitCLI(["config", "http.receivepack", "false"], in: remote)
                expectRow(.httpForbidden, push(server.url(name), https))
            }
            it("says a server sent it round in circles") {
                let circling = MisbehavingServer("redirect")
                defer { circling.stop() }
                expectRow(.libgit2Authentication, clone("http://127.0.0.1:\(circling.port)/remote.git", options()))
            }
            it("knows a wrong token by its code") {
                https.httpsToken = "wrong"
                expectCode(clone(server.url(name), https)) { if case .authentication = $0 { true } else { false } }
            }
            it("knows a push of a history the remote does not share by its code") {
                let other = root.appendingPathComponent("other")
                gitCLI(["init", "-q", "-b", "main", other.path], in: root)
                gitCLI(["commit", "-q", "--allow-empty", "-m", "theirs"], in: other)
                gitCLI(["push", "-q", remote.path, "main"], in: other)
                expectCode(push(server.url(name), https)) { if case .rejected = $0 { true } else { false } }
            }
        }

        describe("this machine") {
            it("says a path holds no repository") {
                let path = root.appendingPathComponent("nothing.git").path
                expectRow(.unsupportedProtocolForPath, clone(path, options()))
            }
            it("knows a folder that is no repository by its code") {
                let empty = root.appendingPathComponent("empty.git")
                try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
                expectCode(clone(empty.path, options())) { if case .missingRepository = $0 { true } else { false } }
            }
            it("names safe.directory for a folder repository another user owns, not a missing one") {
                // NB: giving a folder to another user needs root; elsewhere (a CI runner as a plain user) this passes
                // without looking.
                guard getuid() == 0 else { return }
                let theirs = root.appendingPathComponent("theirs.git")
                gitCLI(["init", "-q", "--bare", theirs.path], in: root)
                expect(chown(theirs.path, 65534, 65534)) == 0
                expectCode(clone(theirs.path, options())) {
                    if case .unsafeOwner(_, theirs.path) = $0 { true } else { false }
                }
            }
        }

        describe("the table") {
            it("has every row produced above, or says why it cannot be") {
                for row in TransferMessages.rows where unproducible[row.id] == nil {
                    expect(produced).to(contain(row.id), description: "no example produced the row \(row.id)")
                }
                expect(Set(TransferMessages.rows.map(\.id))) == Set(TransferMessages.Row.ID.allCases)
                expect(Set(unproducible.keys).isDisjoint(with: produced)) == true
            }
        }
    }
}

/// The classifications a transfer reported (libgit2 may call back from its own thread).
private final class Seen: @unchecked Sendable {
    private let lock = NSLock()
    private var all: [TransferClassification] = []

    func add(_ classification: TransferClassification) { lock.withLock { all.append(classification) } }
    var last: TransferClassification? { lock.withLock { all.last } }
}
