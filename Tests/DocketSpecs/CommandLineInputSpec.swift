import Docket
import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// Whatever a person or a script types, docket answers with a result, a
/// usage error (64) or an error (1): never a crash, and never a trap's exit status.
final class CommandLineInputSpec: QuickSpec {
    override class func spec() {
        describe("docket, given anything on its command line") {
            var folder: URL!
            var scratch: URL!
            var ids: [String]!
            beforeEach {
                folder = temporaryFolder()
                scratch = temporaryFolder("docket-scratch")
                runCommand(docketBinary, ["init", folder.path])
                ids = ["Buy milk", "Call Anna"].map {
                    docket("add", $0, store: folder).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                }
                let project = docket("project", "add", "Party", store: folder).stdout.trimmingCharacters(
                    in: .whitespacesAndNewlines)
                ids += [
                    project,
                    docket("task", "add", project, "Buy Beer", store: folder).stdout.trimmingCharacters(
                        in: .whitespacesAndNewlines),
                ]
            }
            afterEach {
                try? FileManager.default.removeItem(at: folder)
                try? FileManager.default.removeItem(at: scratch)
            }

            it("refuses a folder whose name is not UTF-8 rather than make the store at another path") {
                // The name's bytes reach docket as they are: a shell hands them over, as a file manager would.
                let made = runCommand(
                    "sh", ["-c", "\"$0\" init \"$1/$(printf 'list\\377s')\"", docketBinary, scratch.path])
                expect(made.status) == 1
                expect(made.stderr).to(contain("is not UTF-8 text, so docket would read another name"))
                expect((try? FileManager.default.contentsOfDirectory(atPath: scratch.path)) ?? ["?"]) == []
            }
            it("works inside a store whose path is longer than 1,024 bytes, as with -C") {
                // Twenty folders of 60 bytes: 1,200 bytes and more, each name well under the system's 255.
                let deep = (0..<20).reduce(scratch!) {
                    $0.appendingPathComponent(String(repeating: "f", count: 58) + String(format: "%02d", $1))
                }
                expect(deep.path.utf8.count) > 1_200
                try FileManager.default.createDirectory(at: deep, withIntermediateDirectories: true)
                expect(runCommand(docketBinary, ["init", deep.path]).status) == 0
                let inside = { (arguments: [String]) in
                    runCommand(
                        "sh", ["-c", "cd \"$1\" && shift && exec \"$@\"", "sh", deep.path, docketBinary] + arguments)
                }
                let added = inside(["add", "Water the plants"])
                expect(added.status).to(equal(0), description: added.stderr)
                let listed = inside(["list"])
                expect(listed.status).to(equal(0), description: listed.stderr)
                expect(listed.stdout).to(contain("Water the plants"))
                expect(runCommand(docketBinary, ["-C", deep.path, "list"]).stdout).to(contain("Water the plants"))
            }
            it("refuses a negative interval, names -n as typed, and shows a state as 'task state' takes it") {
                let refused = docket("add", "Walk", "--every", "-1 week", store: folder)
                expect(refused.status) == 64
                expect(refused.stderr).to(contain("'-1 week' is not an interval"))
                expect(docket("list", store: folder).stdout).notTo(contain("Walk"))
                let none = docket("list", "-n", "0", store: folder)
                expect(none.status) == 64
                expect(none.stderr).to(contain("-n (--limit) must be 1 or more"))
                expect(docket("task", "state", ids[3], "in-progress", store: folder).status) == 0
                let shown = docket("show", ids[3], store: folder).stdout
                expect(shown).to(contain("state     in-progress"))
                expect(shown).notTo(contain("inProgress"))
            }

            it("says every error in lower case, the parser's as its own, with the usage and status kept") {
                let refusals = [
                    ["list", "--limit", "abc"], ["done"], ["add", "x", "--priority"],
                    ["add", "x", "--priority", "huge"],
                    ["list", "--dew", "fri"], ["add"], ["list", "-n", "0"], ["due", ids[0], "someday"],
                ]
                for arguments in refusals {
                    let refused = docket(arguments, store: folder)
                    expect(refused.status) == 64
                    let first = refused.stderr.split(separator: "\n").first.map(String.init) ?? ""
                    expect(first).to(beginWith("Error: "))
                    let letter = first.dropFirst("Error: ".count).first
                    expect(letter.map { !$0.isUppercase }).to(beTrue(), description: arguments.joined(separator: " "))
                    expect(refused.stderr).to(contain("Usage: docket "))
                }
                expect(docket("done", ids[0], "--help", store: folder).stdout).to(contain("USAGE: docket done"))
            }

            it("never traps on a date, whichever command takes it") {
                let dates = [
                    "", " ", "-1d", "+3000000d", "+99999999999999d", "+9223372036854775807d", "+2000000000000000000w",
                    "-9223372036854775808d", "0000-01-01", "10000-01-01", "2026-02-30", "2026-12-01T25:00", "none", "t",
                    "T", "-", "+",
                    "+d", "99999999999999999999-01-01",
                ]
                for date in dates {
                    for arguments in [
                        ["add", "x", "--due", date], ["fork", ids[0], "--due", date], ["due", ids[0], date],
                        ["task", "add", ids[2], "y", "--due", date], ["task", "due", ids[3], date],
                    ] {
                        let result = docket(arguments, store: folder)
                        expect([0, 1, 64]).to(
                            contain(result.status), description: "docket \(arguments): \(result.stderr)")
                    }
                }
            }
            it("never traps, whatever the arguments") {
                let commands: [[String]] = [
                    ["add"], ["list"], ["show"], ["done"], ["reopen"], ["edit"], ["due"], ["rm"], ["fork"],
                    ["project", "add"],
                    ["project", "list"], ["project", "show"], ["project", "rename"], ["project", "rm"],
                    ["task", "add"], ["task", "state"],
                    ["task", "due"], ["task", "rename"], ["task", "rm"], ["task", "start"], ["task", "stop"],
                    ["report"], ["status"],
                    ["commit"], ["log"], ["merges"], ["remote", "add"], ["remote", "list"], ["remote", "remove"],
                    ["pack"], [], ["today"], ["context"], ["context", "set"], ["context", "set", "work"],
                    ["context", "rm"],
                ]
                let words = [
                    "", " ", "x", "Buy milk", "-1d", "+3d", "+99999999999999d", "+9223372036854775807d",
                    "-9223372036854775808d",
                    "0000-01-01", "9999-12-31", "2026-02-30", "2026-12-01 09:30", "none", "today", "--due", "--json",
                    "--all",
                    "--done", "-n", "-5", "99999999999999999999", "-C", "/nonexistent", "\u{1B}[2K", "日本語",
                    "../../etc/passwd",
                    String(repeating: "a", count: 5000), "abcd", "ffff", "-", "--", "--text", "--open", "--project",
                    "in-progress",
                    "%s%n", "\u{0}", "origin", "https://u:p@127.0.0.1:1/x", "+errand", "-home", "-new", "-all", "-Cx",
                    "-priority,due", "h,none", "Party", "work",
                ]
                let options = [
                    "--due", "--text", "-n", "-C", "--project", "-m", "--priority", "--sort", "--due-after",
                    "--due-before",
                ]
                forAll(250) { g in
                    var arguments = commands.randomElement(using: &g)!
                    for _ in 0..<Int.random(in: 0...4, using: &g) {
                        switch Int.random(in: 0..<3, using: &g) {
                        case 0: arguments.append(ids.randomElement(using: &g)!)
                        case 1: arguments.append(words.randomElement(using: &g)!)
                        default: arguments += [options.randomElement(using: &g)!, words.randomElement(using: &g)!]
                        }
                    }
                    // From a scratch folder: a relative path given to -C lands there.
                    let result = docket(
                        arguments.filter { !$0.contains("\u{0}") }, store: folder,
                        environment: ["DOCKET_LOCK_TIMEOUT": "1"],
                        in: scratch)
                    if ![0, 1, 64].contains(result.status) || result.stderr.contains("Fatal error") {
                        return "docket \(arguments) exited \(result.status): \(result.stderr.prefix(300))"
                    }
                    return nil
                }
            }
        }
    }
}
