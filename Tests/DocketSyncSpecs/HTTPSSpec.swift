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
                gitCLI(["init", "-q", "--bare", "-b", "main", root.appendingPathComponent("remote.git").path], in: root)
                server = HTTPSGitServer(serving: root)
                environment = ["GIT_SSL_CAINFO": server.certificate, "DOCKET_GIT_USERNAME": server.user, "DOCKET_GIT_TOKEN": server.token]
            }
            afterEach {
                server.stop()
                try? FileManager.default.removeItem(at: root)
            }
            func clone(_ name: String, _ env: [String: String]) -> CommandResult {
                runCommand(docketBinary, ["clone", server.url("remote.git"), root.appendingPathComponent(name).path], environment: env)
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
            it("says when the token is not accepted, and never shows it") {
                var wrong = environment!
                wrong["DOCKET_GIT_TOKEN"] = "wrong-token"
                let result = clone("laptop", wrong)
                expect(result.status) == 1
                expect(result.stderr).to(contain("did not accept the credentials"))
                expect(result.stderr + result.stdout).toNot(contain("wrong-token"))
                expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("laptop").path)) == false
            }
            it("keeps the token out of the repository") {
                expect(clone("laptop", environment).status) == 0
                let config = try String(contentsOf: root.appendingPathComponent("laptop/.git/config"), encoding: .utf8)
                expect(config).toNot(contain(server.token))
            }
        }
    }
}
