import DocketModel
import DocketSpecSupport
import Foundation
import Nimble
import Quick

@testable import Docket

/// The no-loss law across every door: two machines sharing a bare remote edit
/// their stores at random through the CLI, the library, hand edits, plain git
/// (commit, pull with the merge driver, push), a calendar (Docket's folder of
/// `.ics` files ↔ a server ↔ a phone's folder, edited as todoman edits: a new
/// summary or due date, done, cancelled, deleted, a new todo, now and then an
/// all-day series with an RRULE a phone writes, BYDAY=TU,TH among them, and
/// an instance done as todoman does it: a copy with a new UID due next, at
/// midnight), Taskwarrior
/// (export → `task import` → `task` edits, `start`, a new daily series now and then,
/// some ending at an `until` → `task export` → import) and todo.txt (export →
/// `todo.sh` do, append or del → import); the CLI adds a daily or weekly series now and then (a few with no
/// due date), so
/// instances are completed and deleted early through every door. Each edit is recorded with when and
/// through which door it was made. At the end every machine, the calendar and
/// the phone sync until they are still, and the law is checked:
///
/// 1. every machine holds the same committed store files; no series holds two
///    instances of one number, or one due after its end (unless an edit moved it there), in the store or in
///    Taskwarrior after it takes the store's last export;
/// 2. the calendar server and the phone hold a file for each todo, saying its text (a copy todoman made stands for
///    the series' next instance); a todo the phone began with an RRULE Docket does not keep is set aside with a
///    record, not taken in; the next instance of an all-day series completed on the phone is all day;
/// 3. for each todo and each of its fields (text, due date, done, wait and
///    scheduled dates), the last edit made through any door is the value it
///    ends with (a due date a day without a time, or a day and a time, as it
///    was set), or `docket merges` lists that value as one a merge
///    discarded; each id a door added to a todo's dependencies is there, and
///    each one a door removed is not, unless a later edit did otherwise (a
///    set merges element by element, losing nothing); a todo that is gone
///    was last removed (rm, cancelled, deleted, Taskwarrior's delete), or a
///    merge lists the removal winning; a todo removed last but still there is
///    listed as an edit that won over the removal, and comes back as the
///    editing side had it (an edit made before the removal went with it);
///    a todo deleted on the phone while Docket changed it comes back, as
///    vdirsyncer keeps a change over a deletion.
///
/// The calendar server is simulated (vdirsyncer's algorithm with "b wins",
/// between folders) unless DOCKET_DOORS_REAL=1: then it is Radicale on
/// 127.0.0.1 with vdirsyncer for real, as `scripts/doors-law` runs it.
/// DOCKET_DOORS_SEEDS and DOCKET_DOORS_ROUNDS size the run (2 × 25 here);
/// DOCKET_SEED=N replays one seed; DOCKET_DOORS_KEEP_FOLDERS=1 keeps the folders;
/// DOCKET_DOORS_TRACE=1 prints each step (and each simulated vdirsyncer run) as it goes.
final class DoorsLawSpec: QuickSpec {
    override class func spec() {
        let environment = ProcessInfo.processInfo.environment
        let seeds = environment["DOCKET_DOORS_SEEDS"].flatMap(Int.init) ?? 2
        let rounds = environment["DOCKET_DOORS_ROUNDS"].flatMap(Int.init) ?? 25
        let real = environment["DOCKET_DOORS_REAL"] == "1"

        it("loses no edit made through any door: CLI, library, hand, git, calendar, Taskwarrior, todo.txt") {
            var figures = DoorsLaw.Figures()
            let started = Date()
            defer {
                let byDoor = figures.byDoor.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(
                    separator: ", ")
                print(
                    "doors law: \(figures.seeds) seeds, \(figures.rounds) rounds, \(figures.edits) edits, \(figures.failures) failures, "
                        + "\(figures.recorded) accounted by a merge record, calendar \(real ? "Radicale and vdirsyncer" : "simulated"), "
                        + String(format: "%.0f s", Date().timeIntervalSince(started)) + "; steps by door: \(byDoor)")
            }
            forAll(seeds, continuing: environment["DOCKET_DOORS_KEEP_GOING"] != nil) { random in
                figures.seeds += 1
                let problem = DoorsLaw(real: real).run(rounds: rounds, random: &random, figures: &figures)
                if problem != nil { figures.failures += 1 }
                return problem
            }
        }
    }
}

/// One run of the law over one seed.
struct DoorsLaw {
    let real: Bool

    struct Figures {
        var seeds = 0, rounds = 0, edits = 0, failures = 0, recorded = 0
        var byDoor: [String: Int] = [:]
    }

    /// An edit of one field of a todo (or its adding or removal), as made.
    struct Event {
        let date: Date
        let field: String
        let value: String
        let door: String
    }

    static let doors: [(String, Int)] = [
        ("add", 6), ("edit", 8), ("due", 5), ("done", 3), ("rm", 2), ("library", 5), ("hand", 4), ("git", 4),
        ("sync", 10), ("vdirsyncer", 6), ("ical", 6), ("phone", 10), ("taskwarrior", 4), ("todotxt", 4),
        ("wait", 3), ("schedule", 3), ("depend", 4),
    ]

