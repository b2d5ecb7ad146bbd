import DocketSpecSupport
import Foundation
import Nimble
import Quick
import Synchronization

/// scripts/install as a user runs it, then a new bash, zsh and fish on a
/// terminal: docket on the PATH, `man docket`, and TAB completing commands
/// and todo, task and project ids. The spec installs the debug build with the man page
/// scripts/test writes with scripts/manual (plain `swift test` writes none: the man page's checks
/// are then left out, and it says so); scripts/install alone builds both for release.
final class InstallSpec: QuickSpec {
    override class func spec() {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let manual: String? = {
            let page = root.appendingPathComponent(".build/docket.1").path
            return FileManager.default.fileExists(atPath: page) ? page : nil
        }()

        describe("scripts/install") {
            var home: URL!
            beforeEach { home = temporaryFolder("docket-install-home") }
            afterEach { try? FileManager.default.removeItem(at: home) }

            /// What a user of this home runs, with the PATH a fresh login has.
            // NB: plain `swift test` writes no man page (`scripts/test` does, with `scripts/manual`):
            // without one, the spec installs without it and leaves out the man page's checks, saying so.
            func install(_ extra: [String] = []) -> CommandResult {
                return runCommand(
                    root.appendingPathComponent("scripts/install").path,
                    ["--binary", docketBinary] + (manual.map { ["--man", $0] } ?? []) + extra,
                    environment: ["HOME": home.path, "PATH": "/usr/local/bin:/usr/bin:/bin"],
                    unsetting: ["DOCKET_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME"])
            }
            /// Keys typed into a new interactive shell; what its terminal showed.
            func type(in shell: String, _ keys: String...) -> String {
                runCommand(
                    "python3", [root.appendingPathComponent("Tests/scripts/type-in-shell.py").path, shell] + keys,
                    in: home,
                    environment: ["HOME": home.path, "PATH": "/usr/local/bin:/usr/bin:/bin", "TERM": "xterm"],
                    unsetting: ["DOCKET_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME"]
                ).stdout
            }
            let installed = { home.appendingPathComponent(".local/bin/docket").path }

            it("puts docket on a new shell's PATH, with its man page, and the day's view answers") {
                let result = install()
                expect(result.status).to(equal(0), description: result.stderr)
                expect(FileManager.default.isExecutableFile(atPath: installed())) == true
                let shown = type(
                    in: "bash", "docket\\r", "man -w docket\\r",
                    "echo warnings: $(man docket 2>&1 >/dev/null | wc -l)\\r",
                    "echo pages: $(man docket 2>/dev/null | grep -c 'Todo lists and projects kept as JSON files')\\r",
                    "echo sections: $(man docket 2>/dev/null | grep -E '^(HOOKS|ENVIRONMENT|FILES|EXIT STATUS)$' | paste -sd,)\\r",
                    "echo usage: $(man docket 2>/dev/null | grep -E '^ +64 ')\\r")
                expect(shown).to(contain("Created a new Docket store in \(home.path)/.docket"))
                expect(shown).to(contain("Nothing to do. Add a todo with 'docket add <text>'."))
                guard manual != nil else {
                    return print(
                        "InstallSpec: no man page in .build/docket.1, so its checks are left out; scripts/test writes one (scripts/manual)"
                    )
                }
                expect(shown).to(contain("\(home.path)/.local/share/man/man1/docket.1"))
                expect(shown).to(contain("warnings: 0\r\n"))
                expect(shown).to(contain("pages: 1\r\n"))
                expect(shown).to(contain("sections: HOOKS,ENVIRONMENT,FILES,EXIT STATUS\r\n"))
                expect(shown).to(contain("usage: 64 A usage error"))
            }
            it(
                "completes commands, todo and task ids (with their texts where the shell shows them) and project ids at TAB in a new bash, zsh and fish"
            ) {
                expect(install().status) == 0
                let store = home.appendingPathComponent(".docket")
                expect(runCommand(installed(), ["init", store.path]).status) == 0
                func id(_ arguments: String...) -> String {
                    docket(arguments, store: store).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                }
                let open = id("add", "Buy milk")
                let done = id("add", "Call Anna")
                docket(["done", done], store: store)
                let garden = id("project", "add", "Garden")
                let dig = id("task", "add", garden, "Dig beds")
                // The three shells at once, each typed into as a person would; Ctrl-C clears a line, and an echoed
                // marker parts what each completion showed. Two TABs list the candidates in each shell.
                let shells = ["bash", "zsh", "fish"]
                let shown = Mutex([String: String]())
                DispatchQueue.concurrentPerform(iterations: shells.count) { index in
                    let text = type(
                        in: shells[index], "docket repo\\t", "\\x03", "echo @@1\\r", "docket done \\t\\t", "\\x03",
                        "echo @@2\\r", "docket reopen \\t", "\\x03", "echo @@3\\r", "docket task start \\t", "\\x03",
                        "echo @@4\\r", "docket project show \\t")
                    shown.withLock { $0[shells[index]] = text }
                }
                for shell in shells {
                    let text = (shown.withLock { $0[shell] } ?? "").replacingOccurrences(of: "\r", with: "")
                    let parts = text.components(separatedBy: "\n@@")
                    expect(parts.count).to(equal(5), description: "\(shell) showed: \(parts)")
                    guard parts.count == 5 else { continue }
                    expect(parts[0]).to(contain("docket report"), description: shell)
                    expect(parts[1]).to(contain(open), description: shell)
                    expect(parts[1]).to(contain(dig), description: shell)
                    expect(parts[1]).toNot(contain(done), description: shell)
                    if shell == "bash" {
                        // bash completes words only: the ids alone.
                        expect(parts[1]).toNot(contain("Buy milk"), description: shell)
                    } else {
                        expect(parts[1]).to(contain("Buy milk"), description: shell)
                        expect(parts[1]).to(contain("Dig beds"), description: shell)
                    }
                    expect(parts[2]).to(contain("reopen \(done)"), description: shell)
                    expect(parts[3]).to(contain("start \(dig)"), description: shell)
                    expect(parts[4]).to(contain("show \(garden)"), description: shell)
                }
            }
            it("runs again over itself, keeping the rest of each start-up file and one block of its own") {
                let bashrc = home.appendingPathComponent(".bashrc")
                try Data("alias ll='ls -l'\n".utf8).write(to: bashrc)
                expect(install().status) == 0
                expect(install().status) == 0
                let text = try String(contentsOf: bashrc, encoding: .utf8)
                expect(text).to(contain("alias ll='ls -l'"))
                expect(text.components(separatedBy: "# >>> docket (scripts/install) >>>").count) == 2
            }
            it("leaves the start-up files alone with --no-shell-setup, and says what to add") {
                let result = install(["--no-shell-setup"])
                expect(result.status) == 0
                expect(result.stdout).to(contain("Put \(home.path)/.local/bin on your PATH"))
                expect(FileManager.default.fileExists(atPath: home.appendingPathComponent(".bashrc").path)) == false
            }
        }
    }
}
