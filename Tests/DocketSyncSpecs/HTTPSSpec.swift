import Docket
import DocketSpecSupport
import Foundation
import Nimble
import Quick

final class HTTPSSpec: QuickSpec {
    override class func spec() {
        describe("sync over https") {
            var root: URL!
            var server: HTTPSGitServer!
            var environment: [String: String]!
            beforeEach {
                root = temporaryFolder("docket-https-spec")
                gitCLI(
                    ["init", "-q", "--bare", "-b", "main", root.appendingPathComponent("remote.git").path], in: root)
                server = HTTPSGitServer(serving: root)
                environment = [
                    "GIT_SSL_CAINFO": server.certificate, "DOCKET_GIT_USERNAME": server.user,
                    "DOCKET_GIT_TOKEN": server.token,
                ]
            }
            afterEach {
                server.stop()
                try? FileManager.default.removeItem(at: root)
            }
            func clone(_ name: String, _ env: [String: String]) -> CommandResult {
                runCommand(
                    docketBinary, ["clone", server.url("remote.git"), root.appendingPathComponent(name).path],
                    environment: env)
            }

            it("clones, syncs and pulls with the user and token from the environment") {
                expect(clone("laptop", environment).status) == 0
                let laptop = Machine(folder: root.appendingPathComponent("laptop"))
                laptop.run("add", "Over https")
                let synced = laptop.run("sync", environment: environment)
                expect(synced.stdout).to(contain("Pushed to origin."))
                expect(clone("desk", environment).status) == 0
                expect(Machine(folder: root.appendingPathComponent("desk")).state.todos.map(\.text)) == ["Over https"]
            }
            it("names a plain (\"dumb\") http folder as what it is, with what serves it") {
                gitCLI(["update-server-info"], in: root.appendingPathComponent("remote.git"))
                let result = runCommand(
                    docketBinary,
                    ["clone", server.url("static/remote.git"), root.appendingPathComponent("laptop").path],
                    environment: environment)
                expect(result.status) == 1
                expect(result.stderr).to(
                    contain(
                        "\(server.url("static/remote.git")) is a plain (\"dumb\") http folder, which docket cannot sync with; "
                            + "serve the repository with git http-backend, or use ssh"))
                expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("laptop").path)) == false
            }
            it("says when the token is not accepted, and never shows it") {
                var wrong = environment!
                wrong["DOCKET_GIT_TOKEN"] = "wrong-token"
                let result = clone("laptop", wrong)
                expect(result.status) == 1
                expect(result.stderr).to(contain("did not accept the credentials"))
                expect(result.stderr + result.stdout).toNot(contain("wrong-token"))
                expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("laptop").path)) == false
            }
            /// A scratch $HOME for git's configuration, without the environment's CA bundle or token.
            func gitHome() -> (home: URL, env: [String: String], unset: Set<String>) {
                let home = root.appendingPathComponent("home-\(UUID().uuidString.prefix(6))")
                try! FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
                return (
                    home, ["HOME": home.path],
                    [
                        "GIT_SSL_CAINFO", "SSL_CERT_FILE", "DOCKET_GIT_USERNAME", "DOCKET_GIT_TOKEN",
                        "https_proxy", "HTTPS_PROXY", "http_proxy", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY",
                    ]
                )
            }
            func cloneWith(_ url: String, _ name: String, _ env: [String: String], unsetting: Set<String>)
                -> CommandResult
            {
                runCommand(
                    docketBinary, ["clone", url, root.appendingPathComponent(name).path], environment: env,
                    unsetting: unsetting)
            }
            func git(_ arguments: String..., home: URL) {
                gitCLI(arguments, in: root, environment: ["HOME": home.path])
            }

            it("takes the token from git's credential helper, and tells the helper when it is refused") {
                let (home, env, unset) = gitHome()
                git("config", "--global", "http.sslCAInfo", server.certificate, home: home)
                git("config", "--global", "credential.helper", "store", home: home)
                let stored = home.appendingPathComponent(".git-credentials")
                try "https://\(server.user):\(server.token)@localhost:\(server.port)\n".write(
                    to: stored, atomically: true, encoding: .utf8)
                expect(cloneWith(server.url("remote.git"), "laptop", env, unsetting: unset).status) == 0
                try "https://\(server.user):wrong-token@localhost:\(server.port)\n".write(
                    to: stored, atomically: true, encoding: .utf8)
                let refused = cloneWith(server.url("remote.git"), "desk", env, unsetting: unset)
                expect(refused.stderr).to(contain("did not accept the credentials"))
                expect(refused.stderr).toNot(contain("wrong-token"))
                // git's store helper forgets a credential it is told was refused.
                expect(try String(contentsOf: stored, encoding: .utf8)).toNot(contain("wrong-token"))
            }
            it("trusts, in one process, only the authorities a transfer's own settings name, never another store's") {
                var trusting = ProcessInfo.processInfo.environment
                trusting.merge(environment) { $1 }
                // The desk trusts the system's authorities only.
                var plain = trusting
                (plain["GIT_SSL_CAINFO"], plain["SSL_CERT_FILE"], plain["SSL_CERT_DIR"]) = (nil, nil, nil)
                let laptop = try Store.clone(
                    url: server.url("remote.git"), into: root.appendingPathComponent("laptop"),
                    options: .fromEnvironment(trusting))
                // The laptop's authority was the one libgit2 trusted last; the desk names none.
                expect {
                    try Store.clone(
                        url: server.url("remote.git"), into: root.appendingPathComponent("desk"),
                        options: .fromEnvironment(plain))
                }.to(throwError { (error: Error) in expect("\(error)").to(contain("is not trusted")) })
                try laptop.addTodo(TodoItem(text: "Over https"))
                expect(try laptop.sync(options: .fromEnvironment(trusting)).pushed).toNot(beNil())
            }
            it("trusts the authority http.sslCAInfo names, and says which setting to use when none does") {
                let (home, env, unset) = gitHome()
                git(
                    "config", "--global", "credential.helper",
                    "!f() { echo username=\(server.user); echo password=\(server.token); }; f", home: home)
                let untrusted = cloneWith(server.url("remote.git"), "laptop", env, unsetting: unset)
                expect(untrusted.status) == 1
                expect(untrusted.stderr).to(
                    contain("the https certificate of \(server.url("remote.git")) is not trusted"))
                expect(untrusted.stderr).to(contain("'git config --global http.sslCAInfo /path/to/ca.pem'"))
                // As the message says.
                git("config", "--global", "http.sslCAInfo", server.certificate, home: home)
                expect(cloneWith(server.url("remote.git"), "laptop", env, unsetting: unset).status) == 0
            }
            it("skips the certificate check when http.sslVerify is false, with a warning") {
                let (home, env, unset) = gitHome()
                git("config", "--global", "http.sslVerify", "false", home: home)
                var withToken = env
                withToken["DOCKET_GIT_USERNAME"] = server.user
                withToken["DOCKET_GIT_TOKEN"] = server.token
                let cloned = cloneWith(
                    server.url("remote.git"), "laptop", withToken,
                    unsetting: unset.subtracting(["DOCKET_GIT_USERNAME", "DOCKET_GIT_TOKEN"]))
                expect(cloned.status) == 0
                expect(cloned.stderr).to(
                    contain(
                        "Warning: not checking the https certificate of \(server.url("remote.git")) (http.sslVerify is false)"
                    ))
            }
            it("checks a certificate for an IP address, as git does") {
                let cloned = runCommand(
                    docketBinary,
                    ["clone", server.url("remote.git", host: "127.0.0.1"), root.appendingPathComponent("laptop").path],
                    environment: environment)
                expect(cloned.stderr) == ""
                expect(cloned.status) == 0
            }
            it("goes through the proxy https_proxy names, unless no_proxy names the host") {
                let proxy = ConnectProxy()
                defer { proxy.stop() }
                var proxied = environment!
                proxied["https_proxy"] = "http://127.0.0.1:\(proxy.port)"
                expect(
                    runCommand(
                        docketBinary, ["clone", server.url("remote.git"), root.appendingPathComponent("laptop").path],
                        environment: proxied, unsetting: ["no_proxy", "NO_PROXY", "HTTPS_PROXY"]
                    ).status) == 0
                let tunnels = proxy.requests
                expect(Set(tunnels.split(separator: "\n"))) == ["CONNECT localhost:\(server.port)"]
                proxied["no_proxy"] = "example.org,localhost"
                expect(
                    runCommand(
                        docketBinary, ["clone", server.url("remote.git"), root.appendingPathComponent("desk").path],
                        environment: proxied, unsetting: ["NO_PROXY", "HTTPS_PROXY"]
                    ).status) == 0
                expect(proxy.requests) == tunnels
            }
            it("goes through the proxy http.proxy names") {
                let proxy = ConnectProxy()
                defer { proxy.stop() }
                let (home, env, unset) = gitHome()
                git("config", "--global", "http.proxy", "127.0.0.1:\(proxy.port)", home: home)
                var withCA = env
                withCA["GIT_SSL_CAINFO"] = server.certificate
                withCA["DOCKET_GIT_USERNAME"] = server.user
                withCA["DOCKET_GIT_TOKEN"] = server.token
                expect(
                    cloneWith(server.url("remote.git"), "laptop", withCA, unsetting: unset.subtracting(withCA.keys))
                        .status) == 0
                expect(Set(proxy.requests.split(separator: "\n"))) == ["CONNECT localhost:\(server.port)"]
            }
            it("warns before sending a token over plain http") {
                let plain = HTTPSGitServer(serving: root, plain: true)
                defer { plain.stop() }
                let cloned = runCommand(
                    docketBinary, ["clone", plain.url("remote.git"), root.appendingPathComponent("laptop").path],
                    environment: ["DOCKET_GIT_USERNAME": plain.user, "DOCKET_GIT_TOKEN": plain.token])
                expect(cloned.status) == 0
                expect(cloned.stderr).to(
                    contain("Warning: sending the password or token for \(plain.url("remote.git")) over plain http"))
                expect(cloned.stderr).toNot(contain(plain.token))
            }
            it("gives neither the token nor a credential helper's answer to a server another one redirects to") {
                // http://localhost:<port> answers every request with a redirect to the https server at 127.0.0.1: another host.
                let port = freePort()
                let redirector = Background(
                    "/usr/bin/python3",
                    [
                        "-c",
                        """
                        import http.server, sys
                        class Redirect(http.server.BaseHTTPRequestHandler):
                            def do_GET(self):
                                self.send_response(302)
                                self.send_header("Location", "https://127.0.0.1:\(server.port)" + self.path)
                                self.end_headers()
                            def log_message(self, *args): print(self.path, flush=True)
                        http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Redirect).serve_forever()
                        """, String(port),
                    ], log: root.appendingPathComponent("redirect.log"))
                defer { _ = redirector.stop() }
                expect(waitForPort(port)).to(beTrue())
                let home = root.appendingPathComponent("home")
                try! FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
                git(
                    "config", "--global", "credential.helper",
                    "!f() { echo username=\(server.user); echo password=\(server.token); }; f", home: home)
                for env in [environment!, ["GIT_SSL_CAINFO": server.certificate, "HOME": home.path]] {
                    let target = root.appendingPathComponent("redirected-\(env.count)")
                    let cloned = runCommand(
                        docketBinary, ["clone", "http://localhost:\(port)/remote.git", target.path], environment: env)
                    expect(cloned.status) == 1
                    expect(cloned.stderr).to(
                        contain(
                            "sent docket to https://127.0.0.1:\(server.port), another server, which asked for credentials"
                        ))
                    expect(cloned.stderr).toNot(contain(server.token))
                    expect(FileManager.default.fileExists(atPath: target.path)) == false
                }
                expect(redirector.output).to(contain("/remote.git/info/refs"))
            }
            it("keeps the token out of the repository") {
                expect(clone("laptop", environment).status) == 0
                let config = try String(contentsOf: root.appendingPathComponent("laptop/.git/config"), encoding: .utf8)
                expect(config).toNot(contain(server.token))
            }
        }
    }
}