    func run(rounds: Int, random: inout SeededGenerator, figures: inout Figures) -> String? {
        let root = temporaryFolder("docket-doors")
        let keep = ProcessInfo.processInfo.environment["DOCKET_DOORS_KEEP_FOLDERS"] != nil
        defer {
            if keep { print("doors law: kept \(root.path)") } else { try? FileManager.default.removeItem(at: root) }
        }
        let remote = root.appendingPathComponent("remote.git")
        gitCLI(["init", "-q", "--bare", "-b", "main", remote.path], in: root)
        let laptop = Machine(folder: root.appendingPathComponent("laptop"))
        let desk = Machine(folder: root.appendingPathComponent("desk"))
        guard runCommand(docketBinary, ["clone", remote.path, laptop.folder.path]).status == 0 else {
            return "setup: the first clone failed"
        }
        laptop.run("add", "Item 0")
        guard laptop.run("sync").status == 0 else { return "setup: the first sync failed" }
        guard runCommand(docketBinary, ["clone", remote.path, desk.folder.path]).status == 0 else {
            return "setup: the second clone failed"
        }
        let machines = [("laptop", laptop), ("desk", desk)]
        let calendar = CalendarSide(root: root, docketFolder: root.appendingPathComponent("calendar"), real: real)
        defer { calendar.stop() }
        if let problem = calendar.problem { return "setup: \(problem)" }
        let taskwarrior = TaskwarriorSide(root: root)
        let todoTxt = TodoTxtSide(root: root)

        var events: [UUID: [Event]] = [:]
        // The phone's edits, by UID.
        var phoneEvents: [(uid: String, event: Event)] = []
        // The summaries of the todos the phone began with a rule Docket sets aside.
        var setAside: [String] = []
        // NB: a UID stands for the todo Docket's calendar sync says (a todoman copy is a series' next instance).
        calendar.id = { uid in
            let folder = laptop.folder.appendingPathComponent(".git/docket")
            for name in ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
            where name.hasPrefix("ical-") && name.hasSuffix(".json") {
                guard let data = try? Data(contentsOf: folder.appendingPathComponent(name)),
                    let state = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
                    let id = (state["uids"] as? [String: String])?[uid].flatMap(UUID.init(uuidString:))
                else { continue }
                return id
            }
            return VTodo.id(uid: uid)
        }
        var log: [String] = []
        var counter = 0
        // NB: setting a date a todo already has (`docket wait <id> none` on one not waiting, which says "Not
        // waiting") changes nothing, so it is no edit: a merge cannot weigh it against another machine's.
        func record(_ id: UUID, _ field: String, _ value: String, _ door: String, was: TodoItem? = nil) {
            if let was, Self.value(of: was, field) == value { return }
            events[id, default: []].append(Event(date: Date(), field: field, value: value, door: door))
            figures.edits += 1
        }
        let total = Self.doors.reduce(0) { $0 + $1.1 }
        // DOCKET_DOORS_TRACE=1 prints each step as it is taken.
        let tracing = ProcessInfo.processInfo.environment["DOCKET_DOORS_TRACE"] != nil
        func trace() { if tracing, let step = log.last { print("doors step " + step) } }
        if let first = laptop.state.todos.first {
            record(first.id, "added", first.text, "add")
            record(first.id, "text", first.text, "add")
        }

        for round in 1...rounds {
            figures.rounds += 1
            var roll = Int.random(in: 0..<total, using: &random)
            let door = Self.doors.first {
                roll -= $0.1
                return roll < 0
            }!.0
            let (name, machine) = machines[Int.random(in: 0..<2, using: &random)]
            figures.byDoor[door, default: 0] += 1
            var said = ""
            // NB: in Taskwarrior's time zone, so a day is the same day through every door.
            func cli(_ arguments: String...) -> CommandResult {
                let result = docket(arguments, store: machine.folder, environment: ["TZ": "UTC"])
                if result.status != 0 {
                    said += " [docket \(arguments.first!) \(result.status): \(result.stderr.prefix(200))]"
                }
                return result
            }
            // NB: in the order they were made, not by id (docket add makes random ids): a seed picks the same todos
            // each run.
            let todos = machine.state.todos.sorted { ($0.creationDate, $0.text) < ($1.creationDate, $1.text) }
            let todo = todos.randomElement(using: &random)
            counter += 1
            let word = "v\(counter)"
            let day = String(format: "2027-01-%02d", Int.random(in: 1...28, using: &random))
            // A due date is a day, or now and then a day and a time (UTC): every door must keep which it is.
            let time =
                Int.random(in: 0..<3, using: &random) == 0
                ? String(
                    format: "%02d:%02d", Int.random(in: 7...20, using: &random),
                    [0, 15, 30, 45][Int.random(in: 0..<4, using: &random)]) : nil
            let due = time.map { "\(day) \($0)" } ?? day

            switch door {
            case "add":
                let text = "Item \(counter)"
                // Now and then a series, daily or weekly from a due date, or, more rarely, with none (Taskwarrior
                // cannot repeat it: it goes there as a key of Docket's).
                let every = ["day", "week"].randomElement(using: &random)!
                let added: CommandResult
                switch Int.random(in: 0..<8, using: &random) {
                case 0, 1: added = cli("add", text, "--every", every, "--due", day)
                case 2: added = cli("add", text, "--every", every)
                default: added = cli("add", text)
                }
                if added.status == 0, let id = machine.state.todos.first(where: { $0.text == text })?.id {
                    record(id, "added", text, door)
                    record(id, "text", text, door)
                }
                said = "add \(text)" + said
            case "edit":
                guard let todo else { continue }
                let text = "\(todo.text.split(separator: " ").prefix(2).joined(separator: " ")) \(word)"
                if cli("edit", short(todo.id), text).status == 0 { record(todo.id, "text", text, door) }
                said = "edit \(short(todo.id)) \(text)" + said
            case "due":
                guard let todo else { continue }
                let set = time.map { cli("due", short(todo.id), day, $0) } ?? cli("due", short(todo.id), day)
                if set.status == 0 { record(todo.id, "dueDate", due, door, was: todo) }
                said = "due \(short(todo.id)) \(due)" + said
            case "done":
                guard let todo, !todo.completed else { continue }
                if cli("done", short(todo.id)).status == 0 { record(todo.id, "completed", "true", door) }
                said = "done \(short(todo.id))" + said
            case "wait", "schedule":
                guard let todo else { continue }
                let value = Int.random(in: 0..<4, using: &random) == 0 ? "none" : day
                if cli(door, short(todo.id), value).status == 0 {
                    record(todo.id, door == "wait" ? "waitDate" : "scheduledDate", value, door, was: todo)
                }
                said = "\(door) \(short(todo.id)) \(value)" + said
            case "depend":
                guard let todo, let other = todos.randomElement(using: &random) else { continue }
                let (sign, id) =
                    todo.dependencies.isEmpty || Bool.random(using: &random)
                    ? ("+", other.id) : ("-", todo.dependencies.randomElement(using: &random)!)
                let result = cli("depend", short(todo.id), sign + short(id))
                if result.stdout.hasPrefix("Dependencies changed") {
                    record(todo.id, "depends" + sign, Self.full(id), door)
                }
                said = "depend \(short(todo.id)) \(sign)\(short(id))" + said
            case "rm":
                guard let todo else { continue }
                if cli("rm", short(todo.id)).status == 0 { record(todo.id, "removed", "", door) }
                said = "rm \(short(todo.id))" + said
            case "library":
                guard let todo else { continue }
                let text = "\(todo.text.split(separator: " ").prefix(2).joined(separator: " ")) \(word)"
                let waits = Bool.random(using: &random)
                let wait = DueDate.day(CalendarDay(day)!)
                do {
                    _ = try Store.open(at: machine.folder).updateTodo(todo.id) {
                        $0.alter(waits ? .wait(wait) : .text(text))
                    }
                    record(todo.id, waits ? "waitDate" : "text", waits ? day : text, door, was: todo)
                } catch { said += " [library: \(error)]" }
                said = "library \(waits ? "wait" : "edit") \(short(todo.id)) \(waits ? day : text)" + said
            case "hand", "git":
                guard let todo else { continue }
                let text = "\(todo.text.split(separator: " ").prefix(2).joined(separator: " ")) \(word)"
                if Int.random(in: 0..<3, using: &random) == 0 {
                    guard handSchedule(todo.id, day, in: machine) else { continue }
                    record(todo.id, "scheduledDate", day, door, was: todo)
                } else {
                    guard handEdit(todo.id, text, in: machine) else { continue }
                    record(todo.id, "text", text, door)
                }
                if door == "hand" {
                    // Committed by docket, which dates an edit made by hand (or, if it refuses, by a later commit).
                    _ = cli("commit")
                } else {
                    // Plain git: its commit does not date the edit, and its pull merges through the driver.
                    gitCLI(["commit", "-qam", "Edit by hand"], in: machine.folder)
                    let pulled = gitCLI(
                        ["pull", "-q", "--no-rebase", "--no-edit", "origin", "main"], in: machine.folder)
                    if pulled.status != 0 {
                        // git stops where its merge cannot go on (a file edited here and removed there); docket's
                        // advice is to sync.
                        said += " [git pull \(pulled.status): \(pulled.stderr.prefix(160))] then docket sync"
                        _ = cli("sync")
                    }
                    gitCLI(["push", "-q", "origin", "main"], in: machine.folder)
                }
                said = "\(door) edit \(short(todo.id)) \(text)" + said
            case "sync":
                _ = cli("sync")
                said = "sync" + said
            case "vdirsyncer", "ical":
                // The README's commands, on the laptop, each on its own: in any order with the phone's edits and the
                // rest.
                if door == "vdirsyncer" {
                    calendar.syncDocketSide()
                    said = "vdirsyncer sync docket"
                } else {
                    let synced = laptop.run("ical", "sync", calendar.docketFolder.path)
                    said =
                        "docket ical sync"
                        + (synced.status == 0 ? "" : " [\(synced.status): \(synced.stderr.prefix(200))]")
                }
                log.append("\(round) laptop: \(said)")
                trace()
                continue
            case "phone":
                guard let edit = calendar.phoneEdit(random: &random, word: word, due: due) else { continue }
                if edit.field == "aside" {
                    setAside.append(edit.value)
                    said = "phone: \(edit.what)"
                    log.append("\(round) phone: \(said)")
                    trace()
                    continue
                }
                // NB: vdirsyncer keeps a change made on the other side over a deletion (its rule); a deletion is the
                // weaker removal. Recorded by UID, for the todo it stands for at the end (a copy todoman made is the
                // next instance once Docket has read it).
                let made = Event(
                    date: Date(), field: edit.field, value: edit.value,
                    door: edit.what.hasPrefix("delete") ? "phone-delete" : door)
                phoneEvents.append((edit.uid, made))
                if edit.field == "text", edit.added {
                    phoneEvents.append(
                        (edit.uid, Event(date: made.date, field: "added", value: edit.value, door: door)))
                }
                figures.edits += 1
                said = "phone: \(edit.what)"
                log.append("\(round) phone: \(said)")
                trace()
                continue
            case "taskwarrior":
                // On the desk: what Docket has goes to Taskwarrior, one edit there, and back.
                let desk = machines[1].1
                guard desk.run("commit").status == 0 else { continue }
                let export = root.appendingPathComponent("docket-\(counter).json")
                try? desk.run("export", "taskwarrior", environment: ["TZ": "UTC"]).stdout.write(
                    to: export, atomically: true, encoding: .utf8)
                guard taskwarrior.task("import", export.path).status == 0 else {
                    said += " [task import failed]"
                    break
                }
                let pending = taskwarrior.pending()
                guard let picked = pending.randomElement(using: &random), let id = UUID(uuidString: picked.uuid) else {
                    continue
                }
                let before = desk.state.todos.first { $0.id == id }
                // Taskwarrior keeps seconds: its edit is later than the last one Docket made.
                Thread.sleep(forTimeInterval: 1.05)
                switch Int.random(in: 0..<9, using: &random) {
                case 8:
                    // Started: Docket keeps the start (a todo has no clock), and every other field as it was.
                    taskwarrior.task(picked.uuid, "start")
                    said = "task start \(picked.uuid.prefix(8))"
                case 7:
                    // A series begun in Taskwarrior, daily, sometimes ending a few days on.
                    let text = "Series \(counter)"
                    let end = String(format: "2027-01-%02d", (Int(day.suffix(2)) ?? 1) + 3)
                    let until = Int.random(in: 0..<2, using: &random) == 0 ? ["until:\(end)"] : []
                    guard taskwarrior.task(["add", text, "recur:daily", "due:\(day)"] + until).status == 0 else {
                        continue
                    }
                    for made in taskwarrior.pending() where made.description == text {
                        if let made = UUID(uuidString: made.uuid) { record(made, "added", text, door) }
                    }
                    said = "task add \(text) recur:daily due:\(day) \(until.joined())"
                case 0:
                    if taskwarrior.task(picked.uuid, "done").status == 0 { record(id, "completed", "true", door) }
                    said = "task done \(picked.uuid.prefix(8))"
                case 1:
                    if taskwarrior.task(picked.uuid, "delete").status == 0 { record(id, "removed", "", door) }
                    said = "task delete \(picked.uuid.prefix(8))"
                case 2:
                    let value = time.map { "\(day)T\($0)" } ?? day
                    if taskwarrior.task(picked.uuid, "modify", "due:\(value)").status == 0 {
                        record(id, "dueDate", due, door, was: before)
                    }
                    said = "task modify \(picked.uuid.prefix(8)) due:\(value)"
                case 3, 4:
                    let key = ["wait", "scheduled"].randomElement(using: &random)!
                    if taskwarrior.task(picked.uuid, "modify", "\(key):\(day)").status == 0 {
                        record(id, key == "wait" ? "waitDate" : "scheduledDate", day, door, was: before)
                    }
                    said = "task modify \(picked.uuid.prefix(8)) \(key):\(day)"
                case 5:
                    // Taskwarrior refuses a circle itself.
                    guard let other = pending.randomElement(using: &random), other.uuid != picked.uuid,
                        !taskwarrior.dependencies(of: picked.uuid).contains(other.uuid)
                    else { continue }
                    if taskwarrior.task(picked.uuid, "modify", "depends:\(other.uuid)").status == 0 {
                        record(id, "depends+", other.uuid.lowercased(), door)
                    }
                    said = "task modify \(picked.uuid.prefix(8)) depends:\(other.uuid.prefix(8))"
                default:
                    let text = "\(picked.description.split(separator: " ").prefix(2).joined(separator: " ")) \(word)"
                    if taskwarrior.task(picked.uuid, "modify", "description:\(text)").status == 0 {
                        record(id, "text", text, door)
                    }
                    said = "task modify \(picked.uuid.prefix(8)) \(text)"
                }
                let back = root.appendingPathComponent("task-\(counter).json")
                try? taskwarrior.task("export").stdout.write(to: back, atomically: true, encoding: .utf8)
                let imported = desk.run("import", "taskwarrior", back.path, environment: ["TZ": "UTC"])
                if imported.status != 0 { said += " [import \(imported.status): \(imported.stderr.prefix(200))]" }
                log.append("\(round) desk: \(said)")
                trace()
                continue
            case "todotxt":
                // On the laptop: todo.txt written, one todo.sh edit, read back.
                let laptop = machines[0].1
                guard laptop.run("commit").status == 0 else { continue }
                try? laptop.run("export", "todotxt").stdout.write(to: todoTxt.file, atomically: true, encoding: .utf8)
                let lines = ((try? String(contentsOf: todoTxt.file, encoding: .utf8)) ?? "").split(separator: "\n").map(
                    String.init)
                let open = lines.indices.filter { !lines[$0].hasPrefix("x ") }.sorted { lines[$0] < lines[$1] }
                guard let index = open.randomElement(using: &random) else { continue }
                let current = laptop.state.todos
                guard let id = lineID(lines[index], todos: current) else { continue }
                Thread.sleep(forTimeInterval: 1.05) // A line is dated by its file's time, to the second.
                let line = lines[index]
                let other = current.filter { $0.id != id && !line.contains("dep:" + Self.full($0.id)) }
                    .randomElement(using: &random)
                switch Int.random(in: 0..<5, using: &random) {
                case 0:
                    if todoTxt.todo("do", String(index + 1)).status == 0 { record(id, "completed", "true", door) }
                    said = "todo.sh do \(index + 1)"
                case 4:
                    // A line deleted: its todo goes, with a record.
                    if todoTxt.todo("del", String(index + 1)).status == 0 { record(id, "removed", "", door) }
                    said = "todo.sh del \(index + 1)"
                case 1:
                    // todo.txt's threshold: the todo waits until that day.
                    if todoTxt.todo("append", String(index + 1), "t:\(day)").status == 0 {
                        record(id, "waitDate", day, door, was: current.first { $0.id == id })
                    }
                    said = "todo.sh append \(index + 1) t:\(day)"
                case 2:
                    guard let other else { continue }
                    if todoTxt.todo("append", String(index + 1), "dep:\(Self.full(other.id))").status == 0 {
                        record(id, "depends+", Self.full(other.id), door)
                    }
                    said = "todo.sh append \(index + 1) dep:\(short(other.id))"
                default:
                    let text = current.first { $0.id == id }.map { "\($0.text) \(word)" } ?? ""
                    if todoTxt.todo("append", String(index + 1), word).status == 0 { record(id, "text", text, door) }
                    said = "todo.sh append \(index + 1) \(word)"
                }
                let imported = laptop.run("import", "todotxt", todoTxt.file.path)
                if imported.status != 0 { said += " [import \(imported.status): \(imported.stderr.prefix(200))]" }
                log.append("\(round) laptop: \(said)")
                trace()
                continue
            default:
                break
            }
            log.append("\(round) \(name): \(said)")
            trace()
        }

        // The end: everything committed and synced until still, the calendar both ways, twice over.
        let ending = { "\nsteps:\n  " + log.suffix(25).joined(separator: "\n  ") }
        for round in 1...3 {
            for (name, machine) in machines {
                let synced = machine.run("sync")
                if synced.status != 0 {
                    return "the last syncs, round \(round), the \(name): docket sync failed: \(synced.stderr)"
                        + ending()
                }
                log.append("end \(name): sync")
                if name == "laptop" {
                    calendar.syncDocketSide()
                    let ical = machine.run("ical", "sync", calendar.docketFolder.path)
                    if ical.status != 0 { return "the last syncs: docket ical sync failed: \(ical.stderr)" + ending() }
                    calendar.syncDocketSide()
                    calendar.syncPhoneSide()
                    log.append("end laptop: calendar round")
                }
            }
        }
        let trees = machines.map {
            gitCLI(["ls-tree", "-r", "HEAD", "--", "todos", "projects", ".docket"], in: $0.1.folder).stdout
        }
        if trees[0] != trees[1] {
            return "after the last syncs the desk holds other store files than the laptop" + ending()
        }
        for (name, machine) in machines {
            let dirty = gitCLI(
                ["status", "--porcelain=v1", "-uall", "--", "todos", "projects", ".docket"], in: machine.folder
            ).stdout
            if !dirty.isEmpty {
                return "after the last syncs the \(name)'s working tree differs from its commit: \(dirty)" + ending()
            }
        }
        let final = laptop.state
        let present = Dictionary(final.todos.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })

