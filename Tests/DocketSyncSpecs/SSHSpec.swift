import Docket
import DocketGit
import DocketSpecSupport
import Foundation
import Nimble
import Quick

final class SSHSpec: QuickSpec {
    override class func spec() {
        describe("sync over ssh") {
            var root: URL!
            var remote: URL!
            var server: SSHServer!
            var options: TransferOptions!
            beforeEach {
                root = temporaryFolder("docket-ssh")
                remote = root.appendingPathComponent("remote.git")
                gitCLI(["init", "-q", "--bare", "-b", "main", remote.path], in: root)
                server = SSHServer()
                options = TransferOptions(
                    sshKeyFiles: [server.userKey], useSSHAgent: false, knownHostsFile: server.knownHosts,
                    httpsUser: nil, httpsToken: nil, progress: nil, ssh: .libssh2)
            }
            afterEach {
                server.stop()
                unsetenv("SSH_AUTH_SOCK")
                try? FileManager.default.removeItem(at: root)
            }

            it("clones, syncs and pulls with a key file") {
                let laptop = try Store.clone(
                    url: server.url(remote.path), into: root.appendingPathComponent("laptop"), options: options)
                try laptop.edit { $0.alter(by: .adding(.todo(TodoItem(text: "Over ssh")))) }
                let outcome = try laptop.sync(options: options)
                expect(outcome.pushed).toNot(beNil())
                let desk = try Store.clone(
                    url: server.url(remote.path), into: root.appendingPathComponent("desk"), options: options)
                expect(try desk.load().state.todos.map(\.text)) == ["Over ssh"]
            }
            it("authenticates with the ssh-agent") {
                setenv("SSH_AUTH_SOCK", server.startAgent(), 1)
                var agentOnly = options!
                agentOnly.sshKeyFiles = []
                agentOnly.useSSHAgent = true
                let laptop = try Store.clone(
                    url: server.url(remote.path), into: root.appendingPathComponent("laptop"), options: agentOnly)
                try laptop.edit { $0.alter(by: .adding(.todo(TodoItem(text: "Through the agent")))) }
                expect(try laptop.sync(options: agentOnly).pushed).toNot(beNil())
            }
            it("falls back to the key file when SSH_AUTH_SOCK names an agent that is gone") {
                setenv("SSH_AUTH_SOCK", root.appendingPathComponent("gone.sock").path, 1)
                var withAgent = options!
                withAgent.useSSHAgent = true
                let laptop = try Store.clone(
                    url: server.url(remote.path), into: root.appendingPathComponent("laptop"), options: withAgent)
                expect(try laptop.load().problems).to(beEmpty())
            }
            it("says a key protected by a passphrase goes to the agent, and works once it is there") {
                let locked = root.appendingPathComponent("locked").path
                try FileManager.default.copyItem(atPath: server.userKey, toPath: locked)
                chmod(locked, 0o600)
                runCommand("ssh-keygen", ["-q", "-p", "-P", "", "-N", "s3cret phrase", "-f", locked])
                var passphrase = options!
                passphrase.sshKeyFiles = [locked]
                let target = root.appendingPathComponent("laptop")
                expect { try Store.clone(url: server.url(remote.path), into: target, options: passphrase) }
                    .to(throwError(StoreError.transfer(.passphraseKey(url: server.url(remote.path), key: locked))))
                // As the message says: add it to the agent (ssh-add asks for the passphrase through SSH_ASKPASS here).
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
                setenv("SSH_AUTH_SOCK", socket, 1)
                passphrase.useSSHAgent = true
                expect(try Store.clone(url: server.url(remote.path), into: target, options: passphrase).load().problems)
                    .to(beEmpty())
            }
            it("refuses a host that is not in known_hosts, saying how to accept it, and leaves nothing behind") {
                var strangers = options!
                strangers.knownHostsFile = root.appendingPathComponent("empty_known_hosts").path
                let target = root.appendingPathComponent("laptop")
                expect { try Store.clone(url: server.url(remote.path), into: target, options: strangers) }
                    .to(
                        throwError(
                            StoreError.transfer(
                                .unknownHost(host: "127.0.0.1", port: server.port, knownHosts: strangers.knownHostsFile)
                            )))
                expect(FileManager.default.fileExists(atPath: target.path)) == false
            }
            it("says when the key is not accepted") {
                let stranger = root.appendingPathComponent("stranger").path
                runCommand("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", stranger])
                var wrong = options!
                wrong.sshKeyFiles = [stranger]
                expect {
                    try Store.clone(
                        url: server.url(remote.path), into: root.appendingPathComponent("laptop"), options: wrong)
                }
                .to(
                    throwError { (error: Error) in
                        guard case StoreError.transfer(.authentication) = error else { return fail("\(error)") }
                    })
            }
            it("takes scp-like user@host:path addresses") {
                guard !isListening(22) else {
                    // NB: an scp-like address cannot name a port, so this needs 127.0.0.1:22 free.
                    return print("note: port 22 is taken on this machine; the scp-like address spec did not run")
                }
                server.stop()
                server = SSHServer(port: 22)
                options.sshKeyFiles = [server.userKey]
                options.knownHostsFile = server.knownHosts
                let url = "\(server.user)@127.0.0.1:\(remote.path)"
                let laptop = try Store.clone(url: url, into: root.appendingPathComponent("laptop"), options: options)
                try laptop.edit { $0.alter(by: .adding(.todo(TodoItem(text: "scp-like")))) }
                expect(try laptop.sync(options: options).pushed).toNot(beNil())
            }
            it("never prints the key or writes it into the repository") {
                let laptop = try Store.clone(
                    url: server.url(remote.path), into: root.appendingPathComponent("laptop"), options: options)
                let key = try String(contentsOfFile: server.userKey, encoding: .utf8).split(separator: "\n")[1]
                let config = try String(contentsOf: laptop.root.appendingPathComponent(".git/config"), encoding: .utf8)
                expect(config).toNot(contain(String(key)))
            }
        }
    }
}
