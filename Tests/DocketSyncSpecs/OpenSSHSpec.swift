import Docket
import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// ssh through the system's OpenSSH, driven through the docket tool with `$HOME` in a scratch folder.
final class OpenSSHSpec: QuickSpec {
    override class func spec() {
        describe("ssh through OpenSSH") {
            var root: URL!
            var home: URL!
            var remote: URL!
            var server: SSHServer!
            var environment: [String: String]!
            beforeEach {
                root = temporaryFolder("docket-openssh")
                home = root.appendingPathComponent("home")
                try! FileManager.default.createDirectory(
                    at: home.appendingPathComponent(".ssh"), withIntermediateDirectories: true)
                remote = root.appendingPathComponent("remote.git")
                gitCLI(["init", "-q", "--bare", "-b", "main", remote.path], in: root)
                server = SSHServer(hostKeyTypes: ["rsa", "ed25519"])
                environment = ["HOME": home.path]
            }
            afterEach {
                server.stop()
                try? FileManager.default.removeItem(at: root)
            }
            /// ~/.ssh/config with a `lists` alias for the server.
            func writeConfig(key: String, knownHosts: String? = nil, extra: String = "") {
                let config = """
                    Host lists
                      HostName 127.0.0.1
                      Port \(server.port)
                      User \(server.user)
                      IdentityFile \(key)
                      IdentitiesOnly yes
                      UserKnownHostsFile \(knownHosts ?? server.knownHosts)
                      BatchMode yes
                    \(extra)
                    """
                try! config.write(to: home.appendingPathComponent(".ssh/config"), atomically: true, encoding: .utf8)
            }
            func clone(_ url: String, _ name: String, _ env: [String: String]? = nil) -> CommandResult {
                runCommand(
                    docketBinary, ["clone", url, root.appendingPathComponent(name).path],
                    environment: env ?? environment)
            }
            func machine(_ name: String) -> Machine { Machine(folder: root.appendingPathComponent(name)) }

            it("reaches a Host alias from ~/.ssh/config, with its port, user and key") {
                writeConfig(key: server.userKey)
                expect(clone("lists:\(remote.path)", "laptop").status) == 0
                machine("laptop").run("add", "Through the alias")
                let synced = machine("laptop").run("sync", environment: environment)
                expect(synced.stdout).to(contain("Pushed to origin."))
                expect(clone("ssh://lists\(remote.path)", "desk").status) == 0
                expect(machine("desk").state.todos.map(\.text)) == ["Through the alias"]
            }
            it("signs with an RSA key, which OpenSSH 9 refuses from libssh2") {
                writeConfig(key: server.userRSAKey)
                let cloned = clone("lists:\(remote.path)", "laptop")
                expect(cloned.stderr) == ""
                expect(cloned.status) == 0
            }
            it("uses a key protected by a passphrase through the agent") {
                let locked = root.appendingPathComponent("locked").path
                try FileManager.default.copyItem(atPath: server.userKey, toPath: locked)
                chmod(locked, 0o600)
                runCommand("ssh-keygen", ["-q", "-p", "-P", "", "-N", "s3cret phrase", "-f", locked])
                writeConfig(key: locked)
                // Without the agent, ssh cannot ask (BatchMode here), and says so in ssh's words.
                let refused = clone("lists:\(remote.path)", "laptop")
                expect(refused.status) == 1
                expect(refused.stderr).to(contain("did not accept the credentials"))
                let socket = server.startAgent(adding: false)
                let askpass = root.appendingPathComponent("askpass").path
                try "#!/bin/sh\necho 's3cret phrase'\n".write(toFile: askpass, atomically: true, encoding: .utf8)
                chmod(askpass, 0o755)
                expect(
                    runCommand(
                        "ssh-add", [locked],
                        environment: [
                            "SSH_AUTH_SOCK": socket, "SSH_ASKPASS": askpass,
                            "SSH_ASKPASS_REQUIRE": "force", "DISPLAY": ":0",
                        ]
                    ).status) == 0
                var withAgent = environment!
                withAgent["SSH_AUTH_SOCK"] = socket
                expect(clone("lists:\(remote.path)", "laptop", withAgent).status) == 0
            }
            it(
                "connects whichever host key known_hosts lists first; through libssh2 an ssh-rsa line first is named, with the fix"
            ) {
                let rsaFirst = server.hostKeyLines.sorted { $0.contains("ssh-rsa") && !$1.contains("ssh-rsa") }
                for (index, order) in [rsaFirst, rsaFirst.reversed()].enumerated() {
                    let knownHosts = root.appendingPathComponent("known_hosts_\(index)").path
                    try (order.joined(separator: "\n") + "\n").write(
                        toFile: knownHosts, atomically: true, encoding: .utf8)
                    writeConfig(key: server.userKey, knownHosts: knownHosts)
                    expect(clone("lists:\(remote.path)", "openssh-\(index)").status) == 0
                }
                // libssh2, where there is no ssh program: libgit2 and Docket read the known_hosts of $HOME, a scratch
                // one here.
                let scratchHome = root.appendingPathComponent("libssh2-home").path
                let knownHosts = scratchHome + "/.ssh/known_hosts"
                try FileManager.default.createDirectory(
                    atPath: scratchHome + "/.ssh", withIntermediateDirectories: true)
                let libssh2 = ["DOCKET_SSH": "libssh2", "DOCKET_SSH_KEY": server.userKey, "HOME": scratchHome]
                try (rsaFirst.joined(separator: "\n") + "\n").write(
                    toFile: knownHosts, atomically: true, encoding: .utf8)
                let refused = clone(server.url(remote.path), "libssh2-rsa-first", libssh2)
                expect(refused.stderr).to(contain("move the host's ssh-ed25519 or ecdsa line above its ssh-rsa line"))
                // As the message says: the ed25519 line first.
                try (rsaFirst.reversed().joined(separator: "\n") + "\n").write(
                    toFile: knownHosts, atomically: true, encoding: .utf8)
                let cloned = clone(server.url(remote.path), "libssh2-ed25519-first", libssh2)
                expect(cloned.stderr) == ""
                expect(cloned.status) == 0
            }
            it("says how to accept an unknown host, port included, and works once it is accepted") {
                let empty = root.appendingPathComponent("empty_known_hosts").path
                _ = FileManager.default.createFile(atPath: empty, contents: nil)
                writeConfig(
                    key: server.userKey, knownHosts: empty,
                    extra: "Host 127.0.0.1\n  UserKnownHostsFile \(empty)\n  IdentityFile \(server.userKey)\n")
                let url = "ssh://\(server.user)@127.0.0.1:\(server.port)\(remote.path)"
                let refused = clone(url, "laptop")
                expect(refused.status) == 1
                expect(refused.stderr) == "Error: ssh does not know the host [127.0.0.1]:\(server.port) yet; "
                    + "connect once with 'ssh -p \(server.port) 127.0.0.1' to check its key and accept it, then try again\n"
                // As the message says (answering yes, as accept-new does; -F is where ssh reads $HOME's config here).
                let accepted = runCommand(
                    "ssh",
                    [
                        "-F", home.appendingPathComponent(".ssh/config").path, "-o", "StrictHostKeyChecking=accept-new",
                        "-p", "\(server.port)", "127.0.0.1", "true",
                    ])
                expect(accepted.stderr).to(contain("Permanently added"))
                expect(clone(url, "laptop").status) == 0
            }
            it("says a changed host key may mean someone is in between") {
                let otherKey = root.appendingPathComponent("other_host_key").path
                runCommand("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", otherKey])
                let otherPublic = try String(contentsOfFile: otherKey + ".pub", encoding: .utf8).split(separator: " ")
                    .prefix(2).joined(separator: " ")
                let forged = root.appendingPathComponent("forged_known_hosts").path
                try "[127.0.0.1]:\(server.port) \(otherPublic)\n".write(
                    toFile: forged, atomically: true, encoding: .utf8)
                writeConfig(key: server.userKey, knownHosts: forged)
                let refused = clone("lists:\(remote.path)", "laptop")
                expect(refused.status) == 1
                expect(refused.stderr).to(
                    contain("showed a key that differs from the one ssh knows; someone may be in between"))
            }
            it("runs GIT_SSH_COMMAND, and core.sshCommand from git's configuration") {
                let command =
                    "ssh -i \(server.userKey) -o IdentitiesOnly=yes -o UserKnownHostsFile=\(server.knownHosts) -o BatchMode=yes"
                var withCommand = environment!
                withCommand["GIT_SSH_COMMAND"] = command
                expect(clone(server.url(remote.path), "laptop", withCommand).status) == 0
                gitCLI(["config", "--global", "core.sshCommand", command], in: root, environment: environment)
                let desk = clone(server.url(remote.path), "desk")
                expect(desk.stderr) == ""
                machine("desk").run("add", "Through core.sshCommand")
                expect(machine("desk").run("sync", environment: environment).stdout).to(contain("Pushed to origin."))
            }
            it("says when the key is not accepted, in one line") {
                let stranger = root.appendingPathComponent("stranger").path
                runCommand("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", stranger])
                writeConfig(key: stranger)
                let refused = clone("lists:\(remote.path)", "laptop")
                expect(refused.status) == 1
                expect(refused.stderr).to(
                    contain(
                        "lists:\(remote.path) did not accept the credentials (\(server.user)@127.0.0.1: Permission denied (publickey).)"
                    ))
                expect(refused.stderr.split(separator: "\n").count) == 1
            }
            it("says a repository is missing") {
                writeConfig(key: server.userKey)
                let missing = clone("lists:\(root.path)/nothing.git", "laptop")
                expect(missing.status) == 1
                expect(missing.stderr).to(contain("there is no git repository at lists:\(root.path)/nothing.git"))
                // The server quotes the path; "403" and "denied" in it are no sign of a refusal.
                let named = clone("lists:\(root.path)/9403-denied.git", "desk")
                expect(named.stderr).to(contain("there is no git repository at lists:\(root.path)/9403-denied.git"))
            }
            it("shows what the server's hooks say, and a declining hook's reason") {
                writeConfig(key: server.userKey)
                expect(clone("lists:\(remote.path)", "laptop").status) == 0
                let post = remote.appendingPathComponent("hooks/post-receive")
                try "#!/bin/sh\necho 'deployed the lists'\n".write(to: post, atomically: true, encoding: .utf8)
                chmod(post.path, 0o755)
                machine("laptop").run("add", "First")
                let pushed = machine("laptop").run("sync", environment: environment)
                expect(pushed.stderr).to(contain("remote: deployed the lists"))
                let pre = remote.appendingPathComponent("hooks/pre-receive")
                try "#!/bin/sh\necho 'lists are frozen until Monday' >&2\nexit 1\n".write(
                    to: pre, atomically: true, encoding: .utf8)
                chmod(pre.path, 0o755)
                machine("laptop").run("add", "Second")
                let declined = machine("laptop").run("sync", environment: environment)
                expect(declined.status) == 1
                expect(declined.stderr).to(
                    contain(
                        "declined the update of refs/heads/main (pre-receive hook declined); the server said: lists are frozen until Monday"
                    ))
            }
        }
    }
}