        for (uid, event) in phoneEvents {
            let value =
                event.value.hasPrefix("uid:") ? Self.full(calendar.id(String(event.value.dropFirst(4)))) : event.value
            events[calendar.id(uid), default: []].append(
                Event(date: event.date, field: event.field, value: value, door: event.door))
        }

        // 1b. A series has one instance of each number, none due after its end, here and in Taskwarrior, which takes
        // the store once more.
        var numbered: [String: TodoItem] = [:]
        for todo in final.todos {
            guard let recurrence = todo.recurrence else { continue }
            let key = "\(recurrence.series.uuidString) #\(recurrence.occurrence)"
            if let twin = numbered[key] {
                return "todos '\(twin.text)' (\(short(twin.id))) and '\(todo.text)' (\(short(todo.id))) are both "
                    + "instance \(recurrence.occurrence) of one series" + ending()
            }
            numbered[key] = todo
            // NB: an instance a door moved past the end is where that edit put it: the end bounds the instances the
            // series makes.
            let moved =
                events[todo.id]?.last { $0.field == "dueDate" }.map { $0.value == Self.shown(todo.due) } ?? false
            if let until = recurrence.until, let start = todo.due.start(in: TimeZone(identifier: "UTC")!),
                start > until, !moved
            {
                return "todo '\(todo.text)' (\(short(todo.id))) is due after its series' end" + ending()
            }
        }
        let lastExport = root.appendingPathComponent("docket-last.json")
        try? laptop.run("export", "taskwarrior", environment: ["TZ": "UTC"]).stdout.write(
            to: lastExport, atomically: true, encoding: .utf8)
        let lastImport = taskwarrior.task("import", lastExport.path)
        guard lastImport.status == 0 else {
            return "the last task import failed: \(lastImport.stdout.suffix(300)) \(lastImport.stderr.prefix(300))"
                + ending()
        }
        var instances: [String: String] = [:]
        let exported =
            (try? JSONSerialization.jsonObject(with: Data(taskwarrior.task("status:pending", "export").stdout.utf8)))
            as? [[String: Any]] ?? []
        for task in exported {
            guard let parent = task["parent"] as? String, let number = task["imask"] as? Int else { continue }
            let description = task["description"] as? String ?? ""
            if let twin = instances["\(parent) #\(number)"] {
                return "Taskwarrior holds '\(twin)' and '\(description)' as one series' instance \(number) after "
                    + "the last export" + ending()
            }
            instances["\(parent) #\(number)"] = description
        }

