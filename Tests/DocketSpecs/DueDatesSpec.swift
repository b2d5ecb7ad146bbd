import Docket
import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// Due dates on the command line, in Europe/Berlin: times as people say them, and a date without a time kept
/// apart from a time through every command and door.
final class DueDatesSpec: QuickSpec {
    override class func spec() {
        let berlin = TimeZone(identifier: "Europe/Berlin")!
        var folder: URL!
        beforeEach {
            folder = temporaryStore("docket-dues")
            DocketClock.use(timeZone: berlin)
        }
        afterEach {
            DocketClock.reset()
            try? FileManager.default.removeItem(at: folder)
        }
        @discardableResult func run(_ arguments: String..., environment: [String: String] = [:]) -> CommandResult {
            docket(arguments, store: folder, environment: ["TZ": "Europe/Berlin"].merging(environment) { $1 })
        }
        @discardableResult func add(_ arguments: String...) -> String {
            docket(["add"] + arguments, store: folder, environment: ["TZ": "Europe/Berlin"]).stdout.trimmingCharacters(
                in: .whitespacesAndNewlines)
        }
        func todo(_ short: String) -> TodoItem? {
            (try? Store.open(at: folder).load().state.todos)?.first { $0.id.uuidString.lowercased().hasPrefix(short) }
        }
        func file(_ short: String) -> String {
            guard let id = todo(short)?.id else { return "" }
            return (try? String(contentsOf: folder.appendingPathComponent(StoreLayout.todo(id)), encoding: .utf8)) ?? ""
        }
        /// Today in Berlin, before and after `body` ran: a spec that crosses midnight accepts either day.
        func days(_ body: () -> Void) -> [CalendarDay] {
            let before = CalendarDay(Date(), in: berlin)
            body()
            return [before, CalendarDay(Date(), in: berlin)]
        }
        func at(_ text: String) -> Date { ISODate.date(from: text)! }

        describe("a date typed as people say it") {
            it("takes several words after --due without quotes, and leaves the text and other options alone") {
                var id = ""
                let today = days { id = add("Call", "mom", "--due", "next", "week", "--priority", "high", "+family") }
                let call = todo(id)
                expect(call?.text) == "Call mom"
                expect(call?.tags) == ["family"]
                expect(call?.priority) == .high
                let mondays = today.map { $0.adding(days: 8 - ($0.weekday == 0 ? 7 : $0.weekday)) }
                expect(call.map { mondays.map(DueDate.day).contains($0.due) }) == true
            }
            it("says so when the time does not exist that day (clocks going forward), and takes the time after") {
                let added = run("add", "Call", "--due", "2030-03-31", "02:30")
                expect(added.status) == 0
                let note = "02:30 does not exist on 2030-03-31 in Europe/Berlin: the clocks skip it; taken as 03:30\n"
                expect(added.stderr) == note
                let id = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                expect(file(id)).to(contain("\"dueDate\" : \"2030-03-31T03:30:00.000+02:00\""))
                expect(run("due", id, "2030-03-31", "2:30am").stderr) == note
                expect(run("due", id, "2030-03-31", "01:30").stderr) == ""
                expect(run("due", id, "2030-10-27", "02:30").stderr) == ""
            }
            it("takes a day and a time, the text before or after it") {
                var id = ""
                let today = days { id = add("--due", "tomorrow", "9am", "Call", "mom") }
                expect(todo(id)?.text) == "Call mom"
                let nine = today.map {
                    DueDate.date($0.adding(days: 1).start(in: berlin).addingTimeInterval(9 * 3600))
                }
                expect(todo(id).map { nine.contains($0.due) }) == true
                let dinner = add("Dinner", "--due", "2030-12-03", "17:30")
                expect(todo(dinner)?.due) == .date(at("2030-12-03T17:30:00+01:00"))
            }
            it("takes one value alone after --due=, so text that reads as a time stays text") {
                let walk = add("--due=2030-12-06", "Noon", "walk")
                expect(todo(walk)?.text) == "Noon walk"
                expect(todo(walk)?.due) == .day(CalendarDay("2030-12-06")!)
                let lunch = add("--due", "2030-12-06", "Noon", "walk")
                expect(todo(lunch)?.text) == "walk"
                expect(todo(lunch)?.due) == .date(at("2030-12-06T12:00:00+01:00"))
            }
            it("sets a day and a time with 'docket due', quotes optional") {
                let milk = add("Buy milk")
                expect(run("due", milk, "2030-12-06", "14:00").status) == 0
                expect(todo(milk)?.due) == .date(at("2030-12-06T14:00:00+01:00"))
                expect(run("due", milk, "in", "3", "days").status) == 0
                expect(todo(milk)?.due.hasTime) == false
            }
            it("refuses a phrase it does not know, listing what it takes, and changes nothing") {
                let milk = add("Buy milk", "--due", "2030-12-06")
                let refused = run("due", milk, "someday", "soon")
                expect(refused.status) == 64
                expect(refused.stderr).to(contain("'someday soon' is not a date; use today, tomorrow, a weekday (fri)"))
                expect(refused.stderr).to(contain("(9am, 9:30pm, 17:30, noon)"))
                expect(todo(milk)?.due) == .day(CalendarDay("2030-12-06")!)
            }
        }

        describe("a due date without a time") {
            it("is kept as the day in the file, and a time with its local offset") {
                let milk = add("Buy milk", "--due", "2030-12-03")
                let call = add("Call", "--due", "2030-12-03", "12:00")
                expect(file(milk)).to(contain("\"dueDate\" : \"2030-12-03\""))
                expect(file(call)).to(contain("\"dueDate\" : \"2030-12-03T12:00:00.000+01:00\""))
            }
            it("shows without a time in show, lists and the editor form; a time shows where set") {
                let milk = add("Buy milk", "--due", "2030-12-03")
                let call = add("Call Anna", "--due", "2030-12-03", "17:30")
                expect(run("show", milk).stdout).to(contain("due       2030-12-03 (due in "))
                expect(run("show", milk).stdout).toNot(contain("12:00"))
                expect(run("show", call).stdout).to(contain("due       2030-12-03 17:30 (due in "))
                let list = run("list").stdout
                expect(list).to(contain("Buy milk  due in "))
                expect(list).to(match("Call Anna  due in [0-9]+ days at 17:30"))
                let form = folder.appendingPathComponent("form.txt")
                let editor = folder.appendingPathComponent("editor.sh")
                try! Data("#!/bin/sh\ncp \"$1\" '\(form.path)'\n".utf8).write(to: editor)
                chmod(editor.path, 0o755)
                run("edit", milk, environment: ["EDITOR": editor.path, "VISUAL": ""])
                expect(try? String(contentsOf: form, encoding: .utf8)).to(contain("\ndue: 2030-12-03\n"))
                run("edit", call, environment: ["EDITOR": editor.path, "VISUAL": ""])
                expect(try? String(contentsOf: form, encoding: .utf8)).to(contain("\ndue: 2030-12-03 17:30\n"))
            }
            it("shows the time in lists when it is near: today, tomorrow, a weekday") {
                let today = days {
                    _ = add("Stand-up", "--due", "tomorrow", "9:15am")
                    _ = add("Shop", "--due", "tomorrow")
                }
                let list = run("list").stdout
                expect(list).to(contain("Stand-up  due tomorrow 09:15"))
                expect(list).to(contain("Shop  due tomorrow\n"))
                let friday = today[1].adding(days: 2)
                _ = add("Review", "--due", friday.description, "14:00")
                let names = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]
                expect(run("list").stdout).to(contain("Review  due \(names[friday.weekday]) 14:00"))
            }
            it("reads a file an older docket wrote (noon here, in UTC) as the day, as before") {
                let milk = add("Buy milk", "--due", "2030-12-03")
                let path = folder.appendingPathComponent(StoreLayout.todo(todo(milk)?.id ?? UUID()))
                let older = file(milk).replacingOccurrences(
                    of: "\"dueDate\" : \"2030-12-03\"", with: "\"dueDate\" : \"2030-12-03T11:00:00.000Z\"")
                try! older.write(to: path, atomically: true, encoding: .utf8)
                expect(run("show", milk).stdout).to(contain("due       2030-12-03 (due in "))
                expect(run("ical", "export").stdout).to(contain("DUE;VALUE=DATE:20301203\r\n"))
            }
            it("stays a day for Berlin after a machine in New York edits another field of such a file") {
                let milk = add("Buy milk", "--due", "2030-12-03")
                let path = folder.appendingPathComponent(StoreLayout.todo(todo(milk)?.id ?? UUID()))
                let older = file(milk).replacingOccurrences(
                    of: "\"dueDate\" : \"2030-12-03\"", with: "\"dueDate\" : \"2030-12-03T11:00:00.000Z\"")
                try! older.write(to: path, atomically: true, encoding: .utf8)
                let newYork = ["TZ": "America/New_York"]
                expect(run("tag", milk, "+shop", environment: newYork).status) == 0
                expect(run("priority", milk, "high", environment: newYork).status) == 0
                expect(file(milk)).to(contain("\"dueDate\" : \"2030-12-03T11:00:00.000Z\""))
                expect(todo(milk)?.due) == .day(CalendarDay("2030-12-03")!)
                expect(run("show", milk).stdout).to(contain("due       2030-12-03 (due in "))
                // A due changed in New York is written as New York says it.
                expect(run("due", milk, "2030-12-04", environment: newYork).status) == 0
                expect(file(milk)).to(contain("\"dueDate\" : \"2030-12-04\""))
            }
        }

