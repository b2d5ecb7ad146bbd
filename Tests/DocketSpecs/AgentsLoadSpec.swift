import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// The short, seeded version of scripts/agents-load: real MCP clients, each with its own `docket mcp`, over two
/// clones of one bare remote and a clone three of them share, for ten seconds, one clone cut off from syncing for a
/// third of it and servers killed mid-call.
final class AgentsLoadSpec: QuickSpec {
    override class func spec() {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/agents-load").path
        it(
            "loses no acknowledged write, hands no item to two agents on one store, and converges, killed servers and all"
        ) {
            let run = runCommand(
                "python3",
                [
                    script, "--agents", "7", "--clones", "2", "--shared", "3", "--seconds", "10", "--items", "15",
                    "--seed", "2", "--docket", docketBinary,
                ])
            print(run.stdout)
            expect(run.status).to(equal(0), description: run.stdout + run.stderr)
            expect(run.stdout).to(contain("one tree: True, fsck clean: True"))
            expect(run.stdout).to(contain("blocked after a kill 0"))
            expect(run.stdout).to(contain("cut off from syncing for 3 s"))
            let killed = run.stdout.components(separatedBy: "\n").first { $0.hasPrefix("servers killed ") }
            let kills = killed.flatMap { Int($0.dropFirst("servers killed ".count).prefix { $0.isNumber }) }
            expect(kills ?? 0).to(beGreaterThan(0), description: "no server was killed")
        }
    }
}