        // 2. The calendar and the phone agree with the store.
        for (side, files) in [("the calendar folder", calendar.docketFiles()), ("the phone", calendar.phoneFiles())] {
            let byID = Dictionary(
                files.filter { !calendar.aside.contains($0.uid) }.map { (calendar.id($0.uid), $0) },
                uniquingKeysWith: { a, _ in a })
            for todo in final.todos {
                guard let file = byID[todo.id] else {
                    return "\(side) has no file for todo '\(todo.text)' (\(short(todo.id)))" + ending()
                }
                if file.summary != todo.text {
                    return "\(side) says '\(file.summary)' for todo '\(todo.text)' (\(short(todo.id)))" + ending()
                }
            }
            for (id, file) in byID where present[id] == nil && file.status != "CANCELLED" {
                return "\(side) still has '\(file.summary)' (\(short(id))), which the store does not" + ending()
            }
        }

        // 2b. A todo the phone began with a rule Docket does not keep is set aside, with a record, while the rest syncs.
        let history = gitCLI(["log", "--format=%B"], in: laptop.folder).stdout
        for summary in setAside where !history.contains("todo '\(summary)': RRULE part BYDAY=TU,TH") {
            return "the phone's '\(summary)' (RRULE BYDAY=TU,TH) is set aside with no record of it" + ending()
        }
        // 2c. The next instance a phone made completing an all-day instance (todoman's copy) is all day.
        for uid in calendar.allDayCopies {
            let id = calendar.id(uid)
            guard let todo = present[id], case .date = todo.due,
                events[id]?.contains(where: { $0.field == "dueDate" }) != true
            else { continue }
            return "todo '\(todo.text)' (\(short(id))), the next instance of an all-day series completed on the phone, "
                + "is due at \(Self.shown(todo.due))" + ending()
        }