        describe("a repeating todo") {
            it("without a time makes its next instance without one, counted from completion too, in 'Next:'") {
                let water = add("Water plants", "--due", "2030-12-03", "--every", "week", "--from", "completion")
                var done: CommandResult!
                let today = days { done = run("done", water) }
                let next = (try? Store.open(at: folder).load().state.todos)?.first { !$0.completed }
                expect(next.map { today.map { DueDate.day($0.adding(days: 7)) }.contains($0.due) }) == true
                expect(done.stdout).to(contain(", due \(next?.due.day?.description ?? "a day")\n"))
                expect(done.stdout).toNot(contain(":00"))
            }
            it("with no due date says it counts from the day it is done, never from a due date") {
                let stretch = add("Stretch")
                let repeated = run("repeat", stretch, "week")
                expect(repeated.stdout)
                    == "Repeats: Stretch, every week from the day it is done (it has no due date)\n"
                let shown = run("show", stretch).stdout
                expect(shown).to(
                    contain("repeats   every week from the day it is done (it has no due date), instance 1"))
                expect(shown).toNot(contain("from the due date"))
            }
        }

        describe("a done item") {
            it("never says overdue: not in lists, show, the day's view or a project") {
                let rent = add("Pay rent", "--due", "2020-01-01")
                let call = add("Call bank", "--due", "2020-01-01", "09:00")
                run("done", rent, call)
                let list = run("list", "--all").stdout
                expect(list).to(contain("Pay rent  was due 2020-01-01"))
                expect(list).to(contain("Call bank  was due 2020-01-01 09:00"))
                expect(list).toNot(contain("overdue"))
                expect(run("list", "--overdue", "--all").stdout) == "No todos match.\n"
                expect(run("show", rent).stdout).toNot(contain("overdue"))
                expect(run("today").stdout).toNot(contain("overdue"))
                let party = run("project", "add", "Party").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                let hall = run("task", "add", party, "Book hall", "--due", "2020-01-01").stdout
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                run("task", "state", hall, "finished")
                expect(run("project", "show", party).stdout).toNot(contain("overdue"))
            }
        }

