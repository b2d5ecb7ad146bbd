import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// A short, seeded run of scripts/faults (the long one kills docket 1,000
/// times): random kills in add, commit, pull, sync and pack, and concurrent
/// writers under a killer, each followed by the next command.
final class FaultScriptSpec: QuickSpec {
    override class func spec() {
        describe("docket killed at random points") {
            it("loses nothing, is never blocked, and leaves nothing half done") {
                let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                    .deletingLastPathComponent().appendingPathComponent("scripts/faults").path
                let result = runCommand(
                    "python3",
                    [
                        script, "--kills", "\(propertyScaled(6))", "--seed", "3", "--concurrent-seconds", "2",
                        "--seed-todos", "300", "--binary", docketBinary,
                    ])
                expect(result.status).to(equal(0), description: result.stdout + result.stderr)
                expect(result.stdout).to(contain(" 0 lost, 0 blocked (0 problems"))
            }
        }
        describe("four machines syncing one remote beside an attacker pushing bad files (scripts/poisoned-fleet)") {
            it("sets every bad file aside with a record, loses no machine's work, and converges") {
                let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                    .deletingLastPathComponent().appendingPathComponent("scripts/poisoned-fleet").path
                let result = runCommand(
                    script, ["--seconds", "\(propertyScaled(12))", "--seed", "5", "--docket", docketBinary])
                expect(result.status).to(equal(0), description: result.stdout + result.stderr)
                expect(result.stdout).to(contain("unrecorded: 0"))
                expect(result.stdout).to(contain("converged             yes"))
            }
        }
        describe("three stores sharing a folder remote, any command killed at random (scripts/kill-campaign)") {
            it("opens everywhere, stays fsck-clean, loses nothing acknowledged, and converges") {
                let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                    .deletingLastPathComponent().appendingPathComponent("scripts/kill-campaign").path
                let result = runCommand(
                    "python3", [script, "--rounds", "\(propertyScaled(20))", "--seed", "3", "--binary", docketBinary])
                expect(result.status).to(equal(0), description: result.stdout + result.stderr)
                expect(result.stdout).to(contain("0 blocked, 0 fsck errors, 0 lost, converged yes"))
            }
        }
    }
}