        // 3. Every last edit is there, or a merge lists it.
        let records = (try? Store.open(at: laptop.folder).merges(limit: 10_000)) ?? []
        let items = records.flatMap(\.report.items)
        func lost(_ id: UUID, _ field: String, _ value: String) -> Bool {
            items.contains { item in
                item.id == id
                    && item.fields.contains { decision in
                        decision.field == FieldPath(field)
                            && decision.lost.map { Self.shown($0, field: field) == value } == true
                    }
            }
        }
        for (id, list) in events.sorted(by: { $0.key.uuidString < $1.key.uuidString }) {
            let ordered = list.sorted { $0.date < $1.date }
            guard let latest = ordered.last else { continue }
            let label =
                "todo \(short(id)) (edits: "
                + ordered.map { "\($0.door) \($0.field)=\($0.value)" }.joined(separator: ", ") + ")"
            guard let todo = present[id] else {
                if latest.field == "removed"
                    || items.contains(where: { $0.id == id && $0.removal?.outcome == .removalWon })
                {
                    continue
                }
                return "\(label) is gone, though its last edit was not a removal and no merge lists a removal winning"
                    + ending()
            }
            if let removal = ordered.last(where: { $0.field == "removed" }), removal.date == latest.date,
                removal.door != "phone-delete",
                !items.contains(where: { $0.id == id && $0.removal?.outcome == .editWon })
            {
                return "\(label) is there, though it was removed last and no merge lists an edit winning" + ending()
            }
            // NB: an edit that won over a removal brings the item back as its side had it: an edit the removing
            // side made before it removed the item went with the removal (which `merges` lists losing).
            let lastRemoval = ordered.last { $0.field == "removed" }?.date ?? .distantPast
            let dependencies = Set(todo.dependencies.map(Self.full))
            for (dependency, edits) in Dictionary(
                grouping: ordered.filter { $0.field.hasPrefix("depends") && $0.date > lastRemoval }, by: \.value)
            {
                let last = edits.last!
                if (last.field == "depends+") != dependencies.contains(dependency) {
                    return
                        "\(label): its dependencies are \(dependencies.sorted()), though the last edit (\(last.door)) \(last.field == "depends+" ? "added" : "removed") \(dependency)"
                        + ending()
                }
            }
            for field in ["text", "dueDate", "completed", "waitDate", "scheduledDate"] {
                guard let last = ordered.last(where: { $0.field == field }), last.date > lastRemoval else { continue }
                let value: String
                switch field {
                case "text": value = todo.text
                case "dueDate": value = Self.shown(todo.due)
                case "waitDate": value = Self.shown(todo.waitDate)
                case "scheduledDate": value = Self.shown(todo.scheduledDate)
                default: value = String(todo.completed)
                }
                if value == last.value { continue }
                // Done is kept over a later edit of another field; an edit after done does not reopen.
                if field == "completed", last.value == "true", todo.completed { continue }
                if lost(id, field, last.value) {
                    figures.recorded += 1
                    continue
                }
                // What the history says of the todo, to look at a failure.
                let history = gitCLI(["log", "--format=%h %s", "--", StoreLayout.todo(id)], in: laptop.folder).stdout
                let decisions = records.flatMap { record in
                    record.report.items.filter { $0.id == id }.flatMap {
                        $0.lines.map { "\(record.commit.prefix(7)): \($0)" }
                    }
                }
                return
                    "\(label): its \(field) is \(value), not \(last.value) from the last edit (\(last.door)), and no merge lists that value"
                    + "\nits decisions:\n  " + decisions.joined(separator: "\n  ") + "\nits file's history:\n  "
                    + history.split(separator: "\n").prefix(30).joined(separator: "\n  ") + ending()
            }
        }
        return nil
    }

    // MARK: helpers

    func short(_ id: UUID) -> String { String(id.uuidString.prefix(8)).lowercased() }
    static func full(_ id: UUID) -> String { id.uuidString.lowercased() }

    /// A due, wait or scheduled date as the law records it: the day, with its time in UTC when it has one; none.
    static func shown(_ due: DueDate) -> String {
        switch due {
        case .unknown: return "none"
        case let .day(day): return day.description
        case let .date(date):
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")!
            formatter.dateFormat = "yyyy-MM-dd HH:mm"
            return formatter.string(from: date)
        }
    }

    /// The value a todo has of a date field, as the law records it; nil for other fields.
    static func value(of todo: TodoItem, _ field: String) -> String? {
        switch field {
        case "dueDate": shown(todo.due)
        case "waitDate": shown(todo.waitDate)
        case "scheduledDate": shown(todo.scheduledDate)
        default: nil
        }
    }

    /// A merge report's text of a value, as the law records it.
    static func shown(_ text: String, field: String) -> String {
        switch field {
        case "dueDate", "waitDate", "scheduledDate":
            (CalendarDay(text).map(DueDate.day) ?? ISODate.date(from: text).map(DueDate.date)).map(shown) ?? text
        default: text
        }
    }

    /// Changes the "text" line of a todo's file as a person would in an editor.
    func handEdit(_ id: UUID, _ text: String, in machine: Machine) -> Bool {
        let url = machine.folder.appendingPathComponent(StoreLayout.todo(id))
        guard let content = try? String(contentsOf: url, encoding: .utf8) else { return false }
        let lines = content.components(separatedBy: "\n").map { line -> String in
            guard line.hasPrefix("  \"text\" : ") else { return line }
            return "  \"text\" : \"\(text)\"" + (line.hasSuffix(",") ? "," : "")
        }
        return (try? lines.joined(separator: "\n").write(to: url, atomically: true, encoding: .utf8)) != nil
    }

    /// Sets the scheduled date in a todo's file as a person would in an editor: a line before the "text" line (the keys
    /// are sorted), or the one it has changed.
    func handSchedule(_ id: UUID, _ day: String, in machine: Machine) -> Bool {
        let url = machine.folder.appendingPathComponent(StoreLayout.todo(id))
        guard let content = try? String(contentsOf: url, encoding: .utf8) else { return false }
        let line = "  \"scheduledDate\" : \"\(day)\","
        var lines = content.components(separatedBy: "\n").filter { !$0.hasPrefix("  \"scheduledDate\" : ") }
        guard let text = lines.firstIndex(where: { $0.hasPrefix("  \"text\" : ") }) else { return false }
        lines.insert(line, at: text)
        return (try? lines.joined(separator: "\n").write(to: url, atomically: true, encoding: .utf8)) != nil
    }

    /// The todo a todo.txt line Docket exported stands for.
    func lineID(_ line: String, todos: [TodoItem]) -> UUID? {
        if let word = line.split(separator: " ").first(where: { $0.hasPrefix("id:") }) {
            return UUID(hex: String(word.dropFirst(3)))
        }
        let text = TodoTxt.export(todos).split(separator: "\n")
        guard let index = text.firstIndex(where: { String($0) == line }) else { return nil }
        let open = todos.filter { !$0.completed } + todos.filter(\.completed)
        return index < open.count ? open[index].id : nil
    }
}

