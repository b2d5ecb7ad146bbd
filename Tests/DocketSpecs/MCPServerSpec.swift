import Docket
import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// `docket mcp` driven by real MCP clients: PyPI's `mcp` package (scripts/install-deps installs it), each client
/// starting its own server, and raw JSON-RPC lines for what stdout may hold.
final class MCPServerSpec: QuickSpec {
    override class func spec() {
        let scripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts")
        var store: URL!
        beforeEach { store = temporaryStore("docket-mcp") }
        afterEach { try? FileManager.default.removeItem(at: store) }

        describe("docket mcp") {
            context("with two agents, each a real MCP client with its own server, on one store") {
                var seen: [String: Any] = [:]
                beforeEach {
                    let run = runCommand(
                        "python3", [scripts.appendingPathComponent("mcp-two-agents.py").path, docketBinary, store.path])
                    expect(run.status).to(equal(0), description: "\(run.stderr) (scripts/install-deps installs mcp)")
                    seen =
                        (try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]) ?? [:]
                }
                it("lists every tool, each with a description and an input schema") {
                    expect(seen["tools"] as? [String]) == [
                        "add", "claim", "claim_next", "complete", "heartbeat", "list", "merges", "note", "ready",
                        "release", "show", "sync", "update",
                    ]
                    expect(seen["described"] as? Bool) == true
                }
                it("hands the two agents' claim_next different items, and ready leaves out the other's") {
                    let claimed = seen["claimed"] as? [String] ?? []
                    expect(claimed.count) == 2
                    expect(Set(claimed).count) == 2
                    expect(Set(claimed)) == Set(seen["ids"] as? [String] ?? [])
                    expect(seen["holders"] as? [String]) == ["agent-1", "agent-2"]
                    expect(seen["ready_for_two"] as? [String]) == [claimed.last ?? ""]
                }
                it("answers a call it cannot do with a tool error an agent can read") {
                    let heartbeat = seen["heartbeat_on_other"] as? [String: Any]
                    expect(heartbeat?["error"] as? Bool) == true
                    expect(heartbeat?["message"] as? String).to(contain("agent-1 holds it until"))
                    let none = seen["claim_next_when_none_free"] as? [String: Any]
                    expect(none?["message"] as? String).to(contain("no item is ready and free to claim"))
                    let unknown = seen["show_unknown"] as? [String: Any]
                    expect(unknown?["error"] as? Bool) == true
                    expect(unknown?["message"] as? String).to(contain("zzzz"))
                }
                it("completes what the agents claimed") {
                    expect(seen["completed"] as? [Bool]) == [true, true]
                    let todos = (try? Store.open(at: store).load().state.todos) ?? []
                    expect(todos.allSatisfy(\.completed)) == true
                    expect(todos.compactMap(\.claim).allSatisfy { $0.released != nil }) == true
                }
            }

            context("with an agent whose claims lose in merges, over two clones") {
                var seen: [String: Any] = [:]
                var folder: URL!
                beforeEach {
                    folder = temporaryFolder("docket-mcp-lost")
                    let run = runCommand(
                        "python3",
                        [scripts.appendingPathComponent("mcp-lost-claims.py").path, docketBinary, folder.path])
                    expect(run.status).to(equal(0), description: run.stderr)
                    seen =
                        (try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]) ?? [:]
                }
                afterEach { try? FileManager.default.removeItem(at: folder) }
                it(
                    "tells it at sync of every claim it lost, once: to an earlier claim, on an item another completed, "
                        + "and in another server's sync on its store"
                ) {
                    expect(seen["lost"] as? [String]) == ["Fix bike", "Oil chain", "Paint the fence"]
                    expect(seen["lost_done"] as? [String]) == ["Paint the fence"]
                    let holders = seen["lost_holders"] as? [String: String]
                    expect(holders?["Fix bike"]) == "agent-2"
                    expect(holders?["Oil chain"]) == "agent-3"
                    expect(seen["lost_again"] as? [String]) == []
                }
                it("refuses its heartbeat on a lost claim, naming who holds it until when") {
                    let beat = seen["heartbeat_lost"] as? [String: Any]
                    expect(beat?["error"] as? Bool) == true
                    expect(beat?["message"] as? String).to(contain("agent-1 holds no claim on the todo"))
                    expect(beat?["message"] as? String).to(contain("agent-2 holds it until"))
                }
                it("completes a lost item all the same, saying claimLost and who holds it") {
                    let done = seen["complete_lost"] as? [String: Any]
                    expect(done?["error"] as? Bool) == false
                    expect(done?["claimLost"] as? String).to(contain("your claim was not held"))
                    expect(done?["holder"] as? String) == "agent-3"
                }
                it("says claimLost at complete when the claim that replaced its own has ended since") {
                    let done = seen["complete_replaced"] as? [String: Any]
                    expect(done?["error"] as? Bool) == false
                    expect(done?["claimLost"] as? String).to(contain("a claim of agent-2's, since ended"))
                    expect(done?["holder"] as? String) == "agent-2"
                }
            }

