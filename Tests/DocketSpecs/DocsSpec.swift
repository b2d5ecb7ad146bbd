import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// The README and docs/ as a reader meets them (scripts/check-docs): every
/// relative link resolves, to its heading where it names one, and every
/// command of the README's tour runs in a scratch home.
final class DocsSpec: QuickSpec {
    override class func spec() {
        describe("the run of the specs itself") {
            it("gives every spec and every program it starts a scratch home, and refuses the real crontab and systemd")
            {
                let home = ProcessInfo.processInfo.environment["HOME"] ?? ""
                expect(home).to(contain("docket-specs-home"))
                expect(runCommand("sh", ["-c", "echo $HOME"]).stdout) == home + "\n"
                let crontab = runCommand("crontab", ["-l"])
                expect(crontab.status) == 1
                expect(crontab.stderr).to(contain("a spec ran crontab without its own stand-in"))
                expect(runCommand("systemctl", ["--user", "status"]).stderr).to(
                    contain("a spec ran systemctl without its own stand-in"))
            }
        }
        describe("the README and docs") {
            it("link only to files and headings that exist, and the README's tour runs command by command") {
                let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                    .deletingLastPathComponent()
                let result = runCommand(
                    "python3", [root.appendingPathComponent("scripts/check-docs").path],
                    environment: ["DOCKET": docketBinary])
                expect(result.stderr) == ""
                expect(result.status) == 0
                expect(result.stdout).to(contain("commands of the README's tour run"))
            }
        }
    }
}