        describe("a calendar") {
            it("gets a DATE for a day without a time and a DATE-TIME for a time, noon included") {
                add("Buy milk", "--due", "2030-12-03")
                add("Lunch", "--due", "2030-12-03", "12:00")
                let ics = run("ical", "export").stdout
                expect(ics).to(contain("SUMMARY:Buy milk\r\n"))
                expect(ics).to(contain("DUE;VALUE=DATE:20301203\r\n"))
                expect(ics).to(contain("DUE:20301203T110000Z\r\n"))
            }
            it("brings back a DATE as a day, and a DATE-TIME at noon as a time") {
                let vdir = folder.appendingPathComponent("calendar")
                try! FileManager.default.createDirectory(at: vdir, withIntermediateDirectories: true)
                for (name, due) in [
                    ("day", "DUE;VALUE=DATE:20301203"), ("noon", "DUE;TZID=Europe/Berlin:20301203T120000"),
                ] {
                    let text = [
                        "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Spec//EN", "BEGIN:VTODO",
                        "UID:\(name)@example.org",
                        "SUMMARY:\(name)", due, "DTSTAMP:20301122T100000Z", "END:VTODO", "END:VCALENDAR", "",
                    ].joined(separator: "\r\n")
                    try! text.write(to: vdir.appendingPathComponent("\(name).ics"), atomically: true, encoding: .utf8)
                }
                expect(run("ical", "sync", vdir.path).status) == 0
                let todos = (try? Store.open(at: folder).load().state.todos) ?? []
                expect(todos.first { $0.text == "day" }?.due) == .day(CalendarDay("2030-12-03")!)
                expect(todos.first { $0.text == "noon" }?.due) == .date(at("2030-12-03T12:00:00+01:00"))
                let ics = run("ical", "export").stdout
                expect(ics).to(contain("DUE;VALUE=DATE:20301203\r\n"))
                expect(ics).to(contain("DUE:20301203T110000Z\r\n"))
            }
        }