/// A Taskwarrior of its own, with recurrence on.
struct TaskwarriorSide {
    let data: URL
    let rc: URL

    init(root: URL) {
        data = root.appendingPathComponent("taskwarrior")
        rc = root.appendingPathComponent("taskrc")
        try? FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        try? "data.location=\(data.path)\nconfirmation=off\nverbose=nothing\nrecurrence.confirmation=no\n".write(
            to: rc, atomically: true, encoding: .utf8)
    }

    @discardableResult
    func task(_ arguments: String...) -> CommandResult { task(arguments) }

    @discardableResult
    func task(_ arguments: [String]) -> CommandResult {
        runCommand("task", arguments, environment: ["TASKRC": rc.path, "TASKDATA": data.path, "TZ": "UTC"], input: "")
    }

    /// The uuids a task depends on, as Taskwarrior has them.
    func dependencies(of uuid: String) -> [String] {
        let list = (try? JSONSerialization.jsonObject(with: Data(task(uuid, "export").stdout.utf8))) as? [[String: Any]]
        return list?.first?["depends"] as? [String] ?? []
    }

    func pending() -> [(uuid: String, description: String)] {
        let list =
            (try? JSONSerialization.jsonObject(with: Data(task("status:pending", "export").stdout.utf8)))
            as? [[String: Any]] ?? []
        return list.compactMap { task in
            guard let uuid = task["uuid"] as? String, let description = task["description"] as? String else {
                return nil
            }
            return (uuid, description)
        }.sorted { ($0.description, $0.uuid) < ($1.description, $1.uuid) }
    }
}

/// todo.txt-cli working on one todo.txt, archiving nothing.
struct TodoTxtSide {
    let folder: URL
    let config: URL
    var file: URL { folder.appendingPathComponent("todo.txt") }

    init(root: URL) {
        folder = root.appendingPathComponent("todo")
        config = root.appendingPathComponent("todo.cfg")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try? """
        export TODO_DIR=\(folder.path)
        export TODO_FILE=$TODO_DIR/todo.txt
        export DONE_FILE=$TODO_DIR/done.txt
        export REPORT_FILE=$TODO_DIR/report.txt
        export TODOTXT_AUTO_ARCHIVE=0
        """.write(to: config, atomically: true, encoding: .utf8)
    }

    @discardableResult
    func todo(_ arguments: String...) -> CommandResult {
        runCommand("todo-txt", ["-d", config.path, "-p", "-f"] + arguments, input: "")
    }
}

/// One `.ics` file as the law reads it.
struct ICSFile {
    let name: String
    let uid: String
    let summary: String
    let status: String
    /// Whether it has an RRULE.
    let repeats: Bool
}

/// Docket's folder of `.ics` files, a calendar server, and a phone's folder:
/// folders kept in step by vdirsyncer's algorithm with "b wins" (simulated),
/// or, with `real`, Radicale on 127.0.0.1 and vdirsyncer itself.
final class CalendarSide {
    let docketFolder: URL
    let phoneFolder: URL
    let real: Bool
    private(set) var problem: String?
    private var docketPair: VdirPair?
    private var phonePair: VdirPair?
    private var server: CalendarServer?
    private var added = 0
    /// The UIDs of todos the phone began with an RRULE Docket does not keep (BYDAY=TU,TH): set aside, never taken in.
    private(set) var aside: Set<String> = []
    /// The UIDs of the copies the phone made, as todoman does, completing an instance of an all-day series.
    private(set) var allDayCopies: [String] = []
    /// Which todo a UID stands for, as Docket's calendar sync keeps it (a copy todoman made is the series' next
    /// instance), else the id Docket makes of a UID.
    var id: (String) -> UUID = { VTodo.id(uid: $0) }

