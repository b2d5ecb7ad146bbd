import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// The samples as a person runs them: the library sample, the app and server
/// samples, the quiz on a terminal's input, and Mastermind played in tmux.
final class SamplesRunSpec: QuickSpec {
    override class func spec() {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        func binary(_ name: String) -> String {
            URL(fileURLWithPath: docketBinary).deletingLastPathComponent().appendingPathComponent(name).path
        }

        describe("docket-sample, Docket used from Swift") {
            it("syncs two stores through a bare remote and prints the same merged state with the merge's decisions") {
                let result = runCommand(binary("docket-sample"), [])
                expect(result.status) == 0
                expect(result.stdout).to(contain("The desk merged in "))
                expect(result.stdout).to(
                    contain("tags: kept \"[errand, shop]\" (both changed it: ours +shop, theirs +errand)"))
                expect(result.stdout).to(contain("lost \"Buy oat milk\" (theirs)"))
                expect(result.stdout).to(contain("Both machines hold the same state: true"))
                expect(result.stdout).to(contain("task  Party / Buy craft beer  finished  slips: stopped"))
            }
        }

        describe("docket-server-sample, an HTTP service on one StoreQueue, under its own load script") {
            it("answers every request beside the CLI and a second store, and its listener hears every todo added") {
                let bin = URL(fileURLWithPath: docketBinary).deletingLastPathComponent().path
                let result = runCommand(
                    "python3",
                    [
                        root.appendingPathComponent("Samples/Server/load.py").path, "--seconds", "3", "--writers", "2",
                        "--size", "50", "--bin", bin,
                    ])
                expect(result.status).to(equal(0), description: result.stderr)
                expect(result.stdout).to(contain("without a listener: "))
                expect(result.stdout).notTo(contain(" failed: "))
                let heard = result.stdout.split(separator: "\n").first { $0.contains("listener heard") }
                let counts = heard.map { $0.split(separator: " ").compactMap { Int($0) } } ?? []
                expect(counts.count) == 2
                expect(counts.first) == counts.last
                expect(counts.first ?? 0) > 0
            }
        }

        describe("docket-app-sample, an app's stores shared by tasks") {
            it("keeps every edit of 8 editing tasks while 2 tasks sync, prints each store's changes, and converges") {
                let result = runCommand(binary("docket-app-sample"), ["--seconds", "3"])
                expect(result.status).to(equal(0), description: result.stderr)
                expect(result.stdout).to(contain("laptop: edited here: 1 added"))
                expect(result.stdout).to(contain("desk: pulled: "))
                expect(result.stdout).to(match("\\d+ todos made, 0 lost; (both|all three) stores the same: yes"))
                expect(result.stderr) == ""
            }
            it("stops cleanly at the first Ctrl-C, keeping what it made") {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: binary("docket-app-sample"))
                process.arguments = ["--seconds", "60", "--quiet"]
                let output = Pipe()
                process.standardOutput = output
                try process.run()
                Thread.sleep(forTimeInterval: 2)
                kill(process.processIdentifier, SIGINT)
                let shown = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                expect(process.terminationStatus) == 0
                expect(shown).to(contain("Stopping (signal 2)"))
                expect(shown).to(match("\\d+ todos made, 0 lost; (both|all three) stores the same: yes"))
            }
        }

        describe("quiz") {
            it("asks each question of the file in turn and shows the answers") {
                let result = runCommand(
                    binary("QuizTerminal"), [root.appendingPathComponent("Samples/Quiz/questions.json").path],
                    input: "JSON files\nfields\ndocket undo\n")
                expect(result.status) == 0
                expect(result.stdout).to(contain("Question 1 of 3: Which format does Docket keep each item in?"))
                expect(result.stdout).to(contain("Question 3 of 3: Which command takes back the last change?"))
                expect(result.stdout).to(
                    contain("Your answers:\n  Which format does Docket keep each item in?  JSON files\n"))
            }
            it("says the quiz stops when the answers run out, and names a file that does not read") {
                let short = runCommand(
                    binary("QuizTerminal"), [root.appendingPathComponent("Samples/Quiz/questions.json").path],
                    input: "JSON files\n")
                expect(short.status) == 1
                expect(short.stdout).to(contain("No answer: the quiz stops here."))
                let missing = runCommand(binary("QuizTerminal"), ["/nonexistent/questions.json"])
                expect(missing.status) == 1
                expect(missing.stderr).to(
                    contain("/nonexistent/questions.json does not read as a JSON array of questions"))
            }
        }

        describe("mastermind, played in tmux") {
            var session: String!
            beforeEach { session = "mastermind-spec-\(getpid())-\(Int.random(in: 0..<1_000_000))" }
            afterEach { runCommand("tmux", ["kill-session", "-t", session]) }
            func keys(_ text: String) {
                runCommand("tmux", ["send-keys", "-t", session, text, "Enter"])
                Thread.sleep(forTimeInterval: 0.3)
            }
            func screen() -> String { runCommand("tmux", ["capture-pane", "-p", "-t", session]).stdout }

            it("shows nine empty rows, fills them from the top with results on the left, ends at AAAA, and resets") {
                let started = runCommand(
                    "tmux",
                    [
                        "new-session", "-d", "-s", session, "-x", "90", "-y", "24",
                        binary("MastermindGame") + " --secret 1234",
                    ])
                expect(started.status) == 0
                Thread.sleep(forTimeInterval: 0.5)
                expect(screen().components(separatedBy: "| · · · ·").count - 1) == 9
                expect(screen()).to(contain("Row 1 of 9"))
                keys("1122")
                expect(screen()).to(contain("  AB     | 1 1 2 2"))
                keys("5555")
                expect(screen()).to(contain("'5555' is not four numbers from 1 to 4"))
                keys("1 2 3 4")
                expect(screen()).to(contain("  AAAA   | 1 2 3 4"))
                expect(screen()).to(contain("Solved in 2 attempts!"))
                keys("4321")
                expect(screen()).to(contain("This game is over."))
                expect(screen()).notTo(contain("| 4 3 2 1"))
                keys("r")
                expect(screen().components(separatedBy: "| · · · ·").count - 1) == 9
                expect(screen()).to(contain("Row 1 of 9"))
                keys("q")
            }
        }
    }
}
