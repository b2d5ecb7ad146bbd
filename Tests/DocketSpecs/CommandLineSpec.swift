import Docket
import DocketSpecSupport
import Foundation
import Nimble
import Quick

final class CommandLineSpec: QuickSpec {
    override class func spec() {
        var folder: URL!
        beforeEach { folder = temporaryStore() }
        afterEach { try? FileManager.default.removeItem(at: folder) }
        func state() -> AppState { (try? Store.open(at: folder).load().state) ?? AppState() }
        @discardableResult func add(_ text: String, _ extra: String...) -> String {
            docket(["add", text] + extra, store: folder).stdout.trimmingCharacters(in: .newlines)
        }

        describe("docket") {
            context("on first use") {
                it("creates the default store, ~/.docket under $HOME, with a one-line notice on stderr") {
                    let home = temporaryFolder("docket-home")
                    defer { try? FileManager.default.removeItem(at: home) }
                    func run() -> CommandResult {
                        runCommand(
                            docketBinary, ["list"], in: home, environment: ["HOME": home.path],
                            unsetting: ["DOCKET_DIR"])
                    }
                    let result = run()
                    expect(result.status) == 0
                    expect(result.stderr) == "Created a new Docket store in \(home.path)/.docket\n"
                    expect(result.stdout) == "No open todos.\n"
                    expect(run().stderr) == ""
                }
                it("says which store it works on in a git repository that is not a store, and its advice makes one") {
                    let home = temporaryFolder("docket-home")
                    defer { try? FileManager.default.removeItem(at: home) }
                    let code = home.appendingPathComponent("code")
                    let inside = code.appendingPathComponent("Sources/App")
                    try FileManager.default.createDirectory(at: inside, withIntermediateDirectories: true)
                    gitCLI(["init", "-q"], in: code)
                    func run(_ arguments: String..., in cwd: URL) -> CommandResult {
                        runCommand(
                            docketBinary, arguments, in: cwd, environment: ["HOME": home.path],
                            unsetting: ["DOCKET_DIR"])
                    }
                    let added = run("add", "Fix the login bug", in: inside)
                    expect(added.status) == 0
                    expect(added.stderr).to(
                        contain(
                            "Using the store in \(home.path)/.docket: \(code.path) is a git repository but not a Docket "
                                + "store ('docket init \(code.path)' makes it one)\n"))
                    // Outside any repository, the default store goes without a word.
                    expect(run("list", in: home).stderr) == ""
                    // The advice followed: the repository is a store of its own, which the command works on.
                    expect(run("init", code.path, in: inside).status) == 0
                    let listed = run("list", in: inside)
                    expect(listed.stderr) == ""
                    expect(listed.stdout) == "No open todos.\n"
                    // A home kept in git holds the default store: nothing to say.
                    gitCLI(["init", "-q"], in: home)
                    let atHome = home.appendingPathComponent("notes")
                    try FileManager.default.createDirectory(at: atHome, withIntermediateDirectories: true)
                    let homeList = run("list", in: atHome)
                    expect(homeList.stderr) == ""
                    expect(homeList.stdout).to(contain("Fix the login bug"))
                }
            }

            describe("init") {
                it("makes a store in the folder given, and says so once") {
                    let target = folder.appendingPathComponent("lists")
                    expect(runCommand(docketBinary, ["init", target.path]).stdout)
                        == "Created a Docket store in \(target.path)\n"
                    expect(runCommand(docketBinary, ["init", target.path]).stdout)
                        == "\(target.path) is already a Docket store\n"
                }
            }

            describe("add and list") {
                it("prints the new todo's short id, which list shows") {
                    let id = add("Buy milk")
                    expect(id.count) == 8
                    expect(state().todos.first?.id.uuidString.lowercased().hasPrefix(id)) == true
                    expect(docket("list", store: folder).stdout).to(contain("\(id)  [ ]  Buy milk"))
                }
                it("shows due dates relative to today") {
                    add("Tomorrow's", "--due", "tomorrow")
                    add("Later", "--due", "+3d")
                    add("Late", "--due", "2020-01-01")
                    let out = docket("list", store: folder).stdout
                    expect(out).to(contain("Tomorrow's  due tomorrow"))
                    expect(out).to(contain("Later  due in 3 days"))
                    expect(out).to(contain("Late  overdue"))
                }
                it("lists open todos by default, done ones with --done, all with --all") {
                    let a = add("open one")
                    let b = add("done one")
                    docket("done", b, store: folder)
                    expect(docket("list", store: folder).stdout).toNot(contain("done one"))
                    expect(docket("list", "--done", store: folder).stdout).to(contain("\(b)  [x]  done one"))
                    let all = docket("list", "--all", store: folder).stdout
                    expect(all).to(contain(a))
                    expect(all).to(contain(b))
                }
                it("prints JSON that reads back as the store's todos") {
                    add("Buy milk", "--due", "2026-12-24T18:30")
                    let json = docket("list", "--all", "--json", store: folder).stdout
                    expect(try DocketJSON.decode([TodoItem].self, from: Data(json.utf8))) == state().todos
                }
                it("refuses a date it does not know, listing the forms it does") {
                    let result = docket("add", "x", "--due", "someday", store: folder)
                    expect(result.status) == 64
                    expect(result.stderr).to(
                        contain("'someday' is not a date; use today, tomorrow, a weekday (fri), next week"))
                    expect(state().todos).to(beEmpty())
                }
                it("uses colour on a terminal, and none with NO_COLOR") {
                    add("x", "--due", "2020-01-01")
                    let tty = runCommand(
                        "script", ["-qec", "\(docketBinary) list", "/dev/null"],
                        environment: ["DOCKET_DIR": folder.path, "TERM": "xterm"],
                        unsetting: ["NO_COLOR"])
                    expect(tty.stdout).to(contain("\u{1B}["))
                    let plain = runCommand(
                        "script", ["-qec", "\(docketBinary) list", "/dev/null"],
                        environment: ["DOCKET_DIR": folder.path, "TERM": "xterm", "NO_COLOR": "1"])
                    expect(plain.stdout).toNot(contain("\u{1B}["))
                    expect(plain.stdout).to(contain("overdue"))
                }
                it("uses no colour when stdout is not a terminal") {
                    add("x", "--due", "2020-01-01")
                    expect(docket("list", store: folder).stdout).toNot(contain("\u{1B}["))
                }
            }

            describe("changing a todo") {
                var id: String!
                beforeEach { id = add("Buy milk") }
                it("marks it done and open again") {
                    expect(docket("done", id, store: folder).stdout) == "Done: Buy milk\n"
                    expect(state().todos[0].completed) == true
                    expect(docket("reopen", id, store: folder).stdout) == "Reopened: Buy milk\n"
                    expect(state().todos[0].completed) == false
                }
                it("edits its text, sets and clears its due date") {
                    docket("edit", id, "Buy oat milk", store: folder)
                    docket("due", id, "2026-12-24", store: folder)
                    expect(state().todos[0].text) == "Buy oat milk"
                    expect(state().todos[0].dueDate).toNot(beNil())
                    docket("due", id, "none", store: folder)
                    expect(state().todos[0].dueDate).to(beNil())
                }
                it("removes it, recording a tombstone") {
                    expect(docket("rm", id, store: folder).stdout) == "Removed: Buy milk\n"
                    expect(state().todos).to(beEmpty())
                    expect(state().removed.count) == 1
                }
                it("forks it with changes, keeping the original") {
                    docket("done", id, store: folder)
                    let fork = docket("fork", id, "--text", "Buy milk for Anna", "--open", store: folder).stdout
                        .trimmingCharacters(in: .newlines)
                    expect(fork) != id
                    let todos = state().todos
                    expect(Set(todos.map(\.text))) == Set(["Buy milk", "Buy milk for Anna"])
                    expect(todos.first { $0.text == "Buy milk for Anna" }?.completed) == false
                }
                it("shows it, and as JSON") {
                    expect(docket("show", id, store: folder).stdout).to(
                        contain("Buy milk\n  id        \(state().todos[0].id.uuidString.lowercased())"))
                    let json = docket("show", id, "--json", store: folder).stdout
                    expect(try DocketJSON.decode(TodoItem.self, from: Data(json.utf8))) == state().todos[0]
                }
                it("takes the id in any case") {
                    expect(docket("done", id.uppercased(), store: folder).status) == 0
                }
            }

            describe("ids that do not name one todo") {
                it("says an unknown id is unknown, exits 1 and changes nothing") {
                    add("x")
                    let result = docket("done", "ffff", store: folder)
                    expect(result.status) == 1
                    expect(result.stderr)
                        == "Error: no todo or task has the id ffff; 'docket list --all' shows the todos with their ids, 'docket project show <project>' a project's tasks\n"
                    expect(state().todos[0].completed) == false
                }
                it("lists the candidates of an ambiguous prefix") {
                    let store = try Store.create(at: folder)
                    let made = Date()
                    let a = TodoItem(
                        id: UUID(uuidString: "ABCD1111-0000-4000-8000-000000000000")!, text: "a", creationDate: made,
                        completed: false, dueDate: nil, alterDate: nil)
                    let b = TodoItem(
                        id: UUID(uuidString: "ABCD2222-0000-4000-8000-000000000000")!, text: "b", creationDate: made,
                        completed: false, dueDate: nil, alterDate: nil)
                    try store.edit { $0.alter(by: .adding(.todo(a)), .adding(.todo(b))) }
                    let result = docket("done", "abcd", store: folder)
                    expect(result.status) == 1
                    expect(result.stderr).to(
                        contain(
                            "the id abcd matches 2 todos: abcd1111-0000-4000-8000-000000000000, abcd2222-0000-4000-8000-000000000000"
                        ))
                    expect(docket("done", "abcd1", store: folder).status) == 0
                }
                it("wants at least 4 characters") {
                    add("x")
                    expect(docket("done", "ab", store: folder).stderr).to(contain("give at least 4 characters"))
                }
            }

            describe("projects and tasks") {
                var project: String!
                var task: String!
                beforeEach {
                    project = docket("project", "add", "Party", store: folder).stdout.trimmingCharacters(in: .newlines)
                    task = docket("task", "add", project, "Buy Beer", "--due", "+2d", store: folder).stdout
                        .trimmingCharacters(in: .newlines)
                }
                it("adds a project and a task to it") {
                    expect(state().projects.map(\.title)) == ["Party"]
                    expect(state().projects[0].tasks.map(\.title)) == ["Buy Beer"]
                    expect(docket("project", "list", store: folder).stdout).to(contain("Party  0/1 tasks finished"))
                }
                it("renames and removes a project") {
                    docket("project", "rename", project, "Garden party", store: folder)
                    expect(state().projects[0].title) == "Garden party"
                    docket("project", "rm", project, store: folder)
                    expect(state().projects).to(beEmpty())
                }
                it("changes a task's state, due date and title, and removes it") {
                    expect(docket("task", "state", task, "in-progress", store: folder).stdout)
                        == "Task 'Buy Beer' is now in progress\n"
                    docket("task", "due", task, "none", store: folder)
                    docket("task", "rename", task, "Buy more beer", store: folder)
                    let changed = state().projects[0].tasks[0]
                    expect(changed.state) == .inProgress
                    expect(changed.dueDate) == .unknown
                    expect(changed.title) == "Buy more beer"
                    docket("task", "rm", task, store: folder)
                    expect(state().projects[0].tasks).to(beEmpty())
                }
                it("refuses a state it does not know") {
                    expect(docket("task", "state", task, "sleeping", store: folder).status) == 64
                }
                it("records time: start, no second start, stop, and a report") {
                    expect(docket("task", "start", task, store: folder).stdout) == "Task 'Buy Beer' recording time\n"
                    expect(docket("task", "start", task, store: folder).stdout)
                        == "Task 'Buy Beer' is already recording time\n"
                    expect(docket("report", store: folder).stdout).to(contain("Buy Beer  (running)"))
                    docket("task", "stop", task, store: folder)
                    expect(state().projects[0].tasks[0].timeSlips.count) == 1
                    expect(state().projects[0].tasks[0].runningSlip).to(beNil())
                    expect(docket("task", "stop", task, store: folder).stdout)
                        == "Task 'Buy Beer' was not recording time\n"
                }
                it("prints projects and the report as JSON") {
                    let projects = docket("project", "list", "--json", store: folder).stdout
                    expect(try DocketJSON.decode([Project].self, from: Data(projects.utf8))) == state().projects
                    let shown = docket("project", "show", project, "--json", store: folder).stdout
                    expect(try DocketJSON.decode(Project.self, from: Data(shown.utf8))) == state().projects[0]
                    expect(docket("report", "--project", project, store: folder).stdout).to(contain("Party  0s"))
                    let report = docket("report", "--json", store: folder).stdout
                    expect(report).to(contain("\"seconds\" : 0"))
                    expect(report).to(contain("\"running\" : false"))
                }
            }

            describe("status, commit and log") {
                it("says what is uncommitted, commits it with a summary, and shows it in both logs") {
                    add("Buy milk")
                    expect(docket("status", store: folder).stdout) == "Not committed yet:\n  added todo 'Buy milk'\n"
                    expect(docket("commit", store: folder).stdout).to(contain(": Add 1 todo"))
                    expect(docket("status", store: folder).stdout)
                        == "Nothing to commit; the store matches its last commit.\n"
                    expect(docket("log", store: folder).stdout).to(contain("Add 1 todo"))
                    expect(gitCLI(["log", "--format=%s"], in: folder).stdout) == "Add 1 todo\nStart a Docket store\n"
                    expect(docket("commit", store: folder).stdout) == "Nothing to commit.\n"
                }
                it("commits with the message given") {
                    add("x")
                    docket("commit", "-m", "Plan the week", store: folder)
                    expect(docket("log", "-n", "1", store: folder).stdout).to(contain("Plan the week"))
                }
            }

            describe("bad input") {
                it("warns about a damaged file on stderr and still lists the rest") {
                    add("Buy milk")
                    let bad = folder.appendingPathComponent(
                        StoreLayout.todo(UUID(uuidString: "00000000-0000-4000-8000-000000000000")!))
                    try FileManager.default.createDirectory(
                        at: bad.deletingLastPathComponent(), withIntermediateDirectories: true)
                    try Data("not json".utf8).write(to: bad)
                    let result = docket("list", store: folder)
                    expect(result.status) == 0
                    expect(result.stdout).to(contain("Buy milk"))
                    expect(result.stderr).to(
                        contain("Warning: skipped todos/00/00000000-0000-4000-8000-000000000000.json"))
                    let commit = docket("commit", store: folder)
                    expect(commit.status) == 1
                    expect(commit.stderr).to(contain("Error: nothing was committed"))
                    expect(commit.stderr).to(
                        contain(StoreLayout.todo(UUID(uuidString: "00000000-0000-4000-8000-000000000000")!)))
                    expect(try Data(contentsOf: bad)) == Data("not json".utf8)
                }
                it("refuses a git repository that is not a store") {
                    folder = temporaryFolder()
                    gitCLI(["init", "-q"], in: folder)
                    try Data("hello\n".utf8).write(to: folder.appendingPathComponent("README"))
                    let result = docket("list", store: folder)
                    expect(result.status) == 1
                    expect(result.stderr).to(contain("is a git repository but not a Docket store"))
                    expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(".docket").path))
                        == false
                }
                it("refuses a SHA-256 repository, for init too, and a store made where its advice says works") {
                    folder = temporaryFolder()
                    let repository = folder.appendingPathComponent("sha256")
                    expect(gitCLI(["init", "-q", "--object-format=sha256", repository.path], in: folder).status) == 0
                    for arguments in [["list"], ["add", "Hello"]] {
                        let refused = docket(arguments, store: repository)
                        expect(refused.status) == 1
                        expect(refused.stderr).to(contain("is a git repository with sha256 object ids"))
                        expect(refused.stderr).to(contain("'docket init <another folder>'"))
                    }
                    let initialised = runCommand(docketBinary, ["init", repository.path])
                    expect(initialised.status) == 1
                    expect(initialised.stderr).to(contain("sha256 object ids"))
                    expect(initialised.stderr).toNot(contain("git_repository"))
                    expect(gitCLI(["status", "--porcelain"], in: repository).stdout) == ""
                    // Inside it, a command on the default store says why the repository is passed over.
                    let home = folder.appendingPathComponent("home")
                    let inside = runCommand(
                        docketBinary, ["add", "Elsewhere"], in: repository, environment: ["HOME": home.path],
                        unsetting: ["DOCKET_DIR"])
                    expect(inside.stderr).to(contain("is a git repository with sha256 object ids"))
                    let another = folder.appendingPathComponent("todo")
                    expect(runCommand(docketBinary, ["init", another.path]).status) == 0
                    expect(docket(["add", "Works"], store: another).status) == 0
                }
                it("works on a store whose path is nearly as long as the system allows, and syncs it") {
                    // A report had list fail past about 1,030 bytes; Linux allows 4,096 for a whole path.
                    var path = temporaryFolder().path
                    while path.utf8.count < 3_800 { path += "/" + String(repeating: "l", count: 200) }
                    let long = URL(fileURLWithPath: path + "/store")
                    try FileManager.default.createDirectory(at: long, withIntermediateDirectories: true)
                    expect(runCommand(docketBinary, ["init", long.path]).status) == 0
                    let id = docket(["add", "Far down"], store: long).stdout.trimmingCharacters(in: .newlines)
                    expect(docket("list", store: long).stdout) == "\(id)  [ ]  Far down\n"
                    let remote = temporaryFolder().appendingPathComponent("remote.git")
                    expect(gitCLI(["init", "-q", "--bare", remote.path], in: long).status) == 0
                    expect(docket("remote", "add", "origin", remote.path, store: long).status) == 0
                    let synced = docket("sync", store: long)
                    expect(synced.status).to(equal(0), description: synced.stderr)
                    expect(gitCLI(["ls-tree", "-r", "--name-only", "HEAD"], in: remote).stdout).to(contain(".json"))
                    expect(docket("status", store: long).stdout).to(contain("Nothing to commit"))
                }
                it("refuses a store of a newer format") {
                    add("x")
                    try Data("{\"format\" : 9}\n".utf8).write(to: folder.appendingPathComponent(".docket/format.json"))
                    let result = docket("list", store: folder)
                    expect(result.status) == 1
                    expect(result.stderr).to(contain("uses store format 9"))
                }
                it("fails with the lock file's name while another docket holds the lock") {
                    let id = add("x")
                    let store = try Store.open(at: folder)
                    let holder = LockHolder(store.lockFile)
                    defer { holder.stop() }
                    let result = docket("done", id, store: folder, environment: ["DOCKET_LOCK_TIMEOUT": "0.3"])
                    expect(result.status) == 1
                    expect(result.stderr).to(contain(store.lockFile))
                    holder.stop()
                    expect(state().todos[0].completed) == false
                    expect(docket("done", id, store: folder).status) == 0
                }
            }

            describe("the cost of a change") {
                it("does not read the other todos to add one or mark one done") {
                    let id = add("target")
                    let bad = folder.appendingPathComponent(
                        StoreLayout.todo(UUID(uuidString: "00000000-0000-4000-8000-000000000000")!))
                    try FileManager.default.createDirectory(
                        at: bad.deletingLastPathComponent(), withIntermediateDirectories: true)
                    try Data("never read".utf8).write(to: bad)
                    let added = docket("add", "another", store: folder)
                    let done = docket("done", id, store: folder)
                    expect(added.stderr + done.stderr) == ""
                    expect(try Data(contentsOf: bad)) == Data("never read".utf8)
                }
            }
        }
    }
}