    init(root: URL, docketFolder: URL, real: Bool) {
        self.docketFolder = docketFolder
        self.real = real
        phoneFolder = root.appendingPathComponent("phone")
        for folder in [docketFolder, phoneFolder] {
            try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        guard real else {
            let server = root.appendingPathComponent("server")
            try? FileManager.default.createDirectory(at: server, withIntermediateDirectories: true)
            docketPair = VdirPair(a: docketFolder, b: server)
            phonePair = VdirPair(a: phoneFolder, b: server)
            return
        }
        let server = CalendarServer(root: root, pairs: [("docket", docketFolder), ("phone", phoneFolder)])
        self.server = server
        guard server.isRunning else {
            problem = "Radicale did not start"
            return
        }
        if server.vdirsyncer(["discover"]).status != 0 { problem = "vdirsyncer discover failed" }
    }

    /// vdirsyncer between Docket's folder and the server.
    func syncDocketSide() { if let server { server.vdirsyncer(["sync", "docket"]) } else { docketPair?.sync() } }
    /// vdirsyncer between the phone's folder and the server.
    func syncPhoneSide() { if let server { server.vdirsyncer(["sync", "phone"]) } else { phonePair?.sync() } }

    func stop() { server?.stop() }

    func docketFiles() -> [ICSFile] { CalendarSide.files(in: docketFolder) }
    func phoneFiles() -> [ICSFile] { CalendarSide.files(in: phoneFolder) }

    static func files(in folder: URL) -> [ICSFile] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter {
            $0.hasSuffix(".ics")
        }.sorted()
        return names.compactMap { name in
            guard let text = try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8),
                let calendar = try? ICalComponent.parse(text), let (vtodo, uid) = try? VTodo.vtodo(in: calendar)
            else { return nil }
            return ICSFile(
                name: name, uid: uid, summary: vtodo.property("SUMMARY")?.text ?? "",
                status: (vtodo.property("STATUS")?.value ?? "NEEDS-ACTION").uppercased(),
                repeats: vtodo.property("RRULE") != nil)
        }
    }

    /// todoman's `done` of an instance of an endless series: the RRULE goes from the one it completes, and a copy with
    /// a new UID, the RRULE and the next DUE (at midnight UTC for an all-day series) is made. False, changing nothing,
    /// for a todo without such a rule.
    func todomanDone(_ file: ICSFile, stamp: String) -> Bool {
        let url = phoneFolder.appendingPathComponent(file.name)
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return false }
        let lines = text.split(whereSeparator: \.isNewline).map(String.init)
        guard let begin = lines.firstIndex(of: "BEGIN:VTODO"), let end = lines.firstIndex(of: "END:VTODO"),
            let rule = lines.first(where: { $0.hasPrefix("RRULE:") }), !rule.contains("UNTIL"),
            !rule.contains("COUNT"), !rule.contains("BYDAY"), let dueLine = lines.first(where: { $0.hasPrefix("DUE") })
        else { return false }
        let parts = Dictionary(
            rule.dropFirst(6).split(separator: ";").compactMap { part -> (String, String)? in
                let pair = part.split(separator: "=", maxSplits: 1)
                return pair.count == 2 ? (String(pair[0]), String(pair[1])) : nil
            }, uniquingKeysWith: { a, _ in a })
        let step =
            (parts["FREQ"] == "WEEKLY" ? 7 : parts["FREQ"] == "DAILY" ? 1 : 0) * (Int(parts["INTERVAL"] ?? "1") ?? 1)
        guard step > 0, let value = dueLine.split(separator: ":").last.map(String.init) else { return false }
        let allDay = dueLine.contains("VALUE=DATE") && !value.contains("T")
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")!
        formatter.dateFormat = allDay ? "yyyyMMdd" : "yyyyMMdd'T'HHmmss'Z'"
        guard let due = formatter.date(from: value) else { return false }
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let next = formatter.string(from: due.addingTimeInterval(TimeInterval(step * 86_400)))
        added += 1
        let uid = "phone-copy-\(added)@example.org"
        let kept = Array(lines[(begin + 1)..<end]).filter {
            !["UID", "DUE", "STATUS", "COMPLETED", "PERCENT-COMPLETE", "LAST-MODIFIED", "DTSTAMP"].contains(
                String($0.prefix { $0 != ":" && $0 != ";" }))
        }
        let copy =
            Array(lines[...begin]) + ["UID:\(uid)", "DUE:\(next)", "STATUS:NEEDS-ACTION"] + kept + [
                "LAST-MODIFIED:\(stamp)", "DTSTAMP:\(stamp)",
            ] + Array(lines[end...])
        let done =
            Array(lines[...begin])
            + kept.filter { !$0.hasPrefix("RRULE") } + [
                "UID:\(file.uid)", dueLine, "STATUS:COMPLETED", "COMPLETED:\(stamp)", "PERCENT-COMPLETE:100",
                "LAST-MODIFIED:\(stamp)", "DTSTAMP:\(stamp)",
            ] + Array(lines[end...])
        guard
            (try? (done.joined(separator: "\r\n") + "\r\n").write(to: url, atomically: true, encoding: .utf8)) != nil,
            (try? (copy.joined(separator: "\r\n") + "\r\n").write(
                to: phoneFolder.appendingPathComponent("\(uid).ics"), atomically: true, encoding: .utf8)) != nil
        else { return false }
        if allDay { allDayCopies.append(uid) }
        return true
    }

    /// One edit on the phone, as todoman makes it: its folder brought up to date from the server first, and sent after.
    func phoneEdit(random: inout SeededGenerator, word: String, due: String) -> (
        uid: String, field: String, value: String, added: Bool, what: String
    )? {
        syncPhoneSide()
        defer { syncPhoneSide() }
        let day = String(due.prefix(10))
        let files = phoneFiles().filter { $0.status != "CANCELLED" && !aside.contains($0.uid) }.sorted {
            ($0.summary, $0.uid) < ($1.summary, $1.uid)
        }
        let stamp = BasicDate.string(Date())
        func rewrite(_ file: ICSFile, _ change: ([String]) -> [String]) -> Bool {
            let url = phoneFolder.appendingPathComponent(file.name)
            guard let text = try? String(contentsOf: url, encoding: .utf8) else { return false }
            var lines = text.split(whereSeparator: \.isNewline).map(String.init)
            guard let end = lines.firstIndex(of: "END:VTODO") else { return false }
            var body = Array(lines[..<end]).filter { !$0.hasPrefix("LAST-MODIFIED") && !$0.hasPrefix("DTSTAMP") }
            body = change(body)
            let sequence = body.first { $0.hasPrefix("SEQUENCE:") }.flatMap { Int($0.dropFirst(9)) } ?? 0
            body =
                body.filter { !$0.hasPrefix("SEQUENCE:") } + [
                    "SEQUENCE:\(sequence + 1)", "LAST-MODIFIED:\(stamp)", "DTSTAMP:\(stamp)",
                ]
            lines = body + Array(lines[end...])
            return (try? (lines.joined(separator: "\r\n") + "\r\n").write(to: url, atomically: true, encoding: .utf8))
                != nil
        }
        let kind = files.isEmpty ? 5 : Int.random(in: 0..<8, using: &random)
        if kind == 5 {
            added += 1
            let uid = "phone-\(added)-\(word)@example.org"
            let summary = "Phone \(word)"
            // Now and then a series, all day, with a rule a phone commonly writes; BYDAY=TU,TH Docket sets aside.
            let rules = [
                "FREQ=DAILY", "FREQ=WEEKLY;INTERVAL=2", "FREQ=DAILY;COUNT=3",
                "FREQ=DAILY;UNTIL=\(day.replacingOccurrences(of: "-", with: ""))", "FREQ=WEEKLY;BYDAY=TU,TH",
            ]
            let rule = Int.random(in: 0..<3, using: &random) == 0 ? rules.randomElement(using: &random) : nil
            let series =
                rule.map { ["DUE;VALUE=DATE:\(day.replacingOccurrences(of: "-", with: ""))", "RRULE:\($0)"] } ?? []
            let text =
                [
                    "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//todoman//EN", "BEGIN:VTODO", "UID:\(uid)",
                    "SUMMARY:\(summary)",
                ] + series + [
                    "STATUS:NEEDS-ACTION", "CREATED:\(stamp)", "DTSTAMP:\(stamp)", "LAST-MODIFIED:\(stamp)",
                    "END:VTODO",
                    "END:VCALENDAR", "",
                ]
            try? text.joined(separator: "\r\n").write(
                to: phoneFolder.appendingPathComponent("\(uid).ics"), atomically: true, encoding: .utf8)
            if rule?.contains("BYDAY=TU,TH") == true {
                aside.insert(uid)
                return (uid, "aside", summary, false, "new '\(summary)' \(rule!) (set aside)")
            }
            return (
                uid, "text", summary, true,
                "new '\(summary)'" + (rule.map { " due \(day) \($0)" } ?? "")
            )
        }
        // NB: done goes to a series' instance now and then, so todoman's copy is made often enough to matter.
        let series = files.filter { $0.repeats && $0.status != "COMPLETED" }
        let file =
            kind == 2 && !series.isEmpty && Bool.random(using: &random)
            ? series.randomElement(using: &random)! : files.randomElement(using: &random)!
        let id = file.uid
        switch kind {
        case 0:
            let summary = "\(file.summary.split(separator: " ").prefix(2).joined(separator: " ")) \(word)"
            guard rewrite(file, { $0.filter { !$0.hasPrefix("SUMMARY") } + ["SUMMARY:\(summary)"] }) else { return nil }
            return (id, "text", summary, false, "summary of \(file.uid.prefix(8)) to '\(summary)'")
        case 1:
            // A day is a DATE; a day and a time (UTC) a DATE-TIME.
            let parts = due.split(separator: " ")
            let value =
                parts.count == 2
                ? "DUE:\(parts[0].replacingOccurrences(of: "-", with: ""))T\(parts[1].replacingOccurrences(of: ":", with: ""))00Z"
                : "DUE;VALUE=DATE:\(due.replacingOccurrences(of: "-", with: ""))"
            guard rewrite(file, { $0.filter { !$0.hasPrefix("DUE") } + [value] }) else { return nil }
            return (id, "dueDate", due, false, "due of \(file.uid.prefix(8)) to \(due)")
        case 2:
            guard file.status != "COMPLETED" else { return nil }
            if todomanDone(file, stamp: stamp) {
                return (id, "completed", "true", false, "done \(file.uid.prefix(8)) (todoman's copy made)")
            }
            guard
                rewrite(
                    file,
                    {
                        $0.filter { !$0.hasPrefix("STATUS") && !$0.hasPrefix("COMPLETED") && !$0.hasPrefix("PERCENT") }
                            + ["STATUS:COMPLETED", "COMPLETED:\(stamp)", "PERCENT-COMPLETE:100"]
                    })
            else { return nil }
            return (id, "completed", "true", false, "done \(file.uid.prefix(8))")
        case 3:
            guard rewrite(file, { $0.filter { !$0.hasPrefix("STATUS") } + ["STATUS:CANCELLED"] }) else { return nil }
            return (id, "removed", "", false, "cancel \(file.uid.prefix(8))")
        case 6:
            // A start date, as todoman's --start sets it: Docket's scheduled date.
            let value = day.replacingOccurrences(of: "-", with: "")
            guard rewrite(file, { $0.filter { !$0.hasPrefix("DTSTART") } + ["DTSTART;VALUE=DATE:\(value)"] }) else {
                return nil
            }
            return (id, "scheduledDate", day, false, "start of \(file.uid.prefix(8)) to \(day)")
        case 7:
            // A dependency on another todo of the calendar, by its UID (RFC 9253).
            let url = phoneFolder.appendingPathComponent(file.name)
            let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
            guard
                let other = files.filter({
                    $0.uid != file.uid && !text.contains("RELATED-TO;RELTYPE=DEPENDS-ON:\($0.uid)")
                }).randomElement(using: &random),
                rewrite(file, { $0 + ["RELATED-TO;RELTYPE=DEPENDS-ON:\(other.uid)"] })
            else { return nil }
            return (
                id, "depends+", "uid:" + other.uid, false,
                "depends \(file.uid.prefix(8)) on \(other.uid.prefix(8))"
            )
        default:
            guard (try? FileManager.default.removeItem(at: phoneFolder.appendingPathComponent(file.name))) != nil else {
                return nil
            }
            return (id, "removed", "", false, "delete \(file.uid.prefix(8))")
        }
    }
}