        describe("Taskwarrior and todo.txt") {
            it("sends a day to Taskwarrior as its first moment and takes that back as the day; a time stays a time") {
                add("Buy milk", "--due", "2030-12-03")
                add("Call", "--due", "2030-12-03", "12:00")
                let exported = run("export", "taskwarrior").stdout
                expect(exported).to(contain("\"due\" : \"20301202T230000Z\""))
                expect(exported).to(contain("\"due\" : \"20301203T110000Z\""))
                let other = temporaryStore("docket-dues-other")
                defer { try? FileManager.default.removeItem(at: other) }
                let input = folder.appendingPathComponent("tasks.json")
                try! exported.write(to: input, atomically: true, encoding: .utf8)
                expect(
                    docket(["import", "taskwarrior", input.path], store: other, environment: ["TZ": "Europe/Berlin"])
                        .status)
                    == 0
                let todos = (try? Store.open(at: other).load().state.todos) ?? []
                expect(todos.first { $0.text == "Buy milk" }?.due) == .day(CalendarDay("2030-12-03")!)
                expect(todos.first { $0.text == "Call" }?.due) == .date(at("2030-12-03T12:00:00+01:00"))
            }
            it("reads todo.txt's due: as a day, and keeps a todo's time when a line says its day") {
                let call = add("Call", "--due", "2030-12-03", "17:30")
                let exported = run("export", "todotxt").stdout
                expect(exported).to(contain("Call due:2030-12-03"))
                let input = folder.appendingPathComponent("todo.txt")
                try! (exported + "x 2030-11-01 2030-10-01 Buy milk due:2030-12-04\n").write(
                    to: input, atomically: true, encoding: .utf8)
                expect(run("commit").status) == 0
                expect(run("import", "todotxt", input.path).status) == 0
                expect(todo(call)?.due) == .date(at("2030-12-03T17:30:00+01:00"))
                let milk = (try? Store.open(at: folder).load().state.todos)?.first { $0.text == "Buy milk" }
                expect(milk?.due) == .day(CalendarDay("2030-12-04")!)
            }
        }
    }
}
