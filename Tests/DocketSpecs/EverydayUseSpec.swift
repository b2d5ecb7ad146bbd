import Docket
import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// Daily use as people bring it from git, Taskwarrior, dstask and todo.txt:
/// the store found where they are, words typed without quotes, ids first,
/// an editor, the day's view and filters.
final class EverydayUseSpec: QuickSpec {
    override class func spec() {
        var home: URL!
        var store: URL!
        beforeEach {
            home = temporaryFolder("docket-home")
            store = home.appendingPathComponent("lists")
            expect(runCommand(docketBinary, ["init", store.path]).status) == 0
        }
        afterEach {
            // A spec may hand a folder to another user: take it back before removing it.
            runCommand("chown", ["-R", "\(getuid()):\(getgid())", home.path])
            try? FileManager.default.removeItem(at: home)
        }
        /// docket run as a user of this home would: `$HOME` set, no DOCKET_DIR, from `cwd` (home by default).
        @discardableResult
        func user(_ arguments: [String], in cwd: URL? = nil, environment: [String: String] = [:]) -> CommandResult {
            runCommand(
                docketBinary, arguments, in: cwd ?? home,
                environment: ["HOME": home.path].merging(environment) { _, new in new },
                unsetting: environment["DOCKET_DIR"] == nil ? ["DOCKET_DIR"] : [])
        }
        @discardableResult
        func user(_ arguments: String..., in cwd: URL? = nil, environment: [String: String] = [:]) -> CommandResult {
            user(arguments, in: cwd, environment: environment)
        }
        @discardableResult func run(_ arguments: String..., environment: [String: String] = [:]) -> CommandResult {
            docket(arguments, store: store, environment: environment)
        }
        @discardableResult func add(_ words: String...) -> String {
            docket(["add"] + words, store: store).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        func todos() -> [TodoItem] { (try? Store.open(at: store).load().state.todos) ?? [] }

        describe("where the store is") {
            it("takes home from $HOME: ~ in -C and the default store land under it") {
                expect(user("-C", "~/lists", "add", "Buy milk").status) == 0
                expect(todos().map(\.text)) == ["Buy milk"]
                expect(user("list").stdout) == "No open todos.\n"
                expect(
                    FileManager.default.fileExists(
                        atPath: home.appendingPathComponent(".docket/.docket/format.json").path)) == true
            }
            it(
                "never makes a store where -C or DOCKET_DIR points at nothing, and says how to make one; following it works"
            ) {
                let typo = home.appendingPathComponent("typo/lists")
                for arguments in [["list"], ["show", "abcd"], ["add", "x"]] {
                    let result = user(arguments + ["-C", typo.path])
                    expect(result.status) == 1
                    expect(result.stderr).to(
                        contain("there is no folder \(typo.path); check the path, or run 'docket init \(typo.path)'"))
                }
                let viaEnvironment = user("list", environment: ["DOCKET_DIR": typo.path])
                expect(viaEnvironment.status) == 1
                expect(FileManager.default.fileExists(atPath: typo.path)) == false
                expect(user("init", typo.path).status) == 0
                expect(user("list", "-C", typo.path).stdout) == "No open todos.\n"
            }
            it("says so when -C names a file, or a folder that holds no store") {
                let file = home.appendingPathComponent("notes.txt")
                try Data("x".utf8).write(to: file)
                expect(user("list", "-C", file.path).stderr).to(contain("\(file.path) is a file, not a store's folder"))
                let empty = home.appendingPathComponent("empty")
                try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
                expect(user("list", "-C", empty.path).stderr).to(
                    contain("\(empty.path) is not a Docket store; run 'docket init \(empty.path)'"))
            }
            it("finds the store the working folder is in, as git finds its repository, after -C and DOCKET_DIR") {
                let other = home.appendingPathComponent("other")
                expect(user("init", other.path).status) == 0
                user("-C", other.path, "add", "In other")
                add("In lists")
                let deep = store.appendingPathComponent("todos")
                expect(user("list", in: deep).stdout).to(contain("In lists"))
                expect(user("list", in: store).stdout).toNot(contain("In other"))
                expect(user("list", "-C", other.path, in: store).stdout).to(contain("In other"))
                expect(user("list", in: store, environment: ["DOCKET_DIR": other.path]).stdout).to(contain("In other"))
            }
            it("takes -C before or after init and clone, as every command does, and shows it in the top-level help") {
                let made = home.appendingPathComponent("made")
                expect(user("-C", made.path, "init").stdout) == "Created a Docket store in \(made.path)\n"
                let remote = home.appendingPathComponent("remote.git")
                gitCLI(["init", "-q", "--bare", "-b", "main", remote.path], in: home)
                user("-C", made.path, "remote", "add", "origin", remote.path)
                user("-C", made.path, "add", "Shared")
                user("-C", made.path, "sync")
                let copy = home.appendingPathComponent("copy")
                expect(user("clone", remote.path, "-C", copy.path).status) == 0
                expect(user("list", "-C", copy.path).stdout).to(contain("Shared"))
                expect(user("--help").stdout).to(contain("-C <dir>"))
            }
            it(
                "reads -C where the parser reads it: an option missing its value never takes -C's, and -C never lands in the text"
            ) {
                let lists = home.appendingPathComponent("lists")
                let missing = user("-C", lists.path, "add", "Read", "--due")
                expect(missing.status) == 64
                expect(missing.stderr).to(contain("Error: missing value for '--due <date>'"))
                expect(user("-C", lists.path, "note", "abcd", "--edit").stderr).to(
                    contain("Error: missing value for '--edit <n>'"))
                expect(FileManager.default.fileExists(atPath: home.appendingPathComponent(".docket").path)) == false
                // Joined, after the command, and before an id-first command line.
                let milk = user("-C\(lists.path)", "add", "Buy", "milk").stdout.trimmingCharacters(
                    in: .whitespacesAndNewlines)
                expect(user(milk, "done", "-C", lists.path).stdout) == "Done: Buy milk\n"
                expect(user("-C", lists.path, milk, "reopen").stdout) == "Reopened: Buy milk\n"
                expect(user("-C", lists.path).stdout).to(contain("Buy milk"))
                expect(user("-C", lists.path, "--json").stdout).to(contain("\"open\""))
                // After '--' it is text, as after git's '--'.
                expect(user("-C", lists.path, "add", "--", "-C", "is", "a", "grade").status) == 0
                expect(todos().map(\.text).sorted()) == ["-C is a grade", "Buy milk"]
                expect(user("add", "x", "-C").stderr).to(contain("Error: missing value for '-C'"))
            }
            it("draws 'did you mean' from each command's own options") {
                expect(user("add", "Buy", "--prio", "high").stderr).to(contain("did you mean '--priority'?"))
                expect(user("note", "abcd", "--edti", "1", "x").stderr).to(contain("did you mean '--edit'?"))
                expect(user("list", "--projcet", "x").stderr).to(contain("did you mean '--project'?"))
            }
            it(
                "says an unknown option one way, whether docket or the parser finds it, a one-letter one with its long name"
            ) {
                let add = user("add", "Buy", "milk", "-p", "high")
                expect(add.status) == 64
                expect(add.stderr).to(contain("Error: unknown option '-p'; did you mean '--priority'?"))
                let list = user("list", "--jsno")
                expect(list.status) == 64
                expect(list.stderr).to(
                    contain("Error: unknown option '--jsno'; did you mean '--json'?\nUsage: docket list"))
                expect(user("show", "abcd", "-j").stderr).to(
                    contain("Error: unknown option '-j'; did you mean '--json'?"))
                // A one-letter word after the day's view may be a tag to leave out: the message says how.
                expect(user("-x").stderr).to(
                    contain(
                        "Error: unknown option '-x' (to leave out the tag x, put it after '--')\nUsage: docket today"))
                expect(user("add", "Buy", "milk", "-C").stderr).to(contain("Error: missing value for '-C'"))
            }
            it("names git's safe.directory for a store another user owns, and following the advice works") {
                guard getuid() == 0 else { return }
                runCommand("chown", ["-R", "nobody", store.path])
                let refused = user("status", "-C", store.path)
                expect(refused.status) == 1
                expect(refused.stderr).to(contain("belongs to another user"))
                expect(refused.stderr).to(contain("git config --global --add safe.directory \(store.path)"))
                expect(
                    runCommand(
                        "git", ["config", "--global", "--add", "safe.directory", store.path],
                        environment: ["HOME": home.path]
                    ).status) == 0
                expect(user("status", "-C", store.path).status) == 0
            }
        }

        describe("typing habits") {
            it(
                "joins unquoted words into the text, takes '-5 pushups' as text, and refuses a mistyped option naming the right one"
            ) {
                let bread = add("Buy", "bread", "--due", "tomorrow")
                expect(run("show", bread).stdout).to(contain("Buy bread"))
                expect(todos().first?.dueDate).toNot(beNil())
                let pushups = add("-5 pushups")
                expect(run("show", pushups).stdout).to(contain("-5 pushups"))
                let typo = run("add", "Call", "Anna", "--dew", "friday")
                expect(typo.status) == 64
                expect(typo.stderr).to(contain("unknown option '--dew'; did you mean '--due'?"))
                expect(add("--", "--weird", "text")).toNot(beEmpty())
                expect(todos().map(\.text).sorted()) == ["--weird text", "-5 pushups", "Buy bread"]
            }
            it("runs docket <id> <command> as docket <command> <id>, and docket <id> shows the todo") {
                let milk = add("Buy", "milk")
                expect(run(milk, "done").stdout) == "Done: Buy milk\n"
                expect(run(milk, "reopen").stdout) == "Reopened: Buy milk\n"
                expect(run(milk, "due", "friday").status) == 0
                expect(run(milk).stdout).to(contain("Buy milk\n  id        "))
                expect(run(milk, "frobnicate").stderr).to(contain("'frobnicate' cannot follow an id"))
            }
            it("answers a mistyped command with the nearest one, and a sentence with how to add it") {
                let typo = run("lsit")
                expect(typo.status) == 64
                expect(typo.stderr).to(contain("'lsit' is not a docket command; did you mean 'list'?"))
                expect(run("Buy", "milk").stderr).to(contain("to add a todo: docket add Buy milk"))
            }
            it("says when done or reopen changes nothing") {
                let milk = add("Buy milk")
                run("done", milk)
                expect(run("done", milk).stdout) == "Already done: Buy milk\n"
                run("reopen", milk)
                expect(run("reopen", milk).stdout) == "Already open: Buy milk\n"
            }
            it("refuses empty titles for projects and tasks, and empty texts") {
                let project = run("project", "add", "Party").stdout.trimmingCharacters(in: .newlines)
                for arguments in [
                    ["task", "add", project, ""], ["task", "add", project, "   "], ["project", "add", " "],
                    ["add", ""],
                ] {
                    let refused = docket(arguments, store: store)
                    expect(refused.status) == 64
                    expect(refused.stderr).to(contain("cannot be empty"))
                }
                expect(try Store.open(at: store).load().state.projects.first?.tasks).to(beEmpty())
            }
            it("points a missing task's id to where task ids are shown") {
                let refused = run("task", "start", "abcd1234")
                expect(refused.stderr).to(contain("'docket project show <project>' a project's tasks"))
                expect(run("task", "rm", "abcd1234").stderr).to(
                    contain("'docket project show <project>' shows a project's tasks with their ids"))
            }
            it("names a remote name git refuses, with what a name may hold") {
                let refused = run("remote", "add", "my remote", "/srv/lists.git")
                expect(refused.status) == 1
                expect(refused.stderr).to(
                    contain("'my remote' is not a valid remote name; use letters, digits, '-', '_' and '.'"))
                expect(refused.stderr).toNot(contain("git_remote_create"))
            }
        }

        describe("defects people met") {
            it("keeps the due date when forking, with or without new text") {
                let milk = add("Buy milk", "--due", "2026-12-24")
                let due = todos().first { $0.text == "Buy milk" }?.dueDate
                let plain = run("fork", milk).stdout.trimmingCharacters(in: .newlines)
                let other = run("fork", milk, "--text", "Buy oat milk").stdout.trimmingCharacters(in: .newlines)
                for fork in [plain, other] {
                    expect(todos().first { $0.id.uuidString.lowercased().hasPrefix(fork) }?.dueDate) == due
                }
            }
            it("takes the date words people type, a negative offset as a value, and none when adding") {
                for typed in ["-1d", "yesterday", "eow", "next week", "+1m", "2026-12-01 09:30", "none"] {
                    let added = run("add", "On \(typed)", "--due", typed)
                    expect(added.status).to(equal(0), description: "\(typed): \(added.stderr)")
                }
                let due = Dictionary(uniqueKeysWithValues: todos().map { ($0.text, $0.dueDate) })
                expect(due.count) == 7
                expect(due["On none"] ?? Date()).to(beNil())
                expect(due["On -1d"] ?? nil) == due["On yesterday"] ?? Date()
                let exact = (due["On 2026-12-01 09:30"] ?? nil).map {
                    Calendar.current.dateComponents([.year, .month, .day, .hour, .minute], from: $0)
                }
                expect([exact?.year, exact?.month, exact?.day, exact?.hour, exact?.minute]) == [2026, 12, 1, 9, 30]
                expect((due["On +1m"] ?? nil) ?? .distantPast) > (due["On next week"] ?? nil) ?? .distantFuture
            }
            it("says a todo it cannot read is unreadable in status, not removed") {
                let milk = add("Buy milk")
                run("commit")
                let file = store.appendingPathComponent(
                    StoreLayout.todo(todos().first { $0.id.uuidString.lowercased().hasPrefix(milk) }!.id))
                try Data("{ not json".utf8).write(to: file)
                let status = run("status").stdout
                expect(status).to(contain("cannot be read"))
                expect(status).toNot(contain("removed"))
            }
            it("takes over a lock file that holds no pid") {
                let lock = try Store.open(at: store).lockFile
                try Data("garbage\n".utf8).write(to: URL(fileURLWithPath: lock))
                let added = run("add", "x", environment: ["DOCKET_LOCK_TIMEOUT": "0.5"])
                expect(added.status) == 0
                expect(added.stderr).toNot(contain("pid 0"))
            }
        }

        describe("edit with no text") {
            func editor(_ script: String) -> [String: String] {
                let file = home.appendingPathComponent("editor-\(UUID().uuidString).sh")
                try! Data("#!/bin/sh\n\(script)\n".utf8).write(to: file)
                chmod(file.path, 0o755)
                return ["EDITOR": file.path, "VISUAL": ""]
            }
            it("opens $EDITOR on the text and due date and applies what changed") {
                let milk = add("Buy milk")
                let edited = run(
                    "edit", milk,
                    environment: editor(
                        #"sed -i -e 's/^text: .*/text: Buy oat milk/' -e 's/^due: .*/due: 2030-01-02/' "$1""#))
                expect(edited.status) == 0
                expect(edited.stdout).to(contain("Edited: Buy oat milk"))
                expect(todos().first?.text) == "Buy oat milk"
                expect(todos().first?.dueDate.map { DateFormatterSpecs.day($0) }) == "2030-01-02"
                let unchanged = run("edit", milk, environment: editor("true"))
                expect(unchanged.stdout) == "Nothing changed: Buy oat milk\n"
            }
            it("changes nothing when the editor fails or the form does not read, and the next edit goes on from it") {
                let milk = add("Buy milk")
                let failed = run(
                    "edit", milk, environment: editor(#"sed -i 's/^text: .*/text: Buy soy milk/' "$1"; exit 3"#))
                expect(failed.status) == 1
                expect(failed.stderr).to(
                    contain("exited with status 3; nothing was changed; 'docket edit \(milk)' goes on from your edit"))
                expect(todos().first?.text) == "Buy milk"
                let bad = run("edit", milk, environment: editor(#"sed -i 's/^due: .*/due: someday/' "$1""#))
                expect(bad.stderr).to(contain("'someday' is not a date"))
                expect(todos().first?.text) == "Buy milk"
                let fixed = run("edit", milk, environment: editor(#"sed -i 's/^due: .*/due: none/' "$1""#))
                expect(fixed.stderr).to(contain("Going on from your last edit"))
                expect(todos().first?.text) == "Buy soy milk"
            }
            it("takes up a kept form with only the lines changed in it, not undoing a change made since") {
                let report = add("Write report", "--priority", "medium")
                let bad = run("edit", report, environment: editor(#"sed -i 's/^due: .*/due: someday soon/' "$1""#))
                expect(bad.status) == 1
                // Meanwhile, a command changes the priority the kept form still shows as medium.
                expect(run("priority", report, "low").status) == 0
                let fixed = run("edit", report, environment: editor(#"sed -i 's/^due: .*/due: 2030-01-02/' "$1""#))
                expect(fixed.status) == 0
                expect(fixed.stderr).to(contain("It has changed since; only the lines you change are applied."))
                expect(todos().first?.priority) == .low
                expect(todos().first?.dueDate.map { DateFormatterSpecs.day($0) }) == "2030-01-02"
            }
            it("holds every field a command sets, and applies each line changed, leaving the others as they were") {
                let paint = add("Buy paint")
                let fence = add(
                    "Paint fence", "+garden", "--due", "2030-01-10", "--wait", "2030-01-05", "--scheduled",
                    "2030-01-04 09:30", "--priority", "low", "--every", "month", "--depends", paint)
                run("note", fence, "two coats")
                run("note", fence, "ask Ben")
                let form = home.appendingPathComponent("form.txt")
                run("edit", fence, environment: editor("cp \"$1\" \(form.path)"))
                let shown = try! String(contentsOf: form, encoding: .utf8)
                for line in [
                    "text: Paint fence", "due: 2030-01-10", "wait: 2030-01-05",
                    "scheduled: 2030-01-04 09:30",
                    "tags: +garden", "priority: low", "repeat: month from due", "depends: \(paint)",
                    "notes:\n- two coats\n- ask Ben\n",
                ] {
                    expect(shown).to(contain(line))
                }
                let edited = run(
                    "edit", fence,
                    environment: editor(
                        #"sed -i -e 's/^wait: .*/wait: none/' -e 's/^tags: .*/tags: +home shed/' "#
                            + #"-e 's/^priority: .*/priority: high/' -e 's/^repeat: .*/repeat: 2 weeks from completion/' "#
                            + #"-e 's/^depends: .*/depends:/' -e 's/^- two coats$/- three coats\n  thin ones/' "#
                            + #"-e '/^- ask Ben$/d' -e '$a - sand first' "$1""#))
                expect(edited.status) == 0
                let todo = todos().first { $0.text == "Paint fence" }!
                expect(todo.waitDate) == .unknown
                expect(todo.scheduledDate.day(in: DocketClock.timeZone)) == CalendarDay(year: 2030, month: 1, day: 4)
                expect(todo.scheduledDate.hasTime) == true
                expect(todo.due) == .day(CalendarDay(year: 2030, month: 1, day: 10)!)
                expect(todo.tags) == ["home", "shed"]
                expect(todo.priority) == .high
                expect(todo.recurrence?.every) == Recurrence.Interval(.week, count: 2)
                expect(todo.recurrence?.from) == .completion
                expect(todo.dependencies) == []
                expect(todo.notes.map(\.text)) == ["three coats\nthin ones", "sand first"]
                expect(run("edit", fence, environment: editor("true")).stdout) == "Nothing changed: Paint fence\n"
            }
            it("changes nothing when any line does not read, says which, and goes on from the form") {
                let paint = add("Buy paint")
                for (script, message) in [
                    (#"sed -i 's/^depends:.*/depends: \#(paint)/' "$1""#, "\(paint) cannot depend on itself"),
                    (#"sed -i 's/^tags:.*/tags: +a -b/' "$1""#, "tags: '-b' is not a tag"),
                    (#"sed -i 's/^priority:.*/priority: urgent/' "$1""#, "'urgent' is not a priority"),
                    (#"sed -i 's/^wait:.*/wait: someday/' "$1""#, "'someday' is not a date"),
                    (#"sed -i 's/^repeat:.*/repeat: fortnightly/' "$1""#, "'fortnightly' is not an interval"),
                ] {
                    let bad = run("edit", paint, environment: editor(script))
                    expect(bad.status) == 1
                    expect(bad.stderr).to(contain(message))
                    expect(bad.stderr).to(contain("nothing was changed; 'docket edit \(paint)' goes on from your edit"))
                    expect(todos().first?.tags) == []
                    // The next edit starts from the kept form: put the line back.
                    let line = script.split(separator: "/")[1].replacingOccurrences(of: "^", with: "")
                    let fix = run(
                        "edit", paint,
                        environment: editor(#"sed -i '/^"# + line.prefix { $0 != ":" } + #":/d' "$1""#))
                    expect(fix.status) == 0
                }
                expect(todos().first?.text) == "Buy paint"
            }
            it("applies a form an older docket kept, with text and due lines only") {
                let milk = add("Buy milk", "+errand")
                let kept = try! Store.open(at: store).localFile("edit-\(milk).txt")
                try! "text: Buy oat milk\ndue: none\n".write(to: kept, atomically: true, encoding: .utf8)
                let edited = run("edit", milk, environment: editor("true"))
                expect(edited.status) == 0
                expect(todos().first?.text) == "Buy oat milk"
                expect(todos().first?.tags) == ["errand"]
            }
            it("keeps the edit when docket is killed as it writes the change, and the next edit applies it") {
                let milk = add("Buy milk")
                run("edit", milk, environment: editor(#"sed -i 's/^text: .*/text: Buy soy milk/' "$1"; exit 3"#))
                var killed = editor("true")
                killed["DOCKET_FAULT"] = "before-rename"
                expect(run("edit", milk, environment: killed).status) == 9 + 128
                expect(todos().first?.text) == "Buy milk"
                let again = run("edit", milk, environment: editor("true"))
                expect(again.stderr).to(contain("Going on from your last edit"))
                expect(todos().first?.text) == "Buy soy milk"
            }
        }

        describe("the day's view") {
            it("shows overdue, today, soon, running, then the open todos, with project tasks that have due dates") {
                add("Pay rent", "--due", "-2d")
                add("Buy milk", "--due", "today")
                add("Book flights", "--due", "+3d")
                add("Learn Swift")
                add("Someday", "--due", "+60d")
                let project = run("project", "add", "Party").stdout.trimmingCharacters(in: .newlines)
                let beer = run("task", "add", project, "Buy Beer", "--due", "tomorrow").stdout.trimmingCharacters(
                    in: .newlines)
                run("task", "start", beer)
                let view = run().stdout
                let order = [
                    "Overdue", "Pay rent", "Today", "Buy milk", "Next 7 days", "Buy Beer", "Book flights", "Running",
                    "Buy Beer", "Open", "Someday", "Learn Swift",
                ]
                var rest = Substring(view)
                for part in order {
                    guard let found = rest.range(of: part) else {
                        fail("'\(part)' is missing or out of order in:\n\(view)")
                        break
                    }
                    rest = rest[found.upperBound...]
                }
                expect(view).to(contain("Buy Beer  · Party  due tomorrow"))
                let json = try JSONSerialization.jsonObject(with: Data(run("--json").stdout.utf8)) as? [String: Any]
                expect((json?["overdue"] as? [[String: Any]])?.first?["text"] as? String) == "Pay rent"
                expect(((json?["running"] as? [[String: Any]])?.first?["task"] as? [String: Any])?["kind"] as? String)
                    == "task"
            }
            it("says there is nothing to do, and how to add something") {
                expect(run().stdout) == "Nothing to do. Add a todo with 'docket add <text>'.\n"
            }
        }

        describe("list filters") {
            beforeEach {
                add("Pay rent", "--due", "-2d")
                add("Buy milk", "--due", "today")
                add("Buy bread", "--due", "+3d")
                add("Call Anna")
                let done = add("Buy stamps", "--due", "-1d")
                run("done", done)
            }
            func texts(_ arguments: String...) -> [String] {
                let data = Data(docket(arguments + ["--json"], store: store).stdout.utf8)
                return ((try? JSONSerialization.jsonObject(with: data)) as? [[String: Any]] ?? []).compactMap {
                    ($0["text"] ?? $0["title"]) as? String
                }
            }
            it("sorts overdue first, then by due date, undated last") {
                expect(texts("list")) == ["Pay rent", "Buy milk", "Buy bread", "Call Anna"]
            }
            it("filters by due, text, done since and count, combined, with and without --json") {
                expect(texts("list", "--overdue")) == ["Pay rent"]
                expect(texts("list", "--overdue", "--today")) == ["Pay rent", "Buy milk"]
                expect(texts("list", "--before", "+5d")) == ["Pay rent", "Buy milk", "Buy bread"]
                expect(texts("list", "buy")) == ["Buy milk", "Buy bread"]
                expect(texts("list", "buy", "--all")) == ["Buy stamps", "Buy milk", "Buy bread"]
                expect(texts("list", "buy", "--before", "+5d", "-n", "1")) == ["Buy milk"]
                expect(texts("list", "--done-since", "today")) == ["Buy stamps"]
                expect(texts("list", "--done-since", "+1d")) == []
                expect(run("list", "--overdue").stdout).to(contain("Pay rent  overdue 2 days"))
                expect(run("list", "nothing-like-this").stdout) == "No todos match.\n"
            }
            it("lists a project's tasks with --project, filtered the same way") {
                let project = run("project", "add", "Party").stdout.trimmingCharacters(in: .newlines)
                run("task", "add", project, "Buy Beer", "--due", "tomorrow")
                run("task", "add", project, "Send invitations")
                expect(texts("list", "--project", project)) == ["Buy Beer", "Send invitations"]
                expect(run("list", "--project", project, "beer").stdout).to(contain("[ ]  Buy Beer  due tomorrow"))
            }
        }

        describe("JSON from every listing command") {
            it("prints status, log and remote list as JSON") {
                add("Buy milk")
                let status =
                    try JSONSerialization.jsonObject(with: Data(run("status", "--json").stdout.utf8)) as? [String: Any]
                expect((status?["changes"] as? [[String: Any]])?.first?["change"] as? String) == "added"
                run("commit")
                let log =
                    try JSONSerialization.jsonObject(with: Data(run("log", "--json").stdout.utf8)) as? [[String: Any]]
                expect(log?.first?["message"] as? String) == "Add 1 todo\n"
                expect((log?.first?["date"] as? String)?.hasSuffix("Z")) == true
                run("remote", "add", "origin", "/srv/lists.git")
                let remotes =
                    try JSONSerialization.jsonObject(with: Data(run("remote", "list", "--json").stdout.utf8))
                    as? [[String: Any]]
                expect(remotes?.first?["name"] as? String) == "origin"
            }
            it("prints every key status --json documents, null where there is no value") {
                add("Buy milk")
                let broken = UUID()
                let path = store.appendingPathComponent(StoreLayout.todo(broken))
                try! FileManager.default.createDirectory(
                    at: path.deletingLastPathComponent(), withIntermediateDirectories: true)
                try! Data("not json".utf8).write(to: path)
                func status() -> [String: Any] {
                    (try? JSONSerialization.jsonObject(with: Data(run("status", "--json").stdout.utf8)))
                        as? [String: Any]
                        ?? [:]
                }
                let shown = status()
                expect(Set(shown.keys)) == ["unfinishedGitOperation", "changes"]
                expect(shown["unfinishedGitOperation"] is NSNull) == true
                let changes = shown["changes"] as? [[String: Any]] ?? []
                expect(changes.count) == 2
                for change in changes { expect(Set(change.keys)) == ["path", "change", "item", "description"] }
                let unreadable = changes.first { $0["change"] as? String == "unreadable" }
                expect(unreadable?["path"] as? String) == StoreLayout.todo(broken)
                expect(unreadable?["item"] is NSNull) == true
                expect(changes.first { $0["change"] as? String == "added" }?["item"] as? String) == "todo"

                // git's own merge, stopped: named as the documented word.
                try! FileManager.default.removeItem(at: path)
                run("commit")
                try! Data(runCommand("git", ["rev-parse", "HEAD"], in: store).stdout.utf8).write(
                    to: store.appendingPathComponent(".git/MERGE_HEAD"))
                expect(status()["unfinishedGitOperation"] as? String) == "merge"
            }
        }

        describe("colour") {
            it("is on at a terminal unless NO_COLOR holds a value (an empty one does not count)") {
                add("Buy milk", "--due", "today")
                func atTerminal(_ noColor: String?) -> String {
                    var environment = ["DOCKET_DIR": store.path, "TERM": "xterm"]
                    if let noColor { environment["NO_COLOR"] = noColor }
                    return runCommand(
                        "script", ["-qec", "\(docketBinary) list", "/dev/null"], environment: environment,
                        unsetting: noColor == nil ? ["NO_COLOR"] : []
                    ).stdout
                }
                expect(atTerminal(nil)).to(contain("\u{1B}["))
                expect(atTerminal("")).to(contain("\u{1B}["))
                expect(atTerminal("1")).toNot(contain("\u{1B}["))
            }
        }

        describe("sync") {
            it("says it committed when the pull then fails") {
                run("remote", "add", "origin", home.appendingPathComponent("missing.git").path)
                add("Buy milk")
                let result = run("sync")
                expect(result.status) == 1
                expect(result.stdout).to(contain("Committed"))
                expect(result.stderr).to(contain("there is no git repository at"))
                expect(run("status").stdout).to(contain("Nothing to commit"))
            }
        }

        describe("clone") {
            it("refuses a repository that is not a Docket store, leaving nothing, and its advice makes one") {
                let notes = home.appendingPathComponent("notes")
                gitCLI(["init", "-q", "-b", "main", notes.path], in: home)
                try Data("notes\n".utf8).write(to: notes.appendingPathComponent("README"))
                gitCLI(["add", "README"], in: notes)
                gitCLI(["commit", "-qm", "Notes"], in: notes)
                let plain = home.appendingPathComponent("plain.git")
                gitCLI(["clone", "-q", "--bare", notes.path, plain.path], in: home)
                let target = home.appendingPathComponent("copy")
                let refused = user("clone", plain.path, target.path)
                expect(refused.status) == 1
                expect(refused.stderr).to(
                    contain(
                        "is a git repository but not a Docket store (its branch main has no .docket/format.json); nothing was cloned"
                    ))
                expect(FileManager.default.fileExists(atPath: target.path)) == false
                expect(gitCLI(["log", "--oneline"], in: plain).stdout.split(separator: "\n").count) == 1
                // The advice: git clone, docket init, docket push.
                gitCLI(["clone", "-q", plain.path, target.path], in: home)
                expect(user("init", target.path).status) == 0
                expect(user("-C", target.path, "push").status) == 0
                expect(user("clone", plain.path, home.appendingPathComponent("again").path).status) == 0
            }
        }

        describe("progress on a terminal") {
            it("is redrawn at most ten times a second, and the result starts on a clean line") {
                let source = try Store.open(at: store)
                let many = AppState(
                    todos: (0..<3000).map {
                        TodoItem(
                            id: UUID(), text: "Todo \($0)", creationDate: Date(), completed: false, dueDate: nil,
                            alterDate: nil)
                    },
                    projects: [], removed: [])
                try source.withLock { try source.write(from: AppState(), to: many) }
                run("commit")
                let remote = home.appendingPathComponent("remote.git")
                gitCLI(["clone", "-q", "--bare", store.path, remote.path], in: home)
                let target = home.appendingPathComponent("copy")
                let started = Date()
                // Progress from the start (git's GIT_PROGRESS_DELAY=0), so a clone of 3,000 shows it throughout.
                let shown = runCommand(
                    "script", ["-qec", "\(docketBinary) clone file://\(remote.path) \(target.path)", "/dev/null"],
                    environment: ["HOME": home.path, "DOCKET_PROGRESS_DELAY": "0"]
                ).stdout
                let seconds = Date().timeIntervalSince(started)
                let redraws = shown.components(separatedBy: "\r\u{1B}[K").count - 1
                expect(Double(redraws)) <= 10 * seconds + 8
                expect(redraws) > 0
                expect(shown).to(contain("\r\u{1B}[KCloned file://"))
            }
        }
    }
}

/// Days as people read them, for comparing due dates.
enum DateFormatterSpecs {
    static func day(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: date)
    }
}
