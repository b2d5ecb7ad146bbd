import Docket
import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// Importing from and exporting to the tools people come from, run for real:
/// Taskwarrior 2.6, todo.txt-cli and Timewarrior from Debian.
final class ExchangeSpec: QuickSpec {
    override class func spec() {
        var root: URL!
        var store: URL!
        beforeEach {
            root = temporaryFolder("docket-exchange")
            store = temporaryStore("docket-exchange-store")
        }
        afterEach {
            try? FileManager.default.removeItem(at: root)
            try? FileManager.default.removeItem(at: store)
        }
        /// Now, for a spec whose dates must lie ahead of it on any day (docket's and Taskwarrior's clocks); nil is the
        /// real clock.
        var fixedNow: String?
        beforeEach { fixedNow = nil }
        func run(_ arguments: String...) -> CommandResult {
            docket(
                arguments, store: store,
                environment: ["TZ": "UTC"].merging(fixedNow.map { ["DOCKET_NOW": $0] } ?? [:]) { $1 })
        }
        func json(_ text: String) -> [[String: Any]] {
            (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [[String: Any]] ?? []
        }
        func write(_ text: String, _ name: String) -> String {
            let file = root.appendingPathComponent(name)
            try! text.write(to: file, atomically: true, encoding: .utf8)
            return file.path
        }
        func head() -> String { gitCLI(["rev-parse", "HEAD"], in: store).stdout }

        describe("Taskwarrior") {
            /// A Taskwarrior of its own, in `name` under the spec's folder.
            func taskwarrior(_ name: String, repeating: Bool = false) -> (String...) -> CommandResult {
                let data = root.appendingPathComponent(name)
                try! FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
                let settings =
                    repeating
                    ? "recurrence.confirmation=no\nuda.estimate.type=numeric\nuda.estimate.label=Estimate\n"
                    : "recurrence=off\n"
                let rc = write(
                    "data.location=\(data.path)\nconfirmation=off\nverbose=nothing\n" + settings, name + ".taskrc")
                return { arguments in
                    guard let fixedNow else {
                        // NB: in docket's zone (`run`): a day Taskwarrior writes is its first moment in that zone.
                        return runCommand(
                            "task", Array(arguments), environment: ["TASKRC": rc, "TASKDATA": data.path, "TZ": "UTC"])
                    }
                    return runCommand(
                        "faketime",
                        ["-f", "@" + fixedNow.prefix(19).replacingOccurrences(of: "T", with: " "), "task"] + arguments,
                        environment: ["TASKRC": rc, "TASKDATA": data.path, "TZ": "UTC"])
                }
            }
            func fields(_ task: [String: Any]) -> [String: String] {
                var out: [String: String] = [:]
                for key in ["uuid", "description", "status", "entry", "due", "end", "project", "priority"] {
                    out[key] = task[key].map { "\($0)" }
                }
                out["tags"] = ((task["tags"] as? [String]) ?? []).sorted().joined(separator: ",")
                out["annotations"] = ((task["annotations"] as? [[String: String]]) ?? []).map {
                    "\($0["entry"]!) \($0["description"]!)"
                }.joined(separator: "|")
                return out
            }

            it("brings a real data set in and back out to a fresh Taskwarrior with every field the same") {
                let task = taskwarrior("first")
                expect(task("add", "Buy milk", "+errand", "+shop", "priority:H", "due:2026-12-01").status) == 0
                expect(task("add", "Write report", "project:Work", "due:2026-12-03", "priority:L").status) == 0
                // A project task made weeks before its last change keeps when it was made.
                expect(task("add", "Book venue", "project:Work", "entry:2026-11-01").status) == 0
                expect(task("add", "Call mum").status) == 0
                expect(task("4", "annotate", "left a message").status) == 0
                expect(task("4", "done").status) == 0
                expect(task("3", "modify", "priority:M", "+venue").status) == 0
                expect(task("add", "Old idea").status) == 0
                expect(task("+LATEST", "delete").status) == 0
                let export = task("export").stdout
                let exported = json(export).filter { $0["status"] as? String != "deleted" }
                expect(exported.count) == 4

                let imported = run("import", "taskwarrior", write(export, "tw.json"))
                expect(imported.status) == 0
                expect(imported.stdout).to(contain("Import from Taskwarrior: add 2 todos"))
                expect(run("list", "--all").stdout).to(contain("Buy milk"))
                expect(run("project", "list").stdout).to(contain("Work"))
                expect(run("list", "--all").stdout).notTo(contain("Old idea"))

                let back = run("export", "taskwarrior").stdout
                let fresh = taskwarrior("second")
                expect(fresh("import", write(back, "docket.json")).status) == 0
                let again = json(fresh("export").stdout)
                expect(again.count) == exported.count
                for original in exported {
                    let copy = again.first { $0["uuid"] as? String == original["uuid"] as? String }
                    expect(copy.map(fields)) == fields(original)
                }
            }

            it(
                "round-trips with the real Taskwarrior: waits, UDAs, depends, deletions and a series with its template come back whole"
            ) {
                // The wait below lies ahead of now on any day.
                fixedNow = "2026-11-20T12:00:00Z"
                let task = taskwarrior("tw", repeating: true)
                expect(
                    task(
                        "add", "Buy milk", "+errand", "due:2026-12-01", "wait:2030-11-28", "scheduled:2026-11-27",
                        "estimate:5"
                    ).status) == 0
                expect(task("add", "Gym", "due:2026-12-01", "recur:weekly", "until:2027-06-01").status) == 0
                expect(task("add", "Plan trip", "project:Home", "due:2026-12-15", "recur:monthly").status) == 0
                expect(task("add", "Pay rent", "depends:1").status) == 0
                expect(task("1", "annotate", "oat if they have it").status) == 0
                _ = task("list")
                let first = task("export").stdout
                func uuid(_ tasks: [[String: Any]], _ text: String, status: String = "pending") -> String {
                    tasks.first { $0["description"] as? String == text && $0["status"] as? String == status }?["uuid"]
                        as? String ?? "none"
                }

                let imported = run("import", "taskwarrior", write(first, "tw.json"))
                expect(imported.status) == 0
                // A series' until is used: its instances end there.
                expect(imported.stdout).to(contain("not used by Docket: estimate (1)."))
                expect(imported.stdout).notTo(contain("recur"))
                expect(gitCLI(["log", "-1", "--format=%B"], in: store).stdout).to(contain("estimate (1)"))
                let shown = run("show", String(uuid(json(first), "Buy milk").prefix(8))).stdout
                expect(shown).to(contain("kept      taskwarrior: estimate (for 'docket export taskwarrior')"))
                expect(shown).to(contain("wait      2030-11-28 (hidden until then)"))
                expect(shown).to(contain("scheduled 2026-11-27\n"))
                expect(run("show", String(uuid(json(first), "Pay rent").prefix(8))).stdout).to(
                    contain("depends   \(uuid(json(first), "Buy milk").prefix(8))  Buy milk (open: blocks it)"))
                let gym = String(uuid(json(first), "Gym").prefix(8))
                let milk = String(uuid(json(first), "Buy milk").prefix(8))
                let rent = String(uuid(json(first), "Pay rent").prefix(8))
                expect(run("done", gym).stdout).to(contain("Next:"))
                expect(run("rm", rent).status) == 0
                expect(run("edit", milk, "Buy oat milk").status) == 0
                expect(run("note", milk, "from the corner shop").status) == 0
                // A project task repeats as a todo does: finishing it makes the next.
                let trip = String(uuid(json(first), "Plan trip").prefix(8))
                expect(run("task", "state", trip, "finished").status) == 0
                expect(run("project", "list").stdout).to(contain("Home  1/2 tasks finished"))
                expect(run("commit").status) == 0

                let export = write(run("export", "taskwarrior").stdout, "docket.json")
                let before = head()
                expect(run("import", "taskwarrior", export).stdout).to(contain("Nothing to import"))
                expect(head()) == before
                expect(task("import", export).status) == 0
                let back = json(task("export").stdout)
                let pending = back.filter {
                    $0["description"] as? String == "Gym" && $0["status"] as? String == "pending"
                }
                expect(pending.count) == 1
                expect(pending.first?["due"] as? String) == "20261208T000000Z"
                expect(
                    back.filter { $0["description"] as? String == "Gym" && $0["status"] as? String == "completed" }
                        .count) == 1
                expect(back.first { ($0["uuid"] as? String)?.hasPrefix(rent) == true }?["status"] as? String)
                    == "deleted"
                let oat = back.first { $0["description"] as? String == "Buy oat milk" }
                expect(oat?["wait"] as? String) == "20301128T000000Z"
                expect(oat?["scheduled"] as? String) == "20261127T000000Z"
                expect(oat?["estimate"] as? Int) == 5
                expect((oat?["annotations"] as? [[String: Any]])?.count) == 2
                expect(
                    back.first { $0["description"] as? String == "Gym" && $0["status"] as? String == "recurring" }?[
                        "until"] as? String)
                    == "20270601T000000Z"
                let trips = back.filter {
                    $0["description"] as? String == "Plan trip" && $0["status"] as? String == "pending"
                }
                expect(trips.count) == 1
                expect(trips.first?["due"] as? String) == "20270115T000000Z"
                expect(trips.first?["project"] as? String) == "Home"
                expect(trips.first?["recur"] as? String) == "monthly"

                // Edits made in Taskwarrior (a second later: it keeps seconds) come back, and the round trip adds
                // nothing else.
                Thread.sleep(forTimeInterval: 1.1)
                expect(task(pending.first?["uuid"] as? String ?? "none", "done").status) == 0
                expect(task(oat?["uuid"] as? String ?? "none", "modify", "priority:H").status) == 0
                let again = run("import", "taskwarrior", write(task("export").stdout, "again.json"))
                expect(again.status) == 0
                // Done before Taskwarrior made the next: the import makes it, so the series goes on.
                expect(again.stdout).to(contain("Import from Taskwarrior: add 1 todo, complete 1"))
                expect(again.stdout).to(contain("Made the next instance of the series 'Gym'"))
                let list = json(run("list", "--all", "--json").stdout)
                expect(list.first { $0["text"] as? String == "Buy oat milk" }?["priority"] as? String) == "high"
                expect(
                    list.filter { $0["text"] as? String == "Buy oat milk" }.first.map { ($0["notes"] as? [Any])?.count }
                ) == 2
                expect(run("import", "taskwarrior", write(task("export").stdout, "third.json")).stdout).to(
                    contain("Nothing to import"))
            }

            it("carries wait, scheduled and depends both ways, each edit on either side coming back") {
                let task = taskwarrior("tw")
                expect(task("add", "Buy paint").status) == 0
                expect(task("add", "Sand fence", "project:Home").status) == 0
                expect(
                    task("add", "Paint fence", "depends:1,2", "wait:2030-01-05", "scheduled:2030-01-04").status) == 0
                let first = json(task("export").stdout)
                func uuid(_ text: String) -> String {
                    first.first { $0["description"] as? String == text }?["uuid"] as? String ?? "none"
                }
                let (paint, sand, fence) = (uuid("Buy paint"), uuid("Sand fence"), uuid("Paint fence"))
                expect(run("import", "taskwarrior", write(task("export").stdout, "tw.json")).status) == 0

                // Docket has them as Taskwarrior does: Paint fence waits, blocked by a todo and a project's task.
                expect(run().stdout).notTo(contain("Paint fence"))
                let waiting = run("list", "--waiting").stdout
                expect(waiting).to(contain("Paint fence  waiting until 2030-01-05  scheduled 2030-01-04"))
                let blockers = [sand, paint].map { String($0.prefix(8)) }.sorted { $0.uppercased() < $1.uppercased() }
                expect(waiting).to(contain("blocked by \(blockers.joined(separator: ", "))"))
                expect(run("list").stdout).to(contain("Buy paint  blocking \(fence.prefix(8))"))

                // Edited in Docket, back to Taskwarrior.
                expect(run("depend", String(fence.prefix(8)), "-\(sand.prefix(8))").status) == 0
                expect(run("wait", String(fence.prefix(8)), "none").status) == 0
                expect(run("commit").status) == 0
                expect(task("import", write(run("export", "taskwarrior").stdout, "docket.json")).status) == 0
                let back = json(task("export").stdout).first { $0["uuid"] as? String == fence }
                expect(back?["depends"] as? [String]) == [paint]
                expect(back?["wait"]).to(beNil())
                expect(back?["scheduled"] as? String) == "20300104T000000Z"

                // Edited in Taskwarrior (a second later: it keeps seconds), back to Docket.
                Thread.sleep(forTimeInterval: 1.1)
                expect(task(fence, "modify", "depends:\(sand)", "wait:2030-02-01", "scheduled:").status) == 0
                expect(run("import", "taskwarrior", write(task("export").stdout, "again.json")).status) == 0
                let item = json(run("list", "--all", "--json").stdout).first {
                    ($0["id"] as? String)?.lowercased() == fence
                }
                expect((item?["dependencies"] as? [String])?.map { $0.lowercased() }.sorted())
                    == [paint, sand].sorted()
                // Taskwarrior's wait:2030-02-01 is that day's first moment: a day, as its due is.
                expect(item?["waitDate"] as? String) == "2030-02-01"
                expect(item?["scheduledDate"]).to(beNil())
                expect(run("import", "taskwarrior", write(task("export").stdout, "third.json")).stdout).to(
                    contain("Nothing to import"))
            }

            it(
                "merges what comes back against what went out: each side's edit of its own field is kept, and a lost value is restorable"
            ) {
                let task = taskwarrior("tw", repeating: true)
                let milk = run("add", "Buy milk", "--due", "2026-12-01").stdout.trimmingCharacters(
                    in: .whitespacesAndNewlines)
                let mum = run("add", "Call mum").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                expect(run("commit").status) == 0
                expect(task("import", write(run("export", "taskwarrior").stdout, "docket.json")).status) == 0
                // Docket changes the due date, then, a second later, Taskwarrior the text; both edit Call mum, Docket
                // last.
                expect(run("due", milk, "2026-12-05").status) == 0
                Thread.sleep(forTimeInterval: 1.1)
                expect(task(milk, "modify", "Buy oat milk").status) == 0
                expect(task(mum, "modify", "Call mum back").status) == 0
                Thread.sleep(forTimeInterval: 1.1)
                expect(run("edit", mum, "Call mum on Sunday").status) == 0
                expect(run("commit").status) == 0
                let imported = run("import", "taskwarrior", write(task("export").stdout, "tw.json"))
                expect(imported.status) == 0
                let list = json(run("list", "--all", "--json").stdout)
                let bought = list.first { ($0["id"] as? String)?.lowercased().hasPrefix(milk) == true }
                expect(bought?["text"] as? String) == "Buy oat milk"
                expect(bought?["dueDate"] as? String).to(beginWith("2026-12-05"))
                expect(list.first { ($0["id"] as? String)?.lowercased().hasPrefix(mum) == true }?["text"] as? String)
                    == "Call mum on Sunday"
                let merges = run("merges").stdout
                expect(merges).to(contain("lost \"Call mum back\""))
                expect(merges).notTo(contain("2026-12-01"))
                let commit = String(merges.split(separator: " ").first ?? "")
                expect(run("merges", "restore", commit, "1").status) == 0
                expect(
                    json(run("list", "--json").stdout).first {
                        ($0["id"] as? String)?.lowercased().hasPrefix(mum) == true
                    }?["text"] as? String)
                    == "Call mum back"
            }

            it(
                "takes a task deleted in Taskwarrior as a removal, with no conflict, and a series' instance Taskwarrior made as the next"
            ) {
                let task = taskwarrior("tw", repeating: true)
                expect(task("add", "Call mum").status) == 0
                // Due three days ago: Taskwarrior makes an instance for each day since.
                expect(task("add", "Daily pill", "recur:daily", "due:2026-11-22").status) == 0
                _ = task("list")
                let first = json(task("export").stdout)
                expect(run("import", "taskwarrior", write(task("export").stdout, "first.json")).status) == 0
                let pills = {
                    json(run("list", "--all", "--json").stdout).filter { $0["text"] as? String == "Daily pill" }
                }
                let made = pills().count
                expect(made) > 1
                let oldest =
                    first.filter {
                        $0["description"] as? String == "Daily pill" && $0["status"] as? String == "pending"
                    }
                    .min { ($0["due"] as? String ?? "") < ($1["due"] as? String ?? "") }?["uuid"] as? String ?? "none"
                let done = run("done", String(oldest.prefix(8)))
                expect(done.status) == 0
                expect(done.stdout).notTo(contain("Next:"))
                expect(pills().count) == made
                expect(run("commit").status) == 0
                expect(task("import", write(run("export", "taskwarrior").stdout, "docket.json")).status) == 0
                let back = json(task("export").stdout).filter {
                    $0["description"] as? String == "Daily pill" && $0["status"] as? String == "pending"
                }
                expect(Set(back.compactMap { $0["imask"] as? Int }).count) == back.count

                let mum = first.first { $0["description"] as? String == "Call mum" }?["uuid"] as? String ?? "none"
                expect(task(mum, "delete").status) == 0
                let removed = run("import", "taskwarrior", write(task("export").stdout, "second.json"))
                expect(removed.status) == 0
                expect(removed.stdout).to(contain("remove 1 todo"))
                expect(removed.stdout).notTo(contain("lost"))
                expect(run("merges").stdout).notTo(contain("Call mum"))
            }

            context("when a series' current instance is gone") {
                /// The day `days` from today, as Taskwarrior takes it (UTC, as these specs run it).
                func day(_ days: Int) -> String {
                    let formatter = DateFormatter()
                    formatter.dateFormat = "yyyy-MM-dd"
                    formatter.timeZone = TimeZone(identifier: "UTC")
                    return formatter.string(from: Date().addingTimeInterval(Double(days) * 86_400))
                }
                func walks() -> [[String: Any]] {
                    json(run("list", "--all", "--json").stdout).filter { $0["text"] as? String == "Evening walk" }
                }
                it("makes the next instance of a series whose instance was deleted, as Taskwarrior would") {
                    let task = taskwarrior("tw", repeating: true)
                    expect(task("add", "Evening walk", "recur:daily", "due:\(day(3))").status) == 0
                    let pending = json(task("status:pending", "export").stdout)
                    expect(pending.count) == 1
                    expect(task(pending[0]["uuid"] as! String, "delete").status) == 0
                    let imported = run("import", "taskwarrior", write(task("export").stdout, "tw.json"))
                    expect(imported.status) == 0
                    expect(imported.stdout).to(contain("Made the next instance of the series 'Evening walk'"))
                    let open = walks().filter { $0["completed"] as? Bool == false }
                    expect(open.count) == 1
                    expect(open.first?["dueDate"] as? String).to(beginWith(day(4)))
                    // Back in Taskwarrior it is the series' next instance: Taskwarrior makes no other.
                    expect(
                        task("import", write(run("export", "taskwarrior").stdout, "docket.json")).status) == 0
                    let back = json(task("status:pending", "export").stdout)
                    expect(back.count) == 1
                    expect(back.first?["imask"] as? Int) == 1
                }
                it("makes the next instance of one completed before Taskwarrior made it, and ends at until") {
                    let task = taskwarrior("tw", repeating: true)
                    expect(
                        task("add", "Evening walk", "recur:daily", "due:\(day(2))", "until:\(day(3))").status) == 0
                    let first = json(task("status:pending", "export").stdout)
                    expect(first.count) == 1
                    expect(task(first[0]["uuid"] as! String, "done").status) == 0
                    expect(run("import", "taskwarrior", write(task("export").stdout, "tw.json")).status) == 0
                    let open = walks().filter { $0["completed"] as? Bool == false }
                    expect(open.count) == 1
                    expect(open.first?["dueDate"] as? String).to(beginWith(day(3)))
                    // Due on its until: the last. Done in Docket, it makes none after it.
                    let last = String((open.first?["id"] as? String ?? "none").prefix(8))
                    let done = run("done", last)
                    expect(done.status) == 0
                    expect(done.stdout).notTo(contain("Next:"))
                    expect(walks().filter { $0["completed"] as? Bool == false }).to(beEmpty())
                    expect(walks().count) == 2
                }
                it("takes the instance Taskwarrior made later for the one the import made: one, here and there") {
                    let task = taskwarrior("tw", repeating: true)
                    /// The same Taskwarrior three days on.
                    func later(_ arguments: String...) -> CommandResult {
                        runCommand(
                            "faketime", ["-f", "+3d", "task"] + arguments,
                            environment: [
                                "TASKRC": root.appendingPathComponent("tw.taskrc").path,
                                "TASKDATA": root.appendingPathComponent("tw").path, "TZ": "UTC",
                            ])
                    }
                    expect(task("add", "Evening walk", "recur:daily", "due:\(day(1))").status) == 0
                    let first = json(task("status:pending", "export").stdout)
                    expect(first.count) == 1
                    expect(task(first[0]["uuid"] as! String, "done").status) == 0
                    expect(run("import", "taskwarrior", write(task("export").stdout, "tw.json")).status) == 0
                    expect(walks().filter { $0["completed"] as? Bool == false }.count) == 1
                    // Three days on, Taskwarrior makes that instance itself, under an id of its own.
                    expect(later("list").status) == 0
                    let joined = run("import", "taskwarrior", write(later("export").stdout, "later.json"))
                    expect(joined.status) == 0
                    expect(joined.stdout).to(contain("Took Taskwarrior's instance 2 of 'Evening walk'"))
                    let numbers = walks().compactMap { ($0["recurrence"] as? [String: Any])?["occurrence"] as? Int }
                    expect(numbers.sorted()) == Array(Set(numbers)).sorted()
                    let now = ISO8601DateFormatter().string(from: Date().addingTimeInterval(3 * 86_400))
                    let export = docket(
                        ["export", "taskwarrior"], store: store, environment: ["TZ": "UTC", "DOCKET_NOW": now])
                    expect(later("import", write(export.stdout, "docket.json")).status) == 0
                    let pending = json(later("status:pending", "export").stdout)
                    let imasks = pending.compactMap { $0["imask"] as? Int }
                    expect(imasks.count) == pending.count
                    expect(Set(imasks).count) == imasks.count
                }
                it("deletes in Taskwarrior an instance removed in Docket") {
                    let task = taskwarrior("tw", repeating: true)
                    expect(task("add", "Evening walk", "recur:daily", "due:2027-01-05", "until:2027-01-09").status)
                        == 0
                    expect(run("import", "taskwarrior", write(task("export").stdout, "tw.json")).status) == 0
                    let walk = String((walks().first?["id"] as? String ?? "none").prefix(8))
                    expect(run("rm", walk).status) == 0
                    expect(run("commit").status) == 0
                    let imported = task("import", write(run("export", "taskwarrior").stdout, "docket.json"))
                    expect(imported.status) == 0
                    expect(imported.stderr).to(beEmpty())
                    expect(json(task("status:pending", "export").stdout)).to(beEmpty())
                }
                it("imports nothing for a series Taskwarrior ended at its until") {
                    let task = taskwarrior("tw", repeating: true)
                    expect(
                        task("add", "Evening walk", "recur:daily", "due:\(day(-3))", "until:\(day(-2))").status)
                        == 0
                    for uuid in json(task("status:pending", "export").stdout).compactMap({ $0["uuid"] as? String }) {
                        expect(task(uuid, "done").status) == 0
                    }
                    expect(run("import", "taskwarrior", write(task("export").stdout, "tw.json")).status) == 0
                    expect(walks().filter { $0["completed"] as? Bool == false }).to(beEmpty())
                }
            }

            it("exports a series into a Taskwarrior that ran since the last export without making an instance twice") {
                let task = taskwarrior("tw", repeating: true)
                let formatter = DateFormatter()
                formatter.dateFormat = "yyyy-MM-dd"
                formatter.timeZone = TimeZone(identifier: "UTC")
                let threeDaysAgo = formatter.string(from: Date().addingTimeInterval(-3 * 86_400))
                expect(run("add", "Water plants", "--every", "day", "--due", threeDaysAgo).status) == 0
                expect(run("commit").status) == 0
                expect(task("import", write(run("export", "taskwarrior").stdout, "first.json")).status) == 0
                // Taskwarrior runs: it makes the instances due since, and the next.
                _ = task("list")
                expect(task("import", write(run("export", "taskwarrior").stdout, "second.json")).status) == 0
                _ = task("list")
                let pending = json(task("status:pending", "export").stdout)
                let numbers = pending.compactMap { $0["imask"] as? Int }
                expect(numbers.count) == pending.count
                expect(Set(numbers).count) == numbers.count
                expect(numbers.count) >= 1
            }

            it("ends in the real Taskwarrior a series stopped in Docket, and reads it back stopped") {
                let task = taskwarrior("tw", repeating: true)
                let id = run("add", "Walk", "--due", "2026-12-01", "--every", "day").stdout
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                expect(run("commit").status) == 0
                expect(task("import", write(run("export", "taskwarrior").stdout, "first.json")).status) == 0
                expect(run("repeat", id, "none").status) == 0
                expect(run("commit").status) == 0
                // Taskwarrior will not take `recur` off an instance: the import failed with "missing ']'".
                for name in ["second.json", "third.json"] {
                    let imported = task("import", write(run("export", "taskwarrior").stdout, name))
                    expect(imported.status).to(equal(0), description: imported.stderr)
                }
                let tasks = json(task("export").stdout)
                expect(tasks.filter { $0["status"] as? String == "recurring" }).to(beEmpty())
                expect(tasks.filter { $0["status"] as? String == "pending" }.count) == 1
                let read = run("import", "taskwarrior", write(task("export").stdout, "back.json"))
                expect(read.status).to(equal(0), description: read.stderr)
                expect(run("show", id).stdout).notTo(contain("repeats"))
                expect(task("1", "done").status) == 0
                expect(json(task("status:pending", "export").stdout)).to(beEmpty())
            }
            it("carries a series without a due date through the real Taskwarrior, and makes its next when done there") {
                let task = taskwarrior("tw", repeating: true)
                let water = run("add", "Water plants", "--every", "week").stdout.trimmingCharacters(
                    in: .whitespacesAndNewlines)
                expect(run("commit").status) == 0
                expect(task("import", write(run("export", "taskwarrior").stdout, "docket.json")).status) == 0
                func plants() -> [[String: Any]] {
                    json(run("list", "--all", "--json").stdout).filter { $0["text"] as? String == "Water plants" }
                }
                // Edited in Taskwarrior (a second later: it keeps seconds), it still repeats.
                Thread.sleep(forTimeInterval: 1.1)
                expect(task(water, "modify", "+home").status) == 0
                expect(run("import", "taskwarrior", write(task("export").stdout, "tw.json")).status) == 0
                expect(plants().first?["tags"] as? [String]) == ["home"]
                expect((plants().first?["recurrence"] as? [String: Any])?["every"] as? String) == "week"
                // Done in Taskwarrior, which makes no next for a task without a due date: the import makes it.
                Thread.sleep(forTimeInterval: 1.1)
                expect(task(water, "done").status) == 0
                let done = run("import", "taskwarrior", write(task("export").stdout, "done.json"))
                expect(done.stdout).to(contain("add 1 todo, complete 1"))
                let open = plants().filter { $0["completed"] as? Bool == false }
                expect(open.count) == 1
                expect((open.first?["recurrence"] as? [String: Any])?["occurrence"] as? Int) == 2
                expect(run("import", "taskwarrior", write(task("export").stdout, "again.json")).stdout).to(
                    contain("Nothing to import"))
            }

            it("carries a start as a running slip and a running slip back as a start, through the real Taskwarrior") {
                let task = taskwarrior("tw")
                expect(task("add", "Dig bed", "project:Garden").status) == 0
                expect(task("1", "start").status) == 0
                let first = json(task("export").stdout)
                let dig = first.first?["uuid"] as? String ?? "none"
                let start = first.first?["start"] as? String ?? "none"
                expect(run("import", "taskwarrior", write(task("export").stdout, "tw.json")).status) == 0
                func slips() -> [String] {
                    run("report", "--csv").stdout.split(separator: "\n").dropFirst().map(String.init)
                }
                // The clock runs from Taskwarrior's start, once however often the export comes.
                let iso =
                    "\(start.prefix(4))-\(start.dropFirst(4).prefix(2))-\(start.dropFirst(6).prefix(2))T"
                    + "\(start.dropFirst(9).prefix(2)):\(start.dropFirst(11).prefix(2)):\(start.dropFirst(13).prefix(2))"
                expect(slips().count) == 1
                expect(slips().first).to(beginWith("Garden,Dig bed,\(iso).000Z,,"))
                expect(run("show", String(dig.prefix(8))).stdout).to(contain("time      1 slip, one running"))
                expect(run("import", "taskwarrior", write(task("export").stdout, "again.json")).stdout).to(
                    contain("Nothing to import"))

                // Stopped in Taskwarrior (a second later: it keeps seconds), the slip stops.
                Thread.sleep(forTimeInterval: 1.1)
                expect(task(dig, "stop").status) == 0
                expect(run("import", "taskwarrior", write(task("export").stdout, "stopped.json")).status) == 0
                expect(slips().count) == 1
                expect(slips().first).notTo(contain(",,"))
                expect(run("show", String(dig.prefix(8))).stdout).to(contain("state     unfinished"))

                // Started in Docket, Taskwarrior has the slip's start; read back, it is the same slip.
                expect(run("task", "start", String(dig.prefix(8))).status) == 0
                expect(run("commit").status) == 0
                let running = json(run("export", "taskwarrior").stdout).first { $0["uuid"] as? String == dig }
                let started = running?["start"] as? String
                expect(started).notTo(beNil())
                expect(started) != start
                expect(task("import", write(run("export", "taskwarrior").stdout, "docket.json")).status) == 0
                expect(json(task("export").stdout).first?["start"] as? String) == started
                expect(run("import", "taskwarrior", write(task("export").stdout, "back.json")).stdout).to(
                    contain("Nothing to import"))
                expect(slips().count) == 2
                expect(run("show", String(dig.prefix(8))).stdout).to(contain("time      2 slips, one running"))
            }

            it("changes nothing when the same export comes again, and takes a newer edit with the loser recorded") {
                let task = taskwarrior("tw")
                expect(task("add", "Buy milk", "due:2026-12-01").status) == 0
                let file = write(task("export").stdout, "first.json")
                expect(run("import", "taskwarrior", file).status) == 0
                let before = head()
                let again = run("import", "taskwarrior", file)
                expect(again.stdout).to(contain("Nothing to import"))
                expect(head()) == before

                Thread.sleep(forTimeInterval: 1.1)
                expect(task("1", "modify", "Buy oat milk").status) == 0
                let newer = run("import", "taskwarrior", write(task("export").stdout, "second.json"))
                expect(newer.status) == 0
                expect(newer.stdout).to(contain("kept \"Buy oat milk\" (theirs, the later edit), lost \"Buy milk\""))
                expect(gitCLI(["log", "-1", "--format=%B"], in: store).stdout).to(contain("lost \"Buy milk\""))
                expect(run("list").stdout).to(contain("Buy oat milk"))

                // An older export does not undo an edit made in Docket since.
                let id = String((json(run("list", "--json").stdout).first?["id"] as? String ?? "").prefix(8))
                expect(run("edit", id, "Buy soy milk").status) == 0
                expect(run("commit").status) == 0
                expect(run("import", "taskwarrior", file).status) == 0
                expect(run("list").stdout).to(contain("Buy soy milk"))
            }

            it("refuses a cut-short export and a bad task, naming them, and imports the rest only when asked") {
                let task = taskwarrior("tw")
                expect(task("add", "Good one").status) == 0
                let export = task("export").stdout
                let before = head()
                let cut = run("import", "taskwarrior", write(String(export.prefix(export.count / 2)), "cut.json"))
                expect(cut.status) != 0
                expect(cut.stderr).to(contain("cut.json: it is not complete JSON"))
                var tasks = json(export)
                tasks.append([
                    "uuid": "not-a-uuid", "description": "Broken", "entry": "20261122T100000Z", "status": "pending",
                ])
                tasks.append([
                    "uuid": UUID().uuidString, "description": "Bad date", "entry": "soon", "status": "pending",
                ])
                let file = write(
                    String(decoding: try! JSONSerialization.data(withJSONObject: tasks), as: UTF8.self), "bad.json")
                let refused = run("import", "taskwarrior", file)
                expect(refused.status) != 0
                expect(refused.stderr).to(contain("bad.json, task 2 (not-a-uu): its uuid is missing or not a uuid"))
                expect(refused.stderr).to(contain("entry \"soon\" is not a date"))
                expect(refused.stderr).to(contain("run again with --skip-bad"))
                expect(head()) == before
                let skipped = run("import", "taskwarrior", file, "--skip-bad")
                expect(skipped.status) == 0
                expect(skipped.stderr).to(contain("Skipped that task: "))
                expect(run("list").stdout).to(contain("Good one"))
                expect(run("list").stdout).notTo(contain("Broken"))
            }
        }

        describe("todo.txt") {
            func todo(_ arguments: String...) -> CommandResult {
                let config = write(
                    """
                    export TODO_DIR=\(root.path)/todo
                    export TODO_FILE=$TODO_DIR/todo.txt
                    export DONE_FILE=$TODO_DIR/done.txt
                    export REPORT_FILE=$TODO_DIR/report.txt
                    """, "todo.cfg")
                try? FileManager.default.createDirectory(
                    at: root.appendingPathComponent("todo"), withIntermediateDirectories: true)
                return runCommand("todo-txt", ["-d", config, "-p"] + arguments, environment: ["TZ": "UTC"])
            }
            let todoFile = { root.appendingPathComponent("todo/todo.txt").path }
            let doneFile = { root.appendingPathComponent("todo/done.txt").path }

            it("takes an edit of the next instance of a series completed in Docket") {
                let walk = run("add", "Evening walk", "--every", "week", "--due", "2027-01-05").stdout
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                expect(run("done", walk).status) == 0
                expect(run("commit").status) == 0
                let lines = run("export", "todotxt").stdout.split(separator: "\n").map(String.init)
                expect(lines.first).to(contain("due:2027-01-12"))
                let edited = ([lines[0] + " v52"] + lines.dropFirst()).joined(separator: "\n") + "\n"
                let imported = run("import", "todotxt", write(edited, "todo.txt"))
                expect(imported.status) == 0
                expect(imported.stderr).to(beEmpty())
                expect(json(run("list", "--json").stdout).first?["text"] as? String) == "Evening walk v52"
                expect(run("status").stdout).to(contain("Nothing to commit"))
            }

            it(
                "takes a line deleted or replaced in todo.sh as a removal, with a record, and leaves one todo.sh moved to done.txt"
            ) {
                for text in ["Buy milk", "Call mum", "Water plants", "Pay rent"] {
                    expect(todo("add", text).status) == 0
                }
                expect(run("import", "todotxt", todoFile()).stdout).to(contain("add 4 todos"))
                // A second later: a line keeps no time of its own, and its file's is the removal's.
                Thread.sleep(forTimeInterval: 1.1)
                expect(todo("-f", "del", "2").status) == 0
                expect(todo("replace", "3", "Water the plants").status) == 0
                expect(todo("do", "4").status) == 0
                let imported = run("import", "todotxt", todoFile())
                expect(imported.status) == 0
                expect(imported.stdout).to(contain("Import from todo.txt: add 1 todo, remove 2"))
                expect(imported.stdout).to(contain("Removed 2 todos whose line is gone (deleted or replaced): "))
                expect(imported.stdout).to(contain("'Call mum'"))
                expect(imported.stdout).to(contain("Left 'Pay rent' as it is: its line is in "))
                let open = json(run("list", "--all", "--json").stdout).filter { $0["completed"] as? Bool == false }
                expect(open.compactMap { $0["text"] as? String }.sorted()) == [
                    "Buy milk", "Pay rent", "Water the plants",
                ]
                let merges = run("merges").stdout
                expect(merges).to(contain("todo 'Call mum'"))
                expect(merges).to(contain("todo 'Water plants'"))
                // The record brings a removed todo back.
                let commit = String(merges.split(separator: " ").first ?? "")
                let which = merges.contains("[1] todo 'Call mum'") ? "1" : "2"
                expect(run("merges", "restore", commit, which).status) == 0
                expect(run("list").stdout).to(contain("Call mum"))
                expect(run("commit").status) == 0

                // Named with its done.txt, the done line completes its todo; read again, nothing changes.
                let done = run("import", "todotxt", todoFile(), doneFile())
                expect(done.stdout).to(contain("complete 1"))
                expect(done.stdout).notTo(contain("Removed"))
                expect(run("import", "todotxt", todoFile(), doneFile()).stdout).to(contain("Nothing to import"))
            }

            it("records a line deleted in todo.sh after an export as a removal that merges restore puts back") {
                expect(run("add", "Buy milk").status) == 0
                expect(run("add", "Call mum").status) == 0
                expect(run("commit").status) == 0
                try! FileManager.default.createDirectory(
                    at: root.appendingPathComponent("todo"), withIntermediateDirectories: true)
                try! run("export", "todotxt").stdout.write(toFile: todoFile(), atomically: true, encoding: .utf8)
                Thread.sleep(forTimeInterval: 1.1)
                let number = try! String(contentsOfFile: todoFile(), encoding: .utf8).split(separator: "\n")
                    .firstIndex { $0.contains("Call mum") }!
                expect(todo("-f", "del", String(number + 1)).status) == 0
                let imported = run("import", "todotxt", todoFile())
                expect(imported.stdout).to(contain("remove 1 todo"))
                expect(run("list").stdout).notTo(contain("Call mum"))
                let merges = run("merges").stdout
                expect(merges).to(contain("[1] todo 'Call mum'"))
                // The todo it removed, said in words, not as its file's JSON.
                expect(merges).to(contain("lost edit: \"Call mum\", open"))
                expect(merges).notTo(contain("{"))
                expect(run("merges", "restore", String(merges.prefix(7)), "1").status) == 0
                expect(run("list").stdout).to(contain("Call mum"))
            }

            it("exports a line as the user wrote it: no creation date for a line that had none") {
                let lines = "Buy milk +shop due:2026-12-01\nx 2026-11-21 Call mum\n2026-11-20 Pay rent\n"
                let file = write(lines, "todo.txt")
                expect(run("import", "todotxt", file).status) == 0
                let exported = run("export", "todotxt").stdout
                expect(exported.split(separator: "\n").map(String.init).sorted())
                    == ["2026-11-20 Pay rent", "Buy milk +shop due:2026-12-01", "x 2026-11-21 Call mum"]
                // Written back, it is the same file: nothing to import.
                expect(run("import", "todotxt", write(exported, "again.txt")).stdout).to(contain("Nothing to import"))
                // A todo made in Docket keeps its creation date.
                expect(run("add", "Water plants").status) == 0
                let today = String(ISO8601DateFormatter().string(from: Date()).prefix(10))
                expect(run("export", "todotxt").stdout).to(contain("\(today) Water plants id:"))
            }

            it("takes a threshold todo.sh appends to a line done in the morning's next instance, the last t: winning") {
                // Early on 2027-01-04: the watering done in todo.sh at 04:00 is dated that day, not its noon, so the
                // next instance and Docket's later edits of it are not dated after todo.sh's next change.
                func at(_ time: String, _ path: String) {
                    try! FileManager.default.setAttributes(
                        [.modificationDate: ISO8601DateFormatter().date(from: "2027-01-04T\(time):00Z")!],
                        ofItemAtPath: path)
                }
                fixedNow = "2027-01-04T03:00:00Z"
                try! FileManager.default.createDirectory(
                    at: root.appendingPathComponent("todo"), withIntermediateDirectories: true)
                try! "2027-01-03 Water plants due:2027-01-04 rec:+1d\n".write(
                    toFile: todoFile(), atomically: true, encoding: .utf8)
                at("03:00", todoFile())
                expect(run("import", "todotxt", todoFile()).status) == 0
                try! "x 2027-01-04 2027-01-03 Water plants due:2027-01-04 rec:+1d\n".write(
                    toFile: todoFile(), atomically: true, encoding: .utf8)
                at("04:00", todoFile())
                fixedNow = "2027-01-04T04:00:00Z"
                expect(run("import", "todotxt", todoFile()).stdout).to(contain("add 1 todo, complete 1"))
                let next = json(run("list", "--json").stdout).first?["id"] as? String ?? "none"
                fixedNow = "2027-01-04T04:05:00Z"
                // Edited by hand, then in Docket: each dated after the instance was made.
                let file = store.appendingPathComponent(StoreLayout.todo(UUID(uuidString: next)!))
                try! String(contentsOf: file, encoding: .utf8).replacingOccurrences(
                    of: "\"Water plants\"", with: "\"Water the plants\""
                ).write(to: file, atomically: true, encoding: .utf8)
                expect(run("commit").status) == 0
                expect(run("wait", String(next.prefix(8)), "2027-01-06").status) == 0
                expect(run("commit").status) == 0
                try! run("export", "todotxt").stdout.write(toFile: todoFile(), atomically: true, encoding: .utf8)
                at("04:05", todoFile())
                expect(todo("append", "1", "t:2027-01-18").stdout).to(contain("plants due:2027-01-05 t:2027-01-06"))
                at("04:10", todoFile())
                fixedNow = "2027-01-04T04:10:00Z"
                let imported = run("import", "todotxt", todoFile())
                expect(imported.stdout).to(contain("edit 1 todo"))
                expect(imported.stdout).to(contain("line 1: t: twice; took the last, t:2027-01-18"))
                expect(run("show", String(next.prefix(8))).stdout).to(contain("wait      2027-01-18"))
                // Written back, the line says the one threshold the store keeps.
                let line = run("export", "todotxt").stdout.split(separator: "\n").first.map(String.init) ?? ""
                expect(line).to(contain("t:2027-01-18"))
                expect(line).notTo(contain("t:2027-01-06"))
            }

            it("says a todo.sh edit that lost to a later edit in Docket, though nothing is imported") {
                func at(_ time: String, _ path: String) {
                    try! FileManager.default.setAttributes(
                        [.modificationDate: ISO8601DateFormatter().date(from: "2027-01-04T\(time):00Z")!],
                        ofItemAtPath: path)
                }
                fixedNow = "2027-01-04T15:00:00Z"
                let milk = run("add", "Buy milk").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                expect(run("commit").status) == 0
                try! FileManager.default.createDirectory(
                    at: root.appendingPathComponent("todo"), withIntermediateDirectories: true)
                try! run("export", "todotxt").stdout.write(toFile: todoFile(), atomically: true, encoding: .utf8)
                expect(todo("append", "1", "t:2027-01-18").status) == 0
                at("15:05", todoFile())
                fixedNow = "2027-01-04T15:10:00Z"
                expect(run("wait", milk, "2027-01-09").status) == 0
                expect(run("commit").status) == 0
                let imported = run("import", "todotxt", todoFile())
                expect(imported.stdout).to(
                    contain("Nothing to import from todo.txt: the store's later edits outweigh what it changed:"))
                expect(imported.stdout).to(
                    contain("waitDate: kept \"2027-01-09\" (ours, the later edit), lost \"2027-01-18\""))
                expect(run("show", milk).stdout).to(contain("wait      2027-01-09"))
            }

            it("shows a line's dates as the days they are, not at 12:00") {
                let file = write("x 2026-11-21 2026-11-20 Buy milk\n", "todo.txt")
                expect(run("import", "todotxt", file).status) == 0
                let id = json(run("list", "--all", "--json").stdout).first?["id"] as? String ?? "none"
                let shown = run("show", String(id.prefix(8))).stdout
                expect(shown).to(contain("created   2026-11-20\n"))
                expect(shown).to(contain("done 2026-11-21\n"))
                expect(shown).notTo(contain("12:00"))
            }

            it("imports what todo.sh wrote, once, and todo.sh lists Docket's export") {
                expect(todo("-t", "add", "Buy milk +errand @shop due:2026-12-01 lang:en").status) == 0
                expect(todo("add", "Call mum").status) == 0
                expect(todo("add", "Water plants").status) == 0
                expect(todo("pri", "1", "A").status) == 0
                expect(todo("do", "2").status) == 0
                let imported = run("import", "todotxt", todoFile(), doneFile())
                expect(imported.status) == 0
                expect(imported.stdout).to(contain("add 3 todos"))
                let list = json(run("list", "--all", "--json").stdout)
                let milk = list.first { $0["text"] as? String == "Buy milk lang:en" }
                expect(milk?["tags"] as? [String]) == ["@shop", "errand"]
                expect(milk?["priority"] as? String) == "high"
                expect(milk?["dueDate"] as? String).to(beginWith("2026-12-01"))
                expect(list.first { $0["text"] as? String == "Call mum" }?["completed"] as? Bool) == true

                let before = head()
                expect(run("import", "todotxt", todoFile(), doneFile()).stdout).to(contain("Nothing to import"))
                expect(head()) == before

                expect(run("add", "Plant tulips", "+garden").status) == 0
                try! run("export", "todotxt").stdout.write(toFile: todoFile(), atomically: true, encoding: .utf8)
                let listed = todo("ls").stdout
                expect(listed).to(contain("(A) "))
                expect(listed).to(contain("Buy milk lang:en @shop +errand due:2026-12-01"))
                expect(listed).to(contain("Plant tulips +garden id:"))
                expect(listed).to(contain("x "))
                expect(run("commit").status) == 0
                let after = head()
                expect(run("import", "todotxt", todoFile()).stdout).to(contain("Nothing to import"))
                expect(head()) == after

                // Done in todo.sh, done in Docket.
                let number = try! String(contentsOfFile: todoFile(), encoding: .utf8).split(separator: "\n").firstIndex
                { $0.contains("Water plants") }!
                expect(todo("do", String(number + 1)).status) == 0
                expect(run("import", "todotxt", todoFile(), doneFile()).status) == 0
                expect(run("list").stdout).notTo(contain("Water plants"))
            }

            it("writes the wait as t:, the scheduled date and dependencies, and reads them back, from todo.sh too") {
                let paint = run("add", "Buy paint").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                let fence = run(
                    "add", "Paint fence", "--wait", "2030-01-05", "--scheduled", "2030-01-04", "--depends", paint
                ).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                expect(run("wait", paint, "2030-01-03 09:30").status) == 0
                expect(run("commit").status) == 0
                try! FileManager.default.createDirectory(
                    at: root.appendingPathComponent("todo"), withIntermediateDirectories: true)
                try! run("export", "todotxt").stdout.write(toFile: todoFile(), atomically: true, encoding: .utf8)
                let exported = try! String(contentsOfFile: todoFile(), encoding: .utf8)
                let ids = json(run("list", "--all", "--json").stdout).compactMap { ($0["id"] as? String)?.lowercased() }
                let paintID = ids.first { $0.hasPrefix(paint) }!
                expect(exported).to(contain("Paint fence t:2030-01-05 scheduled:2030-01-04 dep:\(paintID)"))
                expect(exported).to(contain("Buy paint t:2030-01-03"))
                let before = head()
                // Read back to the day: the time of the paint's wait is its own, so nothing changes.
                expect(run("import", "todotxt", todoFile()).stdout).to(contain("Nothing to import"))
                expect(head()) == before

                // todo.sh adds to a line and adds one with a threshold; both come back.
                let number = exported.split(separator: "\n").firstIndex { $0.contains("Paint fence") }!
                Thread.sleep(forTimeInterval: 1.05)
                expect(todo("append", String(number + 1), "blue").status) == 0
                expect(todo("add", "Varnish fence t:2030-02-01 dep:\(paintID)").status) == 0
                expect(run("import", "todotxt", todoFile()).status) == 0
                let list = json(run("list", "--all", "--json").stdout)
                let painted = list.first { ($0["id"] as? String)?.lowercased().hasPrefix(fence) == true }
                expect(painted?["text"] as? String) == "Paint fence blue"
                expect(painted?["waitDate"] as? String) == "2030-01-05"
                expect((painted?["dependencies"] as? [String])?.map { $0.lowercased() }) == [paintID]
                let varnish = list.first { $0["text"] as? String == "Varnish fence" }
                expect(varnish?["waitDate"] as? String) == "2030-02-01"
                expect((varnish?["dependencies"] as? [String])?.map { $0.lowercased() }) == [paintID]
                expect(run("list").stdout).notTo(contain("Varnish fence"))
                expect(run("list", "--waiting").stdout).to(contain("Varnish fence"))
            }

            it("keeps a priority todo.sh drops on completion, and a series through rec:, done in todo.sh") {
                let rent = run("add", "Pay rent", "--priority", "high").stdout.trimmingCharacters(
                    in: .whitespacesAndNewlines)
                expect(run("add", "Water plants", "--every", "week").status) == 0
                expect(run("commit").status) == 0
                try! FileManager.default.createDirectory(
                    at: root.appendingPathComponent("todo"), withIntermediateDirectories: true)
                try! run("export", "todotxt").stdout.write(toFile: todoFile(), atomically: true, encoding: .utf8)
                let lines = try! String(contentsOfFile: todoFile(), encoding: .utf8).split(separator: "\n")
                expect(lines.first { $0.contains("Water plants") }.map(String.init)).to(contain("rec:+1w"))
                for text in ["Pay rent", "Water plants"] {
                    let number = try! String(contentsOfFile: todoFile(), encoding: .utf8).split(separator: "\n")
                        .firstIndex { $0.contains(text) }!
                    expect(todo("do", String(number + 1)).status) == 0
                }
                expect(try! String(contentsOfFile: doneFile(), encoding: .utf8)).notTo(contain("(A)"))
                let imported = run("import", "todotxt", todoFile(), doneFile())
                expect(imported.status) == 0
                expect(imported.stdout).notTo(contain("priority"))
                let list = json(run("list", "--all", "--json").stdout)
                let paid = list.first { ($0["id"] as? String)?.lowercased().hasPrefix(rent) == true }
                expect(paid?["completed"] as? Bool) == true
                expect(paid?["priority"] as? String) == "high"
                let plants = list.filter { $0["text"] as? String == "Water plants" }
                expect(plants.count) == 2
                expect(plants.filter { $0["completed"] as? Bool == false }.count) == 1
                let series = Set(plants.compactMap { ($0["recurrence"] as? [String: Any])?["series"] as? String })
                expect(series.count) == 1
                expect(run("import", "todotxt", todoFile(), doneFile()).stdout).to(contain("Nothing to import"))
                expect(
                    run("export", "todotxt").stdout.split(separator: "\n").filter {
                        $0.contains("Water plants") && !$0.hasPrefix("x ")
                    }.count) == 1
            }

            it(
                "keeps what a todo.txt line cannot say when todo.sh changes the line: notes, other tools' keys, the time of day"
            ) {
                let bread = run("add", "Buy bread", "--due", "2026-12-01 08:30").stdout.trimmingCharacters(
                    in: .whitespacesAndNewlines)
                expect(run("note", bread, "from the bakery").status) == 0
                expect(run("commit").status) == 0
                try! FileManager.default.createDirectory(
                    at: root.appendingPathComponent("todo"), withIntermediateDirectories: true)
                try! run("export", "todotxt").stdout.write(toFile: todoFile(), atomically: true, encoding: .utf8)
                Thread.sleep(forTimeInterval: 1.05)
                expect(todo("append", "1", "wholemeal").status) == 0
                let imported = run("import", "todotxt", todoFile())
                expect(imported.status) == 0
                let shown = run("show", bread).stdout
                expect(shown).to(contain("Buy bread wholemeal"))
                expect(shown).to(contain("from the bakery"))
                expect(shown).to(contain("2026-12-01 08:30"))
                expect(run("merges").stdout).to(contain("No merges yet"))
            }

            it("names each line that is not todo.txt and commits nothing unless asked") {
                let file = write("Good line\n(A)\nx 2026-11-01 Thing due:tomorrow\n", "todo.txt")
                let before = head()
                let refused = run("import", "todotxt", file)
                expect(refused.status) != 0
                expect(refused.stderr).to(contain("todo.txt, line 2: it has no text"))
                expect(refused.stderr).to(contain("todo.txt, line 3: due:tomorrow is not a date as due:YYYY-MM-DD"))
                expect(head()) == before
                let bytes = root.appendingPathComponent("latin1.txt")
                try! Data([0x43, 0x61, 0x66, 0xE9, 0x0A]).write(to: bytes)
                expect(run("import", "todotxt", bytes.path).stderr).to(contain("latin1.txt: it is not UTF-8 text"))
                expect(run("import", "todotxt", file, "--skip-bad").status) == 0
                expect(run("list").stdout).to(contain("Good line"))
            }
        }

        describe("an import") {
            let uuid = "7c1e0000-0000-4000-8000-000000000001"
            func task(_ id: String, _ text: String) -> String {
                "{\"uuid\": \"\(id)\", \"description\": \"\(text)\", \"status\": \"pending\", \"entry\": \"20261120T100000Z\", \"modified\": \"20261120T100000Z\"}"
            }
            it("refuses a Taskwarrior export that lists one uuid twice, naming the task, and changes nothing") {
                let file = write(
                    "[\(task(uuid, "Buy milk")), \(task("7c1e0000-0000-4000-8000-000000000002", "Call Anna")), \(task(uuid, "Buy oat milk"))]",
                    "twice.json")
                let before = head()
                let refused = run("import", "taskwarrior", file)
                expect(refused.status) != 0
                expect(refused.stderr).to(contain("task 3 (7c1e0000): its uuid is task 1's too"))
                expect(head()) == before
                expect(gitCLI(["status", "--porcelain"], in: store).stdout) == ""
                let rest = run("import", "taskwarrior", file, "--skip-bad")
                expect(rest.status).to(equal(0), description: rest.stderr)
                expect(Set(try! Store.open(at: store).load().state.todos.map(\.text))) == ["Buy milk", "Call Anna"]
            }
            it("is taken back as one step by undo") {
                _ = run("add", "Mine")
                _ = run("commit")
                let file = write(
                    "[\(task(uuid, "Buy milk")), \(task("7c1e0000-0000-4000-8000-000000000002", "Call Anna"))]",
                    "two.json")
                expect(run("import", "taskwarrior", file).status) == 0
                let undone = run("undo")
                expect(undone.status).to(equal(0), description: undone.stderr)
                expect(undone.stdout).to(contain("import from"))
                expect(try! Store.open(at: store).load().state.todos.map(\.text)) == ["Mine"]
            }
            it("killed after its files are written, leaves its record for the next commit") {
                let file = write(
                    "[\(task(uuid, "Buy milk")), \(task("7c1e0000-0000-4000-8000-000000000002", "Call Anna"))]",
                    "two.json")
                let killed = docket(
                    ["import", "taskwarrior", file], store: store,
                    environment: ["TZ": "UTC", "DOCKET_FAULT": "after-import-files"])
                expect(killed.status) != 0
                expect(run("commit").status) == 0
                expect(gitCLI(["log", "-1", "--format=%s"], in: store).stdout).to(
                    beginWith("Import from Taskwarrior: add 2 todos"))
                expect(run("commit").stdout).notTo(contain("Import from"))
            }
        }

        describe("what goes out to other tools' formats") {
            // Line breaks of every kind a reader may split at, and the lines an attacker would inject after them.
            let hostile =
                "Pay rent\rBEGIN:VALARM\rACTION:EMAIL\rATTENDEE:mailto:evil@example.invalid\rEND:VALARM"
                + "\u{2028}UID:other\u{85}BEGIN:VTODO\u{0B}X:y\u{0C}Z:w\u{1C}END:VTODO\r\nDESCRIPTION:x\u{1B}]0;t\u{07}"

            it(
                "writes a todo's text into an .ics as one value that vdirsyncer's parser reads back as one todo, with no alarm"
            ) {
                _ = docket(["add", hostile], store: store)
                let exported = run("ical", "export")
                expect(exported.status) == 0
                let file = write(exported.stdout, "export.ics")
                let parsed = runCommand(
                    "/usr/bin/python3",
                    [
                        "-c",
                        """
                        import sys, vdirsyncer.vobject as v
                        c = v._Component.parse(open(sys.argv[1], encoding="utf-8").read())
                        print(c.name, [s.name for s in c.subcomponents], [[t.name for t in s.subcomponents] for s in c.subcomponents],
                              [s["UID"] for s in c.subcomponents])
                        """, file,
                    ])
                expect(parsed.status).to(equal(0), description: parsed.stderr)
                let id = try! Store.open(at: store).load().state.todos[0].id.uuidString
                expect(parsed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)).to(
                    beginWith("VCALENDAR ['VTODO'] [[]] ['"))
                expect(parsed.stdout.uppercased()).to(contain(id))
                for raw in ["\u{2028}", "\u{85}", "\u{0B}", "\u{0C}", "\u{1C}", "\u{1B}", "\u{07}"] {
                    expect(exported.stdout).toNot(contain(raw))
                }
                expect(exported.stdout.replacingOccurrences(of: "\r\n", with: "")).toNot(contain("\r"))
            }

            it(
                "writes a task title into report --csv as one quoted field, a leading formula sign neutralized, and rows as slips"
            ) {
                let project = run("project", "add", "Work").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                for title in ["=HYPERLINK(\"http://evil.invalid\")", "Write\r\n=1+2", "\t=cmd", "-2+3", "@SUM(A1)"] {
                    let task = run("task", "add", project, title).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                    expect(run("task", "start", task).status) == 0
                    usleep(2000)
                    expect(run("task", "stop", task).status) == 0
                }
                let csv = run("report", "--csv").stdout
                let read = runCommand(
                    "/usr/bin/python3",
                    [
                        "-c",
                        "import csv, json, sys; print(json.dumps([r[1] for r in csv.reader(open(sys.argv[1], newline=''))]))",
                        write(csv, "report.csv"),
                    ])
                let titles = (try? JSONSerialization.jsonObject(with: Data(read.stdout.utf8))) as? [String]
                expect(titles.map(Set.init)) == [
                    "task", "'=HYPERLINK(\"http://evil.invalid\")", "Write\r\n=1+2", "'\t=cmd", "'-2+3", "'@SUM(A1)",
                ]
            }

            it(
                "writes no todo.txt line that a tag read from a file starts, and refuses such a tag as a typed one is refused"
            ) {
                let id = UUID(uuidString: "AB000000-0000-4000-8000-000000000009")!
                let file = store.appendingPathComponent(StoreLayout.todo(id))
                try! FileManager.default.createDirectory(
                    at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try! """
                {"id":"\(id.uuidString)","text":"Water plants","creationDate":"2026-11-20T10:00:00.000Z","completed":false,"tags":["home\\nx 2026-01-01 Pay the attacker id:\(id.uuidString.lowercased())"]}
                """.write(to: file, atomically: true, encoding: .utf8)
                let listed = run("list")
                expect(listed.stderr).to(contain("the tag"))
                expect(listed.stderr).to(contain("a tag is one word, without spaces or control characters"))
                let exported = run("export", "todotxt").stdout
                expect(exported.split(separator: "\n").count) <= 1
                expect(exported).toNot(contain("Pay the attacker"))
            }

            it(
                "shows controls escaped when an export prints to a terminal, and --json carries C1 and bidi controls escaped"
            ) {
                _ = docket(["add", "Evil\u{1B}]0;title\u{07} \u{9B}2J \u{202E}txt.exe"], store: store)
                for export in [["export", "todotxt"], ["ical", "export"], ["export", "taskwarrior"]] {
                    let shown = runCommand(
                        "/usr/bin/script",
                        ["-qec", ([docketBinary, "-C", store.path] + export).joined(separator: " "), "/dev/null"])
                    expect(shown.stdout).toNot(contain("\u{1B}]0;"))
                    expect(shown.stdout).toNot(contain("\u{9B}"))
                    expect(shown.stdout).toNot(contain("\u{202E}"))
                }
                let json = run("list", "--json").stdout
                expect(json).toNot(contain("\u{9B}"))
                expect(json).toNot(contain("\u{202E}"))
                expect(json).to(contain("\\u009b2J \\u202etxt.exe"))
                let decoded = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [[String: Any]]
                expect(decoded?.first?["text"] as? String) == "Evil\u{1B}]0;title\u{07} \u{9B}2J \u{202E}txt.exe"
            }
        }

        describe("time") {
            it(
                "imports Timewarrior's intervals as slips on the tasks their tags name, once, and reports a range as CSV"
            ) {
                let db = root.appendingPathComponent("timew")
                try! FileManager.default.createDirectory(
                    at: db.appendingPathComponent("data"), withIntermediateDirectories: true)
                _ = FileManager.default.createFile(
                    atPath: db.appendingPathComponent("timewarrior.cfg").path, contents: Data())
                func timew(_ arguments: String...) -> CommandResult {
                    runCommand("timew", arguments, environment: ["TIMEWARRIORDB": db.path], input: "")
                }
                let work = run("project", "add", "Work").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                expect(run("task", "add", work, "Write report").status) == 0
                expect(timew("track", "2026-11-20T09:00Z", "-", "2026-11-20T10:30Z", "Write report").status) == 0
                expect(timew("track", "2026-11-21T09:00Z", "-", "2026-11-21T09:45Z", "Write report").status) == 0
                expect(timew("track", "2026-11-21T13:00Z", "-", "2026-11-21T13:20Z", "Garden").status) == 0
                expect(timew("annotate", "@1", "weeding the roses").status) == 0
                let file = write(timew("export").stdout, "timew.json")
                let uncommitted = run("import", "timewarrior", file)
                expect(uncommitted.status) != 0
                expect(uncommitted.stderr).to(contain("docket commit"))
                expect(run("commit").status) == 0
                let imported = run("import", "timewarrior", file)
                expect(imported.status) == 0
                expect(imported.stdout).to(contain("Not carried: the annotation of 1 interval"))
                expect(gitCLI(["log", "-1", "--format=%B"], in: store).stdout).to(
                    contain("Not carried: the annotation of 1 interval"))
                let report = run("report").stdout
                expect(report).to(contain("Work  2h 15m"))
                expect(report).to(contain("Timewarrior  20m"))
                let before = head()
                expect(run("import", "timewarrior", file).stdout).to(contain("Nothing to import"))
                expect(head()) == before

                let csv = run("report", "--since", "2026-11-21", "--until", "2026-11-21", "--csv").stdout
                expect(csv.split(separator: "\n")) == [
                    "project,task,start,stop,seconds",
                    "Work,Write report,2026-11-21T09:00:00.000Z,2026-11-21T09:45:00.000Z,2700",
                    "Timewarrior,Garden,2026-11-21T13:00:00.000Z,2026-11-21T13:20:00.000Z,1200",
                ]
                let clipped = run("report", "--since", "2026-11-20 10:00", "--until", "2026-11-20", "--json").stdout
                expect(clipped).to(contain("\"seconds\" : 1800"))
                expect(run("report", "--since", "2026-11-22", "--until", "2026-11-21").stderr).to(
                    contain("--until is not after --since"))
            }
        }
    }
}
