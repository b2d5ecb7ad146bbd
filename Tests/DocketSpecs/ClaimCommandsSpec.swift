import Docket
import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// `docket claim`, `docket release` and `docket ready` on one store, and what `show` and `list` say of a claim.
final class ClaimCommandsSpec: QuickSpec {
    override class func spec() {
        var store: URL!
        var paint: String!
        var bike: String!
        func at(_ time: String) -> [String: String] { ["DOCKET_NOW": "2026-11-28T\(time):00+00:00"] }
        func run(_ arguments: String..., time: String = "10:00") -> CommandResult {
            docket(arguments, store: store, environment: at(time))
        }
        beforeEach {
            store = temporaryStore("docket-claims")
            paint = run("add", "Paint the fence").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            bike = run("add", "Fix bike").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        afterEach { try? FileManager.default.removeItem(at: store) }

        describe("docket claim") {
            it("writes the claim in the item's file, and show and list say who holds it until when") {
                expect(run("claim", paint, "--as", "agent-1", "--for", "2h").status) == 0
                let todo = try Store.open(at: store).load().state.todos.first { $0.text == "Paint the fence" }
                expect(todo?.claim?.holder) == "agent-1"
                expect(todo?.claim?.expires).to(beCloseTo(ISODate.date(from: "2026-11-28T12:00:00.000Z")!, within: 5))
                expect(run("show", paint, time: "10:30").stdout).to(contain("agent-1 (claim"))
                expect(run("list", time: "10:30").stdout).to(contain("claimed by agent-1 until"))
            }
            it("refuses a claim another holder's live claim holds, naming the holder, and changes nothing") {
                run("claim", paint, "--as", "agent-1")
                let before = try Store.open(at: store).load().state
                let second = run("claim", paint, "--as", "agent-2", time: "10:30")
                expect(second.status) == 1
                expect(second.stderr).to(contain("Error: the todo \(paint!) 'Paint the fence' is claimed by agent-1"))
                expect(second.stderr).to(contain("'ready' lists what is free"))
                expect(try Store.open(at: store).load().state) == before
            }
            it("says until when another holder's claim holds in the local time zone, as list shows it") {
                func berlin(_ arguments: String..., time: String) -> CommandResult {
                    docket(arguments, store: store, environment: at(time).merging(["TZ": "Europe/Berlin"]) { $1 })
                }
                expect(berlin("claim", paint, "--as", "agent-1", "--for", "2h", time: "10:00").status) == 0
                // 12:00 UTC is 13:00 in Berlin in November.
                expect(berlin("list", time: "10:30").stdout).to(contain("claimed by agent-1 until 2026-11-28 13:00"))
                let refused = berlin("claim", paint, "--as", "agent-2", time: "10:30")
                expect(refused.status) == 1
                expect(refused.stderr).to(contain("is claimed by agent-1 until 2026-11-28 13:00;"))
                let released = berlin("release", paint, "--as", "agent-2", time: "10:30")
                expect(released.status) == 1
                expect(released.stderr).to(contain("agent-1 holds it until 2026-11-28 13:00;"))
                expect(refused.stderr + released.stderr).notTo(contain("T12:00"))
            }
            it("lets another holder claim it once the lease has run out") {
                run("claim", paint, "--as", "agent-1", "--for", "30m")
                expect(run("claim", paint, "--as", "agent-2", time: "10:31").status) == 0
            }
            it("renews a claim its holder claims again, and clamps a lease to a day") {
                run("claim", paint, "--as", "agent-1", "--for", "30m")
                expect(run("claim", paint, "--as", "agent-1", "--for", "3d", time: "10:20").status) == 0
                let claim = try Store.open(at: store).load().state.todos.first { $0.text == "Paint the fence" }?.claim
                expect(claim?.expires).to(beCloseTo(ISODate.date(from: "2026-11-29T10:20:00.000Z")!, within: 5))
                expect(claim?.renewed).to(beCloseTo(ISODate.date(from: "2026-11-28T10:20:00.000Z")!, within: 5))
            }
            it("refuses a done todo") {
                run("done", paint)
                let claimed = run("claim", paint, "--as", "agent-1")
                expect(claimed.status) == 1
                expect(claimed.stderr).to(contain("is done"))
            }
            it("refuses a lease it cannot read as a usage error") {
                let claimed = run("claim", paint, "--as", "agent-1", "--for", "soon")
                expect(claimed.status) == 64
                expect(claimed.stderr).to(contain("'soon' is not a lease"))
            }
            it("gives the claim to one of many processes claiming at once") {
                let processes = (1...8).map { n in
                    let process = Process()
                    process.executableURL = URL(fileURLWithPath: docketBinary)
                    process.arguments = ["claim", paint, "--as", "agent-\(n)"]
                    process.environment = ProcessInfo.processInfo.environment.merging(["DOCKET_DIR": store.path]) {
                        _, new in new
                    }
                    process.standardOutput = FileHandle.nullDevice
                    process.standardError = FileHandle.nullDevice
                    try! process.run()
                    return process
                }
                for process in processes { process.waitUntilExit() }
                expect(processes.filter { $0.terminationStatus == 0 }.count) == 1
            }
        }

        describe("docket release") {
            it("frees the item for others, keeping the claim in the file as released") {
                run("claim", paint, "--as", "agent-1")
                expect(run("release", paint, "--as", "agent-1", time: "10:10").status) == 0
                let claim = try Store.open(at: store).load().state.todos.first { $0.text == "Paint the fence" }?.claim
                expect(claim?.released).to(beCloseTo(ISODate.date(from: "2026-11-28T10:10:00.000Z")!, within: 5))
                expect(run("ready", "--as", "agent-2", time: "10:11").stdout).to(contain("Paint the fence"))
            }
            it("refuses to give up another holder's claim when a holder is named") {
                run("claim", paint, "--as", "agent-1")
                let released = run("release", paint, "--as", "agent-2")
                expect(released.status) == 1
                expect(released.stderr).to(contain("agent-2 holds no claim on the todo"))
                expect(released.stderr).to(contain("agent-1 holds it until"))
            }
        }

        describe("docket heartbeat") {
            it("renews its holder's claim from now, and leaves the claim's id and when it was taken") {
                run("claim", paint, "--as", "agent-1", "--for", "30m")
                let before = try Store.open(at: store).load().state.todos.first { $0.text == "Paint the fence" }?.claim
                let beat = run("heartbeat", paint, "--as", "agent-1", "--for", "2h", time: "10:20")
                expect(beat.status).to(equal(0), description: beat.stderr)
                expect(beat.stdout).to(contain("Renewed \(paint!) 'Paint the fence' for agent-1 until"))
                let claim = try Store.open(at: store).load().state.todos.first { $0.text == "Paint the fence" }?.claim
                expect(claim?.expires).to(beCloseTo(ISODate.date(from: "2026-11-28T12:20:00.000Z")!, within: 5))
                expect(claim?.id) == before?.id
                expect(claim?.taken) == before?.taken
            }
            it("refuses an item another holds, naming the holder and until when in the user's time zone") {
                run("claim", paint, "--as", "agent-1", "--for", "1h")
                let before = try Store.open(at: store).load().state
                let beat = docket(
                    ["heartbeat", paint, "--as", "agent-2"], store: store,
                    environment: at("10:30").merging(["TZ": "Europe/Paris"]) { _, new in new })
                expect(beat.status) == 1
                expect(beat.stderr).to(contain("Error: agent-2 holds no claim on the todo \(paint!) 'Paint the fence'"))
                expect(beat.stderr).to(contain("agent-1 holds it until 2026-11-28 12:00;"))
                expect(try Store.open(at: store).load().state) == before
            }
            it("refuses an item no one claimed, saying to claim it first") {
                let beat = run("heartbeat", paint, "--as", "agent-1")
                expect(beat.status) == 1
                expect(beat.stderr).to(
                    contain("agent-1 holds no claim on the todo \(paint!) 'Paint the fence'; claim it"))
                expect(try Store.open(at: store).load().state.todos.compactMap(\.claim)).to(beEmpty())
            }
            it("refuses a claim its holder released") {
                run("claim", paint, "--as", "agent-1")
                run("release", paint, "--as", "agent-1", time: "10:10")
                let beat = run("heartbeat", paint, "--as", "agent-1", time: "10:20")
                expect(beat.status) == 1
                expect(beat.stderr).to(contain("agent-1 released its claim on the todo \(paint!)"))
            }
        }

        describe("docket ready --claim") {
            it("claims the first ready item no one holds and prints it, passing over what another holds") {
                run("claim", paint, "--as", "agent-1")
                let claimed = run("ready", "--claim", "--as", "agent-2", "--for", "2h")
                expect(claimed.status).to(equal(0), description: claimed.stderr)
                expect(claimed.stdout).to(contain("Claimed \(bike!) 'Fix bike' as agent-2 until"))
                let todos = try Store.open(at: store).load().state.todos
                expect(todos.first { $0.text == "Fix bike" }?.claim?.holder) == "agent-2"
                expect(todos.first { $0.text == "Fix bike" }?.claim?.expires)
                    .to(beCloseTo(ISODate.date(from: "2026-11-28T12:00:00.000Z")!, within: 5))
                expect(todos.first { $0.text == "Paint the fence" }?.claim?.holder) == "agent-1"
            }
            it("takes the filters list takes") {
                run("tag", bike, "+garage")
                let claimed = run("ready", "--claim", "+garage", "--as", "agent-1", "--json")
                expect(claimed.status).to(equal(0), description: claimed.stderr)
                let object = try? JSONSerialization.jsonObject(with: Data(claimed.stdout.utf8)) as? [String: Any]
                expect((object?["id"] as? String)?.lowercased()).to(beginWith(bike))
            }
            it("says so, exiting 1 and changing nothing, when nothing is ready and free") {
                run("claim", paint, "--as", "agent-1")
                run("claim", bike, "--as", "agent-1")
                let before = try Store.open(at: store).load().state
                let claimed = run("ready", "--claim", "--as", "agent-2")
                expect(claimed.status) == 1
                expect(claimed.stderr).to(contain("no item is ready and free to claim"))
                expect(try Store.open(at: store).load().state) == before
            }
            it("starts agents with different names on different items of one list, as clones that see it alike") {
                for n in 3...4 { run("add", "Chore \(n)") }
                // NB: a release between them makes the list the second agent sees the first one's, as in a clone.
                func claimedID(_ result: CommandResult) -> String? {
                    let object = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
                    return object?["id"] as? String
                }
                let firstID = claimedID(run("ready", "--claim", "--as", "agent-2", "--json"))
                run("release", firstID?.lowercased() ?? "", "--as", "agent-2")
                let secondID = claimedID(run("ready", "--claim", "--as", "agent-3", "--json"))
                expect(firstID).toNot(beNil())
                expect(secondID).toNot(beNil())
                expect(secondID) != firstID
            }
            it("spreads agents over as many free items as there are holders at work, when more than four") {
                for n in 3...16 { run("add", "Chore \(n)") }
                for n in 1...7 { expect(run("ready", "--claim", "--as", "worker-\(n)").status) == 0 }
                let listed = run("ready", "--as", "agent-6", "--json").stdout
                let free = (try? JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [[String: Any]]) ?? []
                let claimed = run("ready", "--claim", "--as", "agent-6", "--json")
                let object = try? JSONSerialization.jsonObject(with: Data(claimed.stdout.utf8)) as? [String: Any]
                // NB: agent-6's name hashes to 4 modulo 8 (7 workers and itself) and to 0 modulo 4: over four, it
                // would take the first free item.
                expect(free.count) == 9
                expect(object?["id"] as? String) == (free.count > 4 ? free[4]["id"] as? String : nil)
            }
            it("gives each of many processes claiming at once a different item") {
                for n in 3...6 { run("add", "Chore \(n)") }
                let processes = (1...8).map { n in
                    let process = Process()
                    process.executableURL = URL(fileURLWithPath: docketBinary)
                    process.arguments = ["ready", "--claim", "--as", "agent-\(n)"]
                    process.environment = ProcessInfo.processInfo.environment.merging(["DOCKET_DIR": store.path]) {
                        _, new in new
                    }
                    process.standardOutput = FileHandle.nullDevice
                    process.standardError = FileHandle.nullDevice
                    try! process.run()
                    return process
                }
                for process in processes { process.waitUntilExit() }
                expect(processes.filter { $0.terminationStatus == 0 }.count) == 6
                let holders = try Store.open(at: store).load().state.todos.compactMap(\.claim?.holder)
                expect(holders.count) == 6
                expect(Set(holders).count) == 6
            }
        }

        describe("docket ready") {
            it("leaves out what another holds, what waits and what is blocked, and lists what its holder holds") {
                let fence = run("add", "Buy paint").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                run("depend", paint, "+" + fence)
                run("add", "Later", "--wait", "2026-12-01")
                run("claim", bike, "--as", "agent-1")
                let other = run("ready", "--as", "agent-2").stdout
                expect(other).to(contain("Buy paint"))
                expect(other).notTo(contain("Fix bike"))
                expect(other).notTo(contain("Paint the fence"))
                expect(other).notTo(contain("Later"))
                expect(run("ready", "--as", "agent-1").stdout).to(contain("Fix bike"))
            }
            it("takes the filters list takes") {
                run("tag", bike, "+garage")
                let shown = run("ready", "+garage", "--as", "agent-2").stdout
                expect(shown).to(contain("Fix bike"))
                expect(shown).notTo(contain("Paint the fence"))
            }
        }
    }
}