            context("with claim_next with sync, on a clone that has not heard of another clone's claims") {
                var seen: [String: Any] = [:]
                var folder: URL!
                beforeEach {
                    folder = temporaryFolder("docket-mcp-claim-sync")
                    let run = runCommand(
                        "python3",
                        [scripts.appendingPathComponent("mcp-claim-next-sync.py").path, docketBinary, folder.path])
                    expect(run.status).to(equal(0), description: run.stderr)
                    seen =
                        (try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]) ?? [:]
                }
                afterEach { try? FileManager.default.removeItem(at: folder) }
                it("claims on the list as the remote has it: a free item, and no claim of its loses in a merge") {
                    expect(seen["claimed"] as? String) == seen["free"] as? String
                    expect(seen["holder"] as? String) == "agent-1"
                    expect(seen["lost_laptop"] as? [String]) == []
                    expect(seen["lost_desk"] as? [String]) == []
                    expect(seen["desk_holders"] as? [String]) == ["agent-1", "agent-2", "agent-2", "agent-2"]
                }
                it("syncs again when its push lost the race to an earlier claim on the item, and takes the next") {
                    expect(seen["race_desk_synced"] as? Bool) == true
                    expect(seen["race_taken_holder"] as? String) == "agent-2"
                    expect(seen["race_claimed"] as? String) != seen["race_taken"] as? String
                    expect(seen["race_holder"] as? String) == "agent-1"
                }
            }

            it("writes nothing but JSON-RPC messages to stdout") {
                let lines = [
                    #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"spec","version":"1"}}}"#,
                    #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                    #"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"text":"Paint the fence"}}}"#,
                    #"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"claim","arguments":{"id":"nope"}}}"#,
                ]
                let run = runCommand(
                    docketBinary, ["mcp", "--as", "agent-1"], environment: ["DOCKET_DIR": store.path],
                    input: lines.joined(separator: "\n") + "\n")
                expect(run.status) == 0
                let replies = run.stdout.split(separator: "\n")
                expect(replies.count) == 3
                for reply in replies {
                    let object = try? JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any]
                    expect(object?["jsonrpc"] as? String).to(equal("2.0"), description: String(reply))
                }
                expect(run.stdout).to(contain(#""isError":true"#))
            }

            it("runs Samples/agents.py: three agents over two clones finish every item") {
                let sample = scripts.deletingLastPathComponent().deletingLastPathComponent()
                    .appendingPathComponent("Samples/agents.py").path
                let run = runCommand("python3", [sample], environment: ["DOCKET": docketBinary])
                expect(run.status).to(equal(0), description: run.stderr)
                expect(run.stdout).to(contain("agent-1: nothing left that is ready and free"))
                let listed = run.stdout.components(separatedBy: "\n").filter { $0.contains("[") }
                expect(listed.count) == 4
                expect(listed.allSatisfy { $0.contains("[x]") }) == true
                expect(run.stdout).to(contain("claimed 'Build the API'"))
            }

            it("answers arguments of the wrong kind with a tool error naming the argument") {
                let lines = [
                    #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"spec","version":"1"}}}"#,
                    #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                    #"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{}}}"#,
                    #"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"claim_next","arguments":{"lease_minutes":"soon"}}}"#,
                    #"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"list","arguments":{"status":"later"}}}"#,
                ]
                let run = runCommand(
                    docketBinary, ["mcp", "--as", "agent-1"], environment: ["DOCKET_DIR": store.path],
                    input: lines.joined(separator: "\n") + "\n")
                expect(run.stdout).to(contain("add needs a text"))
                expect(run.stdout).to(contain("lease_minutes must be a whole number"))
                expect(run.stdout).to(contain("status 'later' is none of open, done or all"))
                expect(run.stdout.components(separatedBy: #""isError":true"#).count) == 4
            }

            it("leaves nothing that blocks the next server when one is killed mid-call") {
                let paint = docket("add", "Paint the fence", store: store).stdout.trimmingCharacters(in: .newlines)
                let lines = [
                    #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"spec","version":"1"}}}"#,
                    #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                    #"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"claim","arguments":{"id":"\#(paint)"}}}"#,
                ]
                // Killed as kill -9 would, holding the store's lock, after the undo record and before the file.
                let killed = runCommand(
                    docketBinary, ["mcp", "--as", "agent-1"],
                    environment: ["DOCKET_DIR": store.path, "DOCKET_FAULT": "after-undo-record"],
                    input: lines.joined(separator: "\n") + "\n")
                expect(killed.stdout).notTo(contain(#""id":2"#))
                let next = docket("claim", paint, "--as", "agent-2", store: store)
                expect(next.status).to(equal(0), description: next.stderr)
                expect(try Store.open(at: store).load().state.todos.first?.claim?.holder) == "agent-2"
            }

            it("refuses to start without an agent's name, saying how to give one") {
                let run = runCommand(
                    docketBinary, ["mcp"], environment: ["DOCKET_DIR": store.path], unsetting: ["DOCKET_AGENT"])
                expect(run.status) == 64
                expect(run.stderr).to(contain("name the agent with --as NAME or DOCKET_AGENT"))
            }

            it("runs docket-mcp from docket's folder, so docket itself loads no networking library at its start") {
                // The MCP SDK links Foundation's networking and libcurl (and through it Kerberos, LDAP, GnuTLS…):
                // in docket, loading them took 6 ms from every command.
                let server = URL(fileURLWithPath: docketBinary).deletingLastPathComponent()
                    .appendingPathComponent("docket-mcp").path
                expect(FileManager.default.isExecutableFile(atPath: server)) == true
                let loaded = runCommand("ldd", [docketBinary])
                expect(loaded.status).to(equal(0), description: loaded.stderr)
                for library in ["libFoundationNetworking", "libcurl", "libgssapi_krb5"] {
                    expect(loaded.stdout).notTo(contain(library))
                }
            }
        }
    }
}
