import Docket
import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// `docket ical sync` against a folder of .ics files, and the phone's path end
/// to end: Docket's folder ↔ vdirsyncer ↔ a real Radicale CalDAV server on
/// 127.0.0.1 ↔ vdirsyncer ↔ a second folder read and edited by todoman.
final class CalendarSpec: QuickSpec {
    override class func spec() {
        var root: URL!
        var store: URL!
        var vdir: URL!
        beforeEach {
            root = temporaryFolder("docket-calendar")
            store = temporaryStore("docket-calendar-store")
            vdir = root.appendingPathComponent("calendar")
            try! FileManager.default.createDirectory(at: vdir, withIntermediateDirectories: true)
        }
        afterEach {
            try? FileManager.default.removeItem(at: root)
            try? FileManager.default.removeItem(at: store)
        }
        func run(_ arguments: String...) -> CommandResult {
            docket(arguments, store: store, environment: ["TZ": "UTC"])
        }
        func sync(_ extra: String...) -> CommandResult {
            docket(["ical", "sync", vdir.path] + extra, store: store, environment: ["TZ": "UTC"])
        }
        func files() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: vdir.path)) ?? []).filter { $0.hasSuffix(".ics") }
                .sorted()
        }
        func file(_ id: String) -> URL { vdir.appendingPathComponent(files().first { $0.hasPrefix(id) }!) }
        func read(_ url: URL) -> String { (try? String(contentsOf: url, encoding: .utf8)) ?? "" }
        func todos() -> [[String: Any]] {
            (try? JSONSerialization.jsonObject(with: Data(run("list", "--all", "--json").stdout.utf8)))
                as? [[String: Any]] ?? []
        }
        func replace(_ url: URL, _ old: String, _ new: String) {
            try! read(url).replacingOccurrences(of: old, with: new).write(to: url, atomically: true, encoding: .utf8)
        }
        func vcalendar(_ body: String) -> String {
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Spec//EN\r\n"
                + body.split(separator: "\n").map { $0 + "\r\n" }.joined() + "END:VCALENDAR\r\n"
        }
        /// The copy todoman makes of a weekly "Gym" instance it completes: a new UID, due a week on at midnight.
        func writePhoneCopy(summary: String = "Gym", status: String = "NEEDS-ACTION") {
            try! vcalendar(
                """
                BEGIN:VTODO
                UID:gym-copy-on-the-phone
                SUMMARY:\(summary)
                DUE:20261208T000000Z
                RRULE:FREQ=WEEKLY
                STATUS:\(status)
                END:VTODO
                """
            ).write(to: vdir.appendingPathComponent("gym-copy.ics"), atomically: true, encoding: .utf8)
        }

        describe("a folder of .ics files") {
            it("gets a VTODO per todo and per task with a due date, and keeps what Docket does not know") {
                let milk = run(
                    "add", "Buy milk", "+errand", "--due", "2026-12-01", "--priority", "high", "--every", "week"
                ).stdout.trimmed
                let project = run("project", "add", "Work").stdout.trimmed
                expect(run("task", "add", project, "Write report", "--due", "2026-12-03").status) == 0
                expect(run("task", "add", project, "Someday").status) == 0
                expect(sync().stdout).to(contain("2 files written"))
                expect(files().count) == 2
                let text = read(file(milk))
                expect(text).to(contain("SUMMARY:Buy milk\r\n"))
                expect(text).to(contain("DUE;VALUE=DATE:20261201\r\n"))
                expect(text).to(contain("PRIORITY:1\r\n"))
                expect(text).to(contain("CATEGORIES:errand\r\n"))
                expect(text).to(contain("RRULE:FREQ=WEEKLY\r\n"))
                expect(read(vdir.appendingPathComponent(files().first { !$0.hasPrefix(milk) }!))).to(
                    contain("SUMMARY:Write report"))

                replace(file(milk), "END:VTODO", "X-PHONE-COLOUR:red\r\nEND:VTODO")
                expect(run("edit", milk, "Buy oat milk").status) == 0
                expect(sync().stdout).to(contain("1 file written"))
                expect(read(file(milk))).to(contain("SUMMARY:Buy oat milk"))
                expect(read(file(milk))).to(contain("X-PHONE-COLOUR:red"))
                expect(sync().stdout).to(contain("In step"))
            }

            it(
                "carries the scheduled date as DTSTART, the wait as X-DOCKET-WAIT and dependencies as RELATED-TO, both ways"
            ) {
                let primer = run("add", "Buy primer").stdout.trimmed
                let fence = run(
                    "add", "Prime fence", "--due", "2026-12-10", "--scheduled", "2026-12-05", "--wait", "2026-12-01",
                    "--depends", primer
                ).stdout.trimmed
                expect(sync().status) == 0
                let text = read(file(fence))
                expect(text).to(contain("DTSTART;VALUE=DATE:20261205\r\n"))
                expect(text).to(contain("DUE;VALUE=DATE:20261210\r\n"))
                expect(text).to(contain("X-DOCKET-WAIT;VALUE=DATE:20261201\r\n"))
                let primerID = todos().first { $0["text"] as? String == "Buy primer" }?["id"] as? String ?? ""
                expect(text).to(contain("RELATED-TO;RELTYPE=DEPENDS-ON:\(primerID.lowercased())\r\n"))

                // todoman, as a phone would: a new start date; a todo made there that the fence now depends on, by its
                // UID; a parent, which Docket keeps as it is.
                let config = root.appendingPathComponent("todoman.py")
                try! "path = \"\(vdir.path)\"\ndate_format = \"%Y-%m-%d\"\ntime_format = \"%H:%M\"\n".write(
                    to: config, atomically: true, encoding: .utf8)
                func todoman(_ arguments: String...) -> CommandResult {
                    runCommand(
                        "todoman", ["--config", config.path, "--color", "never"] + arguments,
                        environment: ["TZ": "UTC"], input: "")
                }
                let listed =
                    (try? JSONSerialization.jsonObject(
                        with: Data(todoman("--porcelain", "list", "--status", "ANY").stdout.utf8))) as? [[String: Any]]
                    ?? []
                let number = listed.first { $0["summary"] as? String == "Prime fence" }?["id"] as? Int
                expect(number).notTo(beNil())
                expect(todoman("edit", "--start", "2026-12-06", String(number ?? 0)).status) == 0
                try! vcalendar(
                    """
                    BEGIN:VTODO
                    UID:paint@example.org
                    SUMMARY:Buy paint
                    DTSTAMP:20261122T100000Z
                    END:VTODO
                    """
                ).write(to: vdir.appendingPathComponent("paint.ics"), atomically: true, encoding: .utf8)
                replace(
                    file(fence), "END:VTODO",
                    "RELATED-TO;RELTYPE=DEPENDS-ON:paint@example.org\r\nRELATED-TO;RELTYPE=PARENT:garden@example.org\r\nEND:VTODO"
                )
                expect(sync().status) == 0
                let shown = run("show", fence).stdout
                // Days, as a due date without a time is: no time shown.
                expect(shown).to(contain("scheduled 2026-12-06\n"))
                expect(shown).to(contain("wait      2026-12-01"))
                expect(shown).notTo(contain("2026-12-01 00:00"))
                expect(shown).to(contain("Buy primer (open: blocks it)"))
                expect(shown).to(contain("Buy paint (open: blocks it)"))

                // Scheduled after its due date, it cannot be DTSTART (RFC 5545): the file says it in Docket's own way.
                expect(run("schedule", fence, "2026-12-20").status) == 0
                expect(run("depend", fence, "-\(primer)").status) == 0
                expect(sync().status) == 0
                let after = read(file(fence))
                expect(after).notTo(contain("DTSTART"))
                expect(after).to(contain("X-DOCKET-SCHEDULED;VALUE=DATE:20261220\r\n"))
                expect(after).to(contain("RELATED-TO;RELTYPE=DEPENDS-ON:paint@example.org\r\n"))
                expect(after).to(contain("RELATED-TO;RELTYPE=PARENT:garden@example.org\r\n"))
                expect(after).notTo(contain(primerID.lowercased()))
                expect(sync().stdout).to(contain("In step"))
                expect(run("show", fence).stdout).to(contain("scheduled 2026-12-20"))

                // A wait at a time is a date-time, and comes back as that time.
                expect(run("wait", fence, "2026-12-02 18:30").status) == 0
                expect(sync().status) == 0
                expect(read(file(fence))).to(contain("X-DOCKET-WAIT:20261202T183000Z\r\n"))
                expect(sync().stdout).to(contain("In step"))
                expect(run("show", fence).stdout).to(contain("wait      2026-12-02 18:30"))
            }

            it("brings back what a calendar app added, edited, completed and removed, never twice") {
                let milk = run("add", "Buy milk").stdout.trimmed
                let mum = run("add", "Call mum").stdout.trimmed
                expect(sync().status) == 0
                replace(file(milk), "STATUS:NEEDS-ACTION", "STATUS:COMPLETED\r\nCOMPLETED:20261122T101500Z")
                replace(file(milk), "LAST-MODIFIED:", "X-OLD-LAST-MODIFIED:")
                try! FileManager.default.removeItem(at: file(mum))
                try! vcalendar(
                    """
                    BEGIN:VTODO
                    UID:from-the-phone@example.org
                    SUMMARY:Pick up parcel
                    DUE;VALUE=DATE:20261130
                    CATEGORIES:errand,post
                    DESCRIPTION:at the kiosk\\, not the office
                    DTSTAMP:20261122T100000Z
                    END:VTODO
                    """
                ).write(to: vdir.appendingPathComponent("phone.ics"), atomically: true, encoding: .utf8)
                let synced = sync()
                expect(synced.status) == 0
                expect(synced.stdout).to(contain("3 items changed in the store"))
                let list = todos()
                expect(
                    list.first { ($0["id"] as? String)?.lowercased().hasPrefix(milk) == true }?["completed"] as? Bool)
                    == true
                expect(list.contains { ($0["id"] as? String)?.lowercased().hasPrefix(mum) == true }) == false
                let parcel = list.first { $0["text"] as? String == "Pick up parcel" }
                expect(parcel?["tags"] as? [String]) == ["errand", "post"]
                expect(((parcel?["notes"] as? [[String: Any]])?.first?["text"]) as? String)
                    == "at the kiosk, not the office"
                expect(parcel?["dueDate"] as? String).to(beginWith("2026-11-30"))
                expect(read(vdir.appendingPathComponent("phone.ics"))).to(contain("UID:from-the-phone@example.org"))

                expect(sync().stdout).to(contain("In step"))
                expect(todos().filter { $0["text"] as? String == "Pick up parcel" }.count) == 1
                let parcelID = String((parcel?["id"] as? String ?? "").prefix(8)).lowercased()
                expect(run("rm", parcelID).status) == 0
                expect(sync().stdout).to(contain("1 file removed"))
                expect(FileManager.default.fileExists(atPath: vdir.appendingPathComponent("phone.ics").path)) == false
            }

            it("merges a concurrent edit of both sides by Docket's rules: each field to its later edit") {
                let milk = run("add", "Buy milk", "--due", "2026-12-01").stdout.trimmed
                expect(sync().status) == 0
                // On the calendar, a new title at 10:00 and a new due date; in Docket, later, a new title.
                replace(file(milk), "SUMMARY:Buy milk", "SUMMARY:Buy milk and eggs")
                replace(file(milk), "DUE;VALUE=DATE:20261201", "DUE;VALUE=DATE:20261205")
                let stamp = read(file(milk)).split(separator: "\r\n").first { $0.hasPrefix("LAST-MODIFIED:") }!
                replace(file(milk), String(stamp), "LAST-MODIFIED:20200101T100000Z")
                expect(run("edit", milk, "Buy oat milk").status) == 0
                let merged = sync()
                expect(merged.status) == 0
                expect(merged.stdout).to(
                    contain("kept \"Buy oat milk\" (ours, the later edit), lost \"Buy milk and eggs\""))
                let todo = todos().first { ($0["id"] as? String)?.lowercased().hasPrefix(milk) == true }
                expect(todo?["text"] as? String) == "Buy oat milk"
                expect(todo?["dueDate"] as? String).to(beginWith("2026-12-05"))
                expect(read(file(milk))).to(contain("SUMMARY:Buy oat milk"))
                expect(read(file(milk))).to(contain("DUE;VALUE=DATE:20261205"))
            }

            it(
                "merges a calendar's edit against the version it started from, so a later Docket edit is kept, and records it"
            ) {
                let carol = run("add", "Email Carol").stdout.trimmed
                expect(sync().status) == 0
                // The phone's copy: the version Docket wrote first, and vdirsyncer's "b wins" puts it back over a later
                // one.
                let started = read(file(carol))
                expect(started).to(contain("X-DOCKET-VERSION:"))
                expect(run("edit", carol, "Email", "Carol", "about", "the", "lease").status) == 0
                expect(sync().stdout).to(contain("1 file written"))
                let phoneEdit = started.replacingOccurrences(
                    of: "SUMMARY:Email Carol\r\n", with: "SUMMARY:Email Carol\r\nDUE;VALUE=DATE:20261205\r\n"
                )
                .replacingOccurrences(
                    of: "LAST-MODIFIED:", with: "LAST-MODIFIED:20261129T100000Z\r\nX-WAS-LAST-MODIFIED:")
                try! phoneEdit.write(to: file(carol), atomically: true, encoding: .utf8)

                let merged = sync()
                expect(merged.status) == 0
                expect(merged.stdout).to(contain("1 item changed in the store"))
                let todo = todos().first { ($0["id"] as? String)?.lowercased().hasPrefix(carol) == true }
                expect(todo?["text"] as? String) == "Email Carol about the lease"
                expect(todo?["dueDate"] as? String).to(beginWith("2026-12-05"))
                expect(read(file(carol))).to(contain("SUMMARY:Email Carol about the lease"))
                expect(read(file(carol))).to(contain("DUE;VALUE=DATE:20261205"))
                // Committed, listed as a merge and as a change undo takes back.
                expect(run("status").stdout).notTo(contain("uncommitted"))
                expect(run("merges").stdout).to(contain("Email Carol about the lease"))
                let undoList = run("undo", "--list").stdout
                expect(undoList.split(separator: "\n").first.map(String.init)).to(contain("ical sync calendar"))
                expect(run("undo").status) == 0
                let undone = todos().first { ($0["id"] as? String)?.lowercased().hasPrefix(carol) == true }
                expect(undone?["text"] as? String) == "Email Carol about the lease"
                expect(undone?["dueDate"] == nil || undone?["dueDate"] is NSNull) == true
                expect(sync().stdout).to(contain("1 file written"))
                expect(read(file(carol))).notTo(contain("DUE"))
            }

            it(
                "merges a phone's edit of a todo it made (no stamp) against the copy it made, so Docket's completion is kept"
            ) {
                let made = vcalendar(
                    """
                    BEGIN:VTODO
                    UID:from-the-phone@example.org
                    SUMMARY:Pick up parcel
                    LAST-MODIFIED:20261122T100000Z
                    END:VTODO
                    """)
                try! made.write(to: vdir.appendingPathComponent("phone.ics"), atomically: true, encoding: .utf8)
                expect(sync().stdout).to(contain("1 item changed in the store"))
                let parcel = String((todos().first?["id"] as? String ?? "").prefix(8)).lowercased()
                expect(run("done", parcel).status) == 0
                expect(sync().stdout).to(contain("1 file written"))
                // The phone edits the copy it made, and vdirsyncer's "b wins" puts it over Docket's.
                try! made.replacingOccurrences(
                    of: "SUMMARY:Pick up parcel", with: "SUMMARY:Pick up parcel at the kiosk"
                )
                .replacingOccurrences(of: "LAST-MODIFIED:20261122T100000Z", with: "LAST-MODIFIED:20261201T100000Z")
                .write(to: vdir.appendingPathComponent("phone.ics"), atomically: true, encoding: .utf8)
                expect(sync().status) == 0
                let todo = todos().first
                expect(todo?["text"] as? String) == "Pick up parcel at the kiosk"
                expect(todo?["completed"] as? Bool) == true
            }

            it("changes only the task a calendar edited: the project's order is the store's, not the folder's") {
                let project = run("project", "add", "Work").stdout.trimmed
                var ids: [String] = []
                for day in 1...8 {
                    ids.append(run("task", "add", project, "Task \(day)", "--due", "2026-12-0\(day)").stdout.trimmed)
                }
                expect(run("commit").status) == 0
                expect(sync().stdout).to(contain("8 files written"))
                replace(file(ids[3]), "SUMMARY:Task 4", "SUMMARY:Task four")
                replace(file(ids[3]), "LAST-MODIFIED:", "LAST-MODIFIED:20261201T100000Z\r\nX-WAS:")
                expect(sync().stdout).to(contain("1 item changed in the store"))
                let changed = gitCLI(["show", "--name-only", "--format=", "HEAD"], in: store).stdout.split(
                    separator: "\n")
                expect(changed.count) == 1
                expect(changed.first.map(String.init)).to(contain(ids[3].uppercased()))
                expect(sync().stdout).to(contain("In step"))
            }

            it("stops the running slip of a task the calendar completed, at the finish") {
                let project = run("project", "add", "Garden").stdout.trimmed
                let dig = run("task", "add", project, "Dig", "--due", "2026-12-01").stdout.trimmed
                expect(run("task", "start", dig).status) == 0
                expect(run("commit").status) == 0
                expect(sync().stdout).to(contain("1 file written"))
                replace(file(dig), "STATUS:NEEDS-ACTION", "STATUS:COMPLETED")
                replace(file(dig), "LAST-MODIFIED:", "LAST-MODIFIED:20261201T100000Z\r\nX-WAS:")
                expect(sync().stdout).to(contain("1 item changed in the store"))
                let task = try Store.open(at: store).load().state.projects[0].tasks[0]
                expect(task.state) == .finished
                expect(task.runningSlip).to(beNil())
                expect(task.timeSlips.first?.stop) == task.completedDate
            }

            it("records a value the calendar lost, and merges restore puts it back") {
                let milk = run("add", "Buy milk").stdout.trimmed
                expect(sync().status) == 0
                replace(file(milk), "SUMMARY:Buy milk", "SUMMARY:Buy milk and eggs")
                replace(file(milk), "LAST-MODIFIED:", "LAST-MODIFIED:20200101T100000Z\r\nX-WAS:")
                expect(run("edit", milk, "Buy oat milk").status) == 0
                expect(sync().stdout).to(contain("lost \"Buy milk and eggs\""))
                let merges = run("merges").stdout
                expect(merges).to(contain("lost \"Buy milk and eggs\""))
                let commit = String(merges.split(separator: " ").first ?? "")
                let restored = run("merges", "restore", commit, "1")
                expect(restored.status) == 0
                expect(
                    todos().first { ($0["id"] as? String)?.lowercased().hasPrefix(milk) == true }?["text"] as? String)
                    == "Buy milk and eggs"
                expect(sync().stdout).to(contain("1 file written"))
                expect(read(file(milk))).to(contain("SUMMARY:Buy milk and eggs"))
            }

            it("takes an edit made to a file the calendar kept over Docket's newer one, against what it read before") {
                let milk = run("add", "Buy milk").stdout.trimmed
                expect(sync().status) == 0
                replace(file(milk), "SUMMARY:Buy milk", "SUMMARY:Buy oat milk")
                let phone = read(file(milk))
                expect(run("due", milk, "2030-01-01").status) == 0
                expect(run("commit").status) == 0
                expect(sync().stdout).to(contain("1 file written"))
                // vdirsyncer keeps the server's version (the phone's) over the file Docket wrote, and the phone
                // then sets the text back as it was at first.
                try! phone.write(to: file(milk), atomically: true, encoding: .utf8)
                replace(file(milk), "SUMMARY:Buy oat milk", "SUMMARY:Buy milk")
                expect(sync().status) == 0
                let todo = todos().first { ($0["id"] as? String)?.lowercased().hasPrefix(milk) == true }
                expect(todo?["text"] as? String) == "Buy milk"
                expect(todo?["dueDate"] as? String) == "2030-01-01"
            }

            it("keeps the record of a calendar sync killed before its commit, for the next commit") {
                let milk = run("add", "Buy milk").stdout.trimmed
                expect(sync().status) == 0
                replace(file(milk), "SUMMARY:Buy milk", "SUMMARY:Buy milk and eggs")
                replace(file(milk), "LAST-MODIFIED:", "LAST-MODIFIED:20200101T100000Z\r\nX-WAS:")
                expect(run("edit", milk, "Buy oat milk").status) == 0
                let killed = docket(
                    ["ical", "sync", vdir.path], store: store,
                    environment: ["TZ": "UTC", "DOCKET_FAULT": "after-calendar-store"])
                expect(killed.status) != 0
                expect(run("commit").status) == 0
                expect(run("merges").stdout).to(contain("lost \"Buy milk and eggs\""))
                expect(run("log").stdout).to(contain("Calendar sync (calendar)"))
                expect(sync().status) == 0
                expect(read(file(milk))).to(contain("SUMMARY:Buy oat milk"))
            }

            it("takes a CANCELLED todo as a removal, and leaves alone one it never had") {
                let milk = run("add", "Buy milk").stdout.trimmed
                expect(sync().status) == 0
                replace(file(milk), "STATUS:NEEDS-ACTION", "STATUS:CANCELLED")
                replace(file(milk), "LAST-MODIFIED:", "LAST-MODIFIED:20261126T100000Z\r\nX-WAS:")
                try! vcalendar(
                    """
                    BEGIN:VTODO
                    UID:cancelled-on-the-phone
                    SUMMARY:Never mind
                    STATUS:CANCELLED
                    END:VTODO
                    """
                ).write(to: vdir.appendingPathComponent("phone.ics"), atomically: true, encoding: .utf8)
                let synced = sync()
                expect(synced.status) == 0
                expect(synced.stdout).to(contain("1 item changed in the store"))
                expect(todos().contains { ($0["id"] as? String)?.lowercased().hasPrefix(milk) == true }) == false
                expect(todos().contains { $0["text"] as? String == "Never mind" }) == false
                expect(run("log").stdout).to(contain("remove 1 todo"))
                expect(FileManager.default.fileExists(atPath: vdir.appendingPathComponent("phone.ics").path)) == true
                expect(files().count) == 1
                expect(sync().stdout).to(contain("In step"))
            }

            it("records an edit made in Docket that won over the calendar's cancellation") {
                let milk = run("add", "Buy milk").stdout.trimmed
                expect(sync().status) == 0
                replace(file(milk), "STATUS:NEEDS-ACTION", "STATUS:CANCELLED")
                replace(file(milk), "LAST-MODIFIED:", "LAST-MODIFIED:20261126T100000Z\r\nX-WAS:")
                expect(run("edit", milk, "Buy oat milk").status) == 0
                expect(run("commit").status) == 0
                let before = run("log").stdout
                expect(sync().status) == 0
                expect(
                    todos().first { ($0["id"] as? String)?.lowercased().hasPrefix(milk) == true }?["text"] as? String)
                    == "Buy oat milk"
                expect(run("log").stdout) != before
                expect(run("log").stdout).to(contain("Calendar sync"))
                expect(run("merges").stdout).to(
                    contain("[1] todo 'Buy oat milk': kept, edited on ours after its removal on theirs"))
                expect(sync().stdout).to(contain("In step"))
            }

            it("puts back the calendar's cancellation an edit in Docket won over, when asked: the todo goes again") {
                let milk = run("add", "Buy milk").stdout.trimmed
                expect(sync().status) == 0
                replace(file(milk), "STATUS:NEEDS-ACTION", "STATUS:CANCELLED")
                replace(file(milk), "LAST-MODIFIED:", "LAST-MODIFIED:20261126T100000Z\r\nX-WAS:")
                expect(run("edit", milk, "Buy oat milk").status) == 0
                expect(sync().status) == 0
                let commit = String(run("merges").stdout.split(separator: " ").first ?? "")
                let restored = run("merges", "restore", commit, "1")
                expect(restored.status) == 0
                expect(restored.stdout).to(contain("Removed todo 'Buy oat milk' again"))
                expect(todos().contains { ($0["id"] as? String)?.lowercased().hasPrefix(milk) == true }) == false
                expect(run("merges", "restore", commit, "1").stdout).to(contain("Already removed: todo 'Buy oat milk'"))
                // The calendar's file goes too, and the two sides are in step.
                expect(sync().stdout).to(contain("1 file removed"))
                expect(files()) == []
                expect(sync().stdout).to(contain("In step"))
            }

            it("takes the RRULEs phones write, and sets aside one it cannot keep while the rest syncs, with a record") {
                let milk = run("add", "Buy milk").stdout.trimmed
                expect(sync().status) == 0
                replace(file(milk), "SUMMARY:Buy milk", "SUMMARY:Buy oat milk")
                try! vcalendar(
                    """
                    BEGIN:VTODO
                    UID:gym-on-the-phone
                    SUMMARY:Gym
                    DUE;VALUE=DATE:20261201
                    RRULE:FREQ=WEEKLY;BYDAY=TU,TH
                    END:VTODO
                    """
                ).write(to: vdir.appendingPathComponent("gym.ics"), atomically: true, encoding: .utf8)
                try! vcalendar(
                    """
                    BEGIN:VTODO
                    UID:plants-on-the-phone
                    SUMMARY:Water plants
                    DUE;VALUE=DATE:20261201
                    RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=TU;UNTIL=20261229
                    END:VTODO
                    """
                ).write(to: vdir.appendingPathComponent("plants.ics"), atomically: true, encoding: .utf8)
                try! vcalendar(
                    """
                    BEGIN:VTODO
                    UID:pill-on-the-phone
                    SUMMARY:Pill
                    DUE;VALUE=DATE:20261201
                    RRULE:FREQ=DAILY;COUNT=3
                    END:VTODO
                    """
                ).write(to: vdir.appendingPathComponent("pill.ics"), atomically: true, encoding: .utf8)
                let synced = sync()
                expect(synced.status) == 0
                expect(synced.stderr).to(contain("Set aside, the rest synced: "))
                expect(synced.stderr).to(contain("gym.ics, todo 'Gym': RRULE part BYDAY=TU,TH"))
                let texts = todos().compactMap { $0["text"] as? String }
                expect(texts).to(contain("Buy oat milk", "Water plants", "Pill"))
                expect(texts).notTo(contain("Gym"))
                expect(gitCLI(["log", "-1", "--format=%B"], in: store).stdout).to(contain("Set aside, the rest synced"))
                let plants = todos().first { $0["text"] as? String == "Water plants" }?["id"] as? String ?? "none"
                expect(run("show", String(plants.prefix(8))).stdout).to(
                    contain("every 2 weeks from the due date until 2026-12-29,"))
                let pill = todos().first { $0["text"] as? String == "Pill" }?["id"] as? String ?? "none"
                expect(run("show", String(pill.prefix(8))).stdout).to(contain("until 2026-12-03,"))
                expect(FileManager.default.fileExists(atPath: vdir.appendingPathComponent("gym.ics").path)) == true
                // Set aside once, recorded once.
                let again = sync()
                expect(again.stderr).to(contain("Set aside"))
                expect(again.stdout).to(contain("In step"))
            }

            it("completes one instance of a series that a calendar completed by an override, and the series goes on") {
                let gym = run("add", "Gym", "--due", "2026-12-01", "--every", "week").stdout.trimmed
                expect(sync().status) == 0
                replace(
                    file(gym), "END:VCALENDAR",
                    """
                    BEGIN:VTODO\r
                    UID:\((todos()[0]["id"] as! String).lowercased())\r
                    RECURRENCE-ID;VALUE=DATE:20261201\r
                    SUMMARY:Gym\r
                    STATUS:COMPLETED\r
                    COMPLETED:20261201T180000Z\r
                    LAST-MODIFIED:20261201T180000Z\r
                    END:VTODO\r
                    END:VCALENDAR
                    """)
                let synced = sync()
                expect(synced.status) == 0
                let list = todos()
                expect(list.count) == 2
                expect(list.first { ($0["id"] as? String)?.lowercased().hasPrefix(gym) == true }?["completed"] as? Bool)
                    == true
                let next = list.first { ($0["completed"] as? Bool) == false }
                expect(next?["dueDate"] as? String).to(beginWith("2026-12-08"))
                expect(((next?["recurrence"] as? [String: Any])?["series"] as? String)?.lowercased()).to(beginWith(gym))
                expect(files().count) == 2
            }

            it("takes a phone's copy of a completed instance as the next one, though its summary changed first") {
                let gym = run("add", "Gym", "--due", "2026-12-01", "--every", "week").stdout.trimmed
                expect(sync().status) == 0
                // As todoman completes an instance: its RRULE goes, and a copy with a new UID is due a week on, at
                // midnight; here the copy's summary is edited on the phone before Docket sees either.
                replace(file(gym), "STATUS:NEEDS-ACTION", "STATUS:COMPLETED\r\nCOMPLETED:20261201T180000Z")
                replace(file(gym), "RRULE:FREQ=WEEKLY\r\n", "")
                writePhoneCopy(summary: "Gym at seven")
                expect(sync().status) == 0
                let list = todos()
                expect(list.count) == 2
                let done = list.first { ($0["id"] as? String)?.lowercased().hasPrefix(gym) == true }
                expect(done?["completed"] as? Bool) == true
                let next = list.first { ($0["completed"] as? Bool) == false }
                expect(next?["text"] as? String) == "Gym at seven"
                expect(next?["dueDate"] as? String) == "2026-12-08"
                let series = (done?["recurrence"] as? [String: Any])?["series"] as? String
                expect((next?["recurrence"] as? [String: Any])?["series"] as? String) == series
                expect((next?["recurrence"] as? [String: Any])?["occurrence"] as? Int) == 2
                expect(sync().stdout).to(contain("In step"))
            }

            it("takes a phone's copy of an instance Docket completed too as the next instance Docket made: one todo") {
                let gym = run("add", "Gym", "--due", "2026-12-01", "--every", "week").stdout.trimmed
                expect(sync().status) == 0
                let before = read(file(gym))
                expect(run("done", gym).status) == 0
                expect(sync().status) == 0
                expect(files().count) == 2
                let next = todos().first { ($0["completed"] as? Bool) == false }?["id"] as? String ?? "none"
                // The phone had not seen Docket's `done`: it completes the instance as it had it, as todoman does, and
                // its copy's summary is edited there before Docket sees it.
                try! before.replacingOccurrences(
                    of: "STATUS:NEEDS-ACTION", with: "STATUS:COMPLETED\r\nCOMPLETED:20261201T180000Z"
                )
                .replacingOccurrences(of: "RRULE:FREQ=WEEKLY\r\n", with: "")
                .write(to: file(gym), atomically: true, encoding: .utf8)
                writePhoneCopy(summary: "Gym at seven")
                let synced = sync()
                expect(synced.status) == 0
                expect(synced.stdout).to(contain("copy 'Gym at seven' is the next instance Docket made"))
                let open = todos().filter { ($0["completed"] as? Bool) == false }
                expect(open.count) == 1
                expect(open.first?["id"] as? String) == next
                expect(open.first?["text"] as? String) == "Gym at seven"
                expect(open.first?["dueDate"] as? String) == "2026-12-08"
                // The copy's file goes (vdirsyncer takes that to the phone), so the phone holds one todo for it too.
                expect(files().count) == 2
                expect(files().contains("gym-copy.ics")) == false
                expect(read(file(next.lowercased()))).to(contain("SUMMARY:Gym at seven"))
                expect(sync().stdout).to(contain("In step"))

                // The copy edited on the phone before its removal reached it: vdirsyncer keeps the edit over the
                // removal and brings it back; the edit goes to the next instance, and the copy's file goes again.
                writePhoneCopy(summary: "Gym at eight")
                let again = sync()
                expect(again.status) == 0
                expect(again.stderr).to(beEmpty())
                let still = todos().filter { ($0["completed"] as? Bool) == false }
                expect(still.count) == 1
                expect(still.first?["text"] as? String) == "Gym at eight"
                expect(files().contains("gym-copy.ics")) == false
                expect(sync().stdout).to(contain("In step"))

                // Back cancelled: the instance it stands for goes, as a cancelled file of its own would.
                writePhoneCopy(summary: "Gym at eight", status: "CANCELLED")
                let cancelled = sync()
                expect(cancelled.status) == 0
                expect(cancelled.stderr).to(beEmpty())
                expect(todos().filter { ($0["completed"] as? Bool) == false }).to(beEmpty())
                expect(files().count) == 1
                expect(sync().stdout).to(contain("In step"))
            }

            it("brings a removed done instance back with its series when the phone edited it after the removal") {
                let gym = run("add", "Gym", "--due", "2026-12-01", "--every", "week").stdout.trimmed
                expect(run("done", gym).status) == 0
                expect(run("commit").status) == 0
                expect(sync().status) == 0
                let name = files().first { $0.hasPrefix(gym) }!
                let phone = read(file(gym))
                expect(run("rm", gym).status) == 0
                expect(run("commit").status) == 0
                expect(sync().status) == 0
                expect(files().contains(name)) == false
                // Edited on the phone before the removal reached it: vdirsyncer keeps the edit and brings it back.
                let formatter = DateFormatter()
                formatter.locale = Locale(identifier: "en_US_POSIX")
                formatter.timeZone = TimeZone(identifier: "UTC")
                formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
                let later = formatter.string(from: Date().addingTimeInterval(3600))
                try! phone.replacingOccurrences(of: "SUMMARY:Gym", with: "SUMMARY:Gym with Sam")
                    .replacingOccurrences(
                        of: "LAST-MODIFIED:[0-9TZ]+", with: "LAST-MODIFIED:" + later, options: .regularExpression
                    )
                    .write(to: vdir.appendingPathComponent(name), atomically: true, encoding: .utf8)
                expect(sync().stdout).to(contain("kept, edited on theirs after its removal on ours"))
                let back = todos().first { ($0["id"] as? String)?.lowercased().hasPrefix(gym) == true }
                expect(back?["text"] as? String) == "Gym with Sam"
                let next = todos().first { ($0["completed"] as? Bool) == false }
                expect((back?["recurrence"] as? [String: Any])?["series"] as? String).notTo(beNil())
                expect((back?["recurrence"] as? [String: Any])?["series"] as? String)
                    == (next?["recurrence"] as? [String: Any])?["series"] as? String
            }

            it("takes a phone's dependency on its copy of a completed instance as one on the next instance") {
                let gym = run("add", "Gym", "--due", "2026-12-01", "--every", "week").stdout.trimmed
                let bag = run("add", "Pack the bag").stdout.trimmed
                expect(sync().status) == 0
                replace(file(gym), "STATUS:NEEDS-ACTION", "STATUS:COMPLETED\r\nCOMPLETED:20261201T180000Z")
                replace(file(gym), "RRULE:FREQ=WEEKLY\r\n", "")
                writePhoneCopy()
                expect(sync().status) == 0
                let next = todos().first { $0["text"] as? String == "Gym" && ($0["completed"] as? Bool) == false }
                let nextID = (next?["id"] as? String)?.uppercased()
                expect(nextID).notTo(beNil())
                // The phone makes the bag depend on the copy, by the copy's UID.
                replace(
                    file(bag), "SUMMARY:Pack the bag\r\n",
                    "SUMMARY:Pack the bag\r\nRELATED-TO;RELTYPE=DEPENDS-ON:gym-copy-on-the-phone\r\n")
                expect(sync().status) == 0
                let packed = todos().first { ($0["id"] as? String)?.lowercased().hasPrefix(bag) == true }
                expect((packed?["dependencies"] as? [String])?.map { $0.uppercased() }) == [nextID ?? ""]
                expect(todos().count) == 3
                expect(read(file(bag))).to(contain("RELATED-TO;RELTYPE=DEPENDS-ON:gym-copy-on-the-phone"))
            }

            it("refuses a file nested 60,000 components deep, with --skip-bad too, and takes nothing from it") {
                let deep =
                    "BEGIN:VCALENDAR\r\nBEGIN:VTODO\r\nUID:deep\r\nSUMMARY:Deep\r\n"
                    + String(repeating: "BEGIN:X\r\n", count: 60_000)
                    + String(repeating: "END:X\r\n", count: 60_000) + "END:VTODO\r\nEND:VCALENDAR\r\n"
                try! deep.write(to: vdir.appendingPathComponent("deep.ics"), atomically: true, encoding: .utf8)
                let refused = sync()
                expect(refused.status) == 1
                expect(refused.stderr).to(
                    contain("deep.ics: it is not iCalendar: its components are nested more than 16 deep"))
                let skipped = sync("--skip-bad")
                expect(skipped.status) == 0
                expect(run("list").stdout).notTo(contain("Deep"))
            }

            it("names a file it cannot read and syncs nothing, unless asked to sync the rest") {
                let milk = run("add", "Buy milk").stdout.trimmed
                expect(sync().status) == 0
                replace(file(milk), "SUMMARY:Buy milk", "SUMMARY:Buy oat milk")
                try! vcalendar("BEGIN:VTODO\nUID:a\nSUMMARY:One\nEND:VTODO\nBEGIN:VTODO\nUID:b\nSUMMARY:Two\nEND:VTODO")
                    .write(to: vdir.appendingPathComponent("two.ics"), atomically: true, encoding: .utf8)
                try! vcalendar("BEGIN:VEVENT\nUID:c\nSUMMARY:Meeting\nEND:VEVENT").write(
                    to: vdir.appendingPathComponent("event.ics"), atomically: true, encoding: .utf8)
                try! vcalendar("BEGIN:VTODO\nUID:d\nSUMMARY:Gym\nRRULE:FREQ=WEEKLY;BYSETPOS=2\nEND:VTODO")
                    .write(to: vdir.appendingPathComponent("count.ics"), atomically: true, encoding: .utf8)
                try! Data(
                    "BEGIN:VCALENDAR\r\nBEGIN:VTODO\r\nSUMMARY:Caf\u{E9}".utf8.map { $0 == 0xC3 ? 0xE9 : $0 }.filter {
                        $0 != 0xA9
                    }
                )
                .write(to: vdir.appendingPathComponent("latin1.ics"))
                let refused = sync()
                expect(refused.status) != 0
                expect(refused.stderr).to(contain("two.ics: it holds 2 VTODOs, not one"))
                expect(refused.stderr).to(contain("event.ics: it holds no VTODO"))
                // A rule Docket cannot keep sets that one todo aside; it stops nothing.
                expect(refused.stderr).notTo(contain("count.ics"))
                expect(refused.stderr).to(contain("latin1.ics: it is not UTF-8 text"))
                expect(refused.stderr).to(contain("run again with --skip-bad to sync the rest"))
                expect(run("list").stdout).to(contain("Buy milk"))
                expect(run("list").stdout).notTo(contain("Buy oat milk"))

                let rest = sync("--skip-bad")
                expect(rest.status) == 0
                expect(rest.stderr).to(contain("Skipped that file: "))
                expect(run("list").stdout).to(contain("Buy oat milk"))
                expect(run("list").stdout).notTo(contain("Gym"))
                expect(FileManager.default.fileExists(atPath: vdir.appendingPathComponent("count.ics").path)) == true
            }
        }

        /// Docket's folder ↔ vdirsyncer (the README's pair, "b wins") ↔ Radicale on 127.0.0.1 ↔ vdirsyncer ↔ a folder
        /// todoman reads.
        struct Phone {
            let vdirsyncer: ([String]) -> CommandResult
            let todoman: ([String]) -> CommandResult
            let todos: () -> [[String: Any]]
            let stop: () -> Void
        }
        func phone() -> Phone {
            let phone = root.appendingPathComponent("phone")
            let server = CalendarServer(root: root, pairs: [("docket", vdir), ("phone", phone)])
            expect(server.isRunning) == true
            let environment = server.environment
            let vdirsyncer = server.vdirsyncer
            let todomanConfig = root.appendingPathComponent("todoman.py")
            try!
                "path = \"\(phone.path)\"\ndate_format = \"%Y-%m-%d\"\ntime_format = \"%H:%M\"\ndefault_list = \"phone\"\n"
                .write(to: todomanConfig, atomically: true, encoding: .utf8)
            func todoman(_ arguments: [String]) -> CommandResult {
                runCommand(
                    "todoman", ["--config", todomanConfig.path, "--color", "never"] + arguments,
                    environment: environment, input: "")
            }
            func phoneTodos() -> [[String: Any]] {
                (try? JSONSerialization.jsonObject(
                    with: Data(todoman(["--porcelain", "list", "--status", "ANY"]).stdout.utf8))) as? [[String: Any]]
                    ?? []
            }
            expect(vdirsyncer(["discover"]).status) == 0
            return Phone(vdirsyncer: vdirsyncer, todoman: todoman, todos: phoneTodos, stop: server.stop)
        }

        describe("the phone's path: vdirsyncer, Radicale and todoman") {
            it("reaches todoman through a CalDAV server, and a todo completed there comes back done") {
                let phone = phone()
                defer { phone.stop() }
                func vdirsyncer(_ arguments: String...) -> CommandResult { phone.vdirsyncer(arguments) }
                func todoman(_ arguments: String...) -> CommandResult { phone.todoman(arguments) }
                func phoneTodos() -> [[String: Any]] { phone.todos() }
                func roundTrip() {
                    expect(sync().status) == 0
                    expect(vdirsyncer("sync", "docket").status) == 0
                    expect(vdirsyncer("sync", "phone").status) == 0
                }

                let milk = run("add", "Buy milk", "--due", "2026-12-01").stdout.trimmed
                let mum = run("add", "Call mum").stdout.trimmed
                roundTrip()
                let listed = todoman("list").stdout
                expect(listed).to(contain("Buy milk"))
                expect(listed).to(contain("Call mum"))

                // Completed on the phone; meanwhile, a new todo and an edit in Docket.
                let number = phoneTodos().first { $0["summary"] as? String == "Call mum" }?["id"] as? Int
                expect(number).notTo(beNil())
                expect(todoman("done", String(number ?? 0)).status) == 0
                expect(todoman("new", "-l", "phone", "Pick up parcel").status) == 0
                let water = run("add", "Water plants").stdout.trimmed
                expect(water).notTo(beEmpty())
                expect(run("edit", milk, "Buy oat milk").status) == 0
                expect(vdirsyncer("sync", "phone").status) == 0
                expect(vdirsyncer("sync", "docket").status) == 0
                roundTrip()

                let list = todos()
                expect(list.first { ($0["id"] as? String)?.lowercased().hasPrefix(mum) == true }?["completed"] as? Bool)
                    == true
                expect(list.filter { $0["text"] as? String == "Pick up parcel" }.count) == 1
                let phoneList = todoman("list").stdout
                expect(phoneList).to(contain("Water plants"))
                expect(phoneList).to(contain("Buy oat milk"))
                expect(phoneList).notTo(contain("Call mum"))

                // Everything is in step: another round changes nothing.
                expect(sync().stdout).to(contain("In step"))
            }

            it(
                "keeps a Docket edit when the phone edits the same todo and vdirsyncer's \"b wins\" takes the phone's version"
            ) {
                let phone = phone()
                defer { phone.stop() }
                func roundTrip() {
                    expect(sync().status) == 0
                    expect(phone.vdirsyncer(["sync", "docket"]).status) == 0
                    expect(phone.vdirsyncer(["sync", "phone"]).status) == 0
                }
                let carol = run("add", "Email Carol").stdout.trimmed
                roundTrip()
                // The order: an edit in Docket goes to the folder; the phone edits its older copy; vdirsyncer
                // meets both.
                expect(run("edit", carol, "Email Carol about the lease").status) == 0
                expect(phone.vdirsyncer(["sync", "docket"]).status) == 0
                expect(sync().stdout).to(contain("1 file written"))
                let number = phone.todos().first { $0["summary"] as? String == "Email Carol" }?["id"] as? Int
                expect(number).notTo(beNil())
                expect(phone.todoman(["edit", "--due", "2026-12-05", String(number ?? 0)]).status) == 0
                expect(phone.vdirsyncer(["sync", "phone"]).status) == 0
                expect(phone.vdirsyncer(["sync", "docket"]).status) == 0
                expect(read(file(carol))).to(contain("DUE;VALUE=DATE:20261205"))
                expect(read(file(carol))).notTo(contain("about the lease"))
                let merged = sync()
                expect(merged.stdout).to(contain("1 item changed in the store"))
                let todo = todos().first { ($0["id"] as? String)?.lowercased().hasPrefix(carol) == true }
                expect(todo?["text"] as? String) == "Email Carol about the lease"
                expect(todo?["dueDate"] as? String).to(beginWith("2026-12-05"))
                roundTrip()
                let onPhone = phone.todos().first { ($0["summary"] as? String)?.hasPrefix("Email Carol") == true }
                expect(onPhone?["summary"] as? String) == "Email Carol about the lease"
                expect(onPhone?["due"]).notTo(beNil())
                expect(sync().stdout).to(contain("In step"))
            }

            it("keeps a series going when todoman completes one instance (it ends the series and starts a new one)") {
                let phone = phone()
                defer { phone.stop() }
                let plants = run("add", "Water plants", "--due", "2026-12-01", "--every", "week").stdout.trimmed
                expect(sync().status) == 0
                expect(phone.vdirsyncer(["sync", "docket"]).status) == 0
                expect(phone.vdirsyncer(["sync", "phone"]).status) == 0
                let number = phone.todos().first { $0["summary"] as? String == "Water plants" }?["id"] as? Int
                expect(phone.todoman(["done", String(number ?? 0)]).status) == 0
                expect(phone.vdirsyncer(["sync", "phone"]).status) == 0
                expect(phone.vdirsyncer(["sync", "docket"]).status) == 0
                expect(sync().status) == 0
                let list = todos().filter { $0["text"] as? String == "Water plants" }
                expect(list.count) == 2
                let done = list.first { ($0["id"] as? String)?.lowercased().hasPrefix(plants) == true }
                expect(done?["completed"] as? Bool) == true
                let next = list.first { ($0["completed"] as? Bool) == false }
                let series = (done?["recurrence"] as? [String: Any])?["series"] as? String
                expect(series).notTo(beNil())
                expect((next?["recurrence"] as? [String: Any])?["series"] as? String) == series
                expect((next?["recurrence"] as? [String: Any])?["occurrence"] as? Int) == 2
                // All day, as the series was: todoman writes its copy's DUE as midnight.
                expect(next?["dueDate"] as? String) == "2026-12-08"
                expect(phone.vdirsyncer(["sync", "docket"]).status) == 0
                expect(phone.vdirsyncer(["sync", "phone"]).status) == 0
                let open = phone.todos().filter {
                    $0["summary"] as? String == "Water plants" && ($0["completed"] as? Bool) != true
                }
                expect(open.count) == 1
                expect(sync().stdout).to(contain("In step"))
            }
        }
    }
}

extension String {
    fileprivate var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