/// vdirsyncer's sync of two folders of items by UID, with "b wins": what
/// changed on one side since the last sync goes to the other; changed on
/// both, b's goes to a; deleted on one side and unchanged on the other, it
/// goes; deleted on one side and changed on the other, the change is kept.
final class VdirPair {
    let a: URL
    let b: URL
    private var status: [String: (a: String, b: String)] = [:]

    init(a: URL, b: URL) {
        self.a = a
        self.b = b
    }

    private func items(_ folder: URL) -> [String: (name: String, text: String)] {
        var items: [String: (name: String, text: String)] = [:]
        for name in ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter({
            $0.hasSuffix(".ics")
        }).sorted() {
            guard let text = try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8) else {
                continue
            }
            // NB: "\r\n" is one Character: lines split on any newline.
            let uid = text.split(whereSeparator: \.isNewline).first { $0.hasPrefix("UID:") }.map {
                String($0.dropFirst(4)).trimmingCharacters(in: .whitespaces)
            }
            if let uid, items[uid] == nil { items[uid] = (name, text) }
        }
        return items
    }

    func sync() {
        let left = items(a)
        let right = items(b)
        if ProcessInfo.processInfo.environment["DOCKET_DOORS_TRACE"] != nil {
            print(
                "vsync \(a.lastPathComponent)<->\(b.lastPathComponent): a=\(left.keys.sorted()) b=\(right.keys.sorted()) known=\(status.keys.sorted())"
            )
        }
        func put(_ text: String, _ uid: String, into folder: URL, named name: String?) {
            let file = name ?? uid.replacingOccurrences(of: "/", with: "_") + ".ics"
            try? text.write(to: folder.appendingPathComponent(file), atomically: true, encoding: .utf8)
        }
        for uid in Set(left.keys).union(right.keys).sorted() {
            let known = status[uid]
            switch (left[uid], right[uid]) {
            case let (x?, y?):
                let changedA = known.map { x.text != $0.a } ?? true
                let changedB = known.map { y.text != $0.b } ?? true
                if x.text == y.text {
                    status[uid] = (x.text, y.text)
                } else if changedB {
                    put(y.text, uid, into: a, named: x.name)
                    status[uid] = (y.text, y.text)
                } else if changedA {
                    put(x.text, uid, into: b, named: y.name)
                    status[uid] = (x.text, x.text)
                }
            case let (x?, nil):
                if let known, x.text == known.a {
                    try? FileManager.default.removeItem(at: a.appendingPathComponent(x.name))
                    status[uid] = nil
                } else {
                    put(x.text, uid, into: b, named: nil)
                    status[uid] = (x.text, x.text)
                }
            case let (nil, y?):
                if let known, y.text == known.b {
                    try? FileManager.default.removeItem(at: b.appendingPathComponent(y.name))
                    status[uid] = nil
                } else {
                    put(y.text, uid, into: a, named: nil)
                    status[uid] = (y.text, y.text)
                }
            case (nil, nil):
                status[uid] = nil
            }
        }
    }
}
