import DocketModel
import DocketSpecSupport
import Foundation
import Nimble
import Quick

final class JSONFormatSpec: QuickSpec {
    override class func spec() {
        describe("the JSON file format") {
            // NB: a due date's time is written with the local offset, and an older file's due date is read in the
            // local time zone: the specs fix it.
            let berlin = TimeZone(identifier: "Europe/Berlin")!
            beforeEach { DocketClock.use(timeZone: berlin) }
            afterEach { DocketClock.reset() }
            func fixture(_ name: String) -> Data {
                let url = Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures")!
                return try! Data(contentsOf: url)
            }
            func roundTrip<T: Codable & Equatable>(_ type: T.Type, _ name: String) {
                let original = fixture(name)
                let value = try! DocketJSON.decode(type, from: original)
                let encoded = try! DocketJSON.encode(value)
                expect(String(decoding: encoded, as: UTF8.self)) == String(decoding: original, as: UTF8.self)
                expect(try DocketJSON.decode(type, from: encoded)) == value
            }

            context("of each committed fixture") {
                // Each field's key in some fixture of its value, so a new field breaks a byte-for-byte round trip
                // until a fixture writes it (docs/ARCHITECTURE.md, "Adding a field").
                it("names every field of every value, so a new field is round-tripped byte for byte") {
                    func keys(_ json: Any) -> Set<String> {
                        if let object = json as? [String: Any] {
                            return object.reduce(into: Set(object.keys)) { $0.formUnion(keys($1.value)) }
                        }
                        return (json as? [Any])?.reduce(into: Set<String>()) { $0.formUnion(keys($1)) } ?? []
                    }
                    let folder = Bundle.module.url(forResource: "Fixtures", withExtension: nil)!
                    let names = try! FileManager.default.contentsOfDirectory(atPath: folder.path)
                        .filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }
                        // The fixtures of due dates before format 3 are read, never written, so not round-tripped.
                        .filter { !$0.contains("DueBefore") }
                    func written(in fixtures: (String) -> Bool) -> Set<String> {
                        names.filter(fixtures).reduce(into: Set<String>()) {
                            $0.formUnion(keys(try! JSONSerialization.jsonObject(with: fixture($1))))
                        }
                    }
                    let items = { (name: String) in name.hasPrefix("TodoItem") || name.hasPrefix("ProjectTask") }
                    let values: [(String, [String], (String) -> Bool)] = [
                        ("TodoItem", TodoItem.fields.map(\.key), { $0.hasPrefix("TodoItem") }),
                        ("ProjectTask", ProjectTask.fields.map(\.key), { $0.hasPrefix("ProjectTask") }),
                        ("Project", Project.fields.map(\.key), { $0 == "Project" }),
                        ("TimeSlip", TimeSlip.fields.map(\.key), { $0 == "TimeSlip" }),
                        ("Tombstone", Tombstone.fields.map(\.key), { $0 == "Tombstone" }),
                        ("Claim", Claim.fields.map(\.key), { $0.hasSuffix("Claim") }),
                        ("Note", Note.fields.map(\.key), items),
                    ]
                    for (value, fields, fixtures) in values {
                        let missing = Set(fields).subtracting(written(in: fixtures)).sorted()
                        expect(missing).to(beEmpty(), description: "\(value) fields no fixture writes")
                    }
                }
                it("decodes and re-encodes a TodoItem byte for byte") { roundTrip(TodoItem.self, "TodoItem") }
                it("decodes and re-encodes a TimeSlip byte for byte") { roundTrip(TimeSlip.self, "TimeSlip") }
                it("decodes and re-encodes a ProjectTask byte for byte") { roundTrip(ProjectTask.self, "ProjectTask") }
                it("decodes and re-encodes a Project byte for byte") { roundTrip(Project.self, "Project") }
                it("decodes and re-encodes a Tombstone byte for byte") { roundTrip(Tombstone.self, "Tombstone") }
                it("decodes and re-encodes an AppState byte for byte") { roundTrip(AppState.self, "AppState") }
                it(
                    "decodes and re-encodes a format-2 todo (tags, priority, notes, completion date, recurrence) byte for byte"
                ) {
                    roundTrip(TodoItem.self, "TodoItemFormat2")
                }
                it("decodes and re-encodes a format-3 todo (wait, scheduled, dependencies) byte for byte") {
                    roundTrip(TodoItem.self, "TodoItemFormat3")
                }
                it("decodes and re-encodes a format-3 task (wait, scheduled, dependencies) byte for byte") {
                    roundTrip(ProjectTask.self, "ProjectTaskFormat3")
                }
                it("decodes and re-encodes a claimed todo and a task whose claim was released, byte for byte") {
                    roundTrip(TodoItem.self, "TodoItemClaim")
                    roundTrip(ProjectTask.self, "ProjectTaskClaim")
                }
                it(
                    "decodes and re-encodes a todo and a task with another tool's keys kept, every JSON kind, byte for byte"
                ) {
                    roundTrip(TodoItem.self, "TodoItemKept")
                    roundTrip(ProjectTask.self, "ProjectTaskKept")
                    let todo = try! DocketJSON.decode(TodoItem.self, from: fixture("TodoItemKept"))
                    expect(todo.kept["taskwarrior"]["wait"]) == .string("20261128T000000Z")
                    expect(todo.kept["taskwarrior"]["estimate"]) == .integer(5)
                    expect(todo.kept["taskwarrior"]["weight"]) == .number(0.5)
                    expect(todo.kept["taskwarrior"]["reviewed"]) == .bool(true)
                }
            }

            context("of a format-2 todo") {
                let todo = try! DocketJSON.decode(TodoItem.self, from: fixture("TodoItemFormat2"))
                it("reads every new field") {
                    expect(todo.tags) == ["garden", "home"]
                    expect(todo.priority) == .medium
                    expect(todo.notes.map(\.text)) == ["soil was dry"]
                    expect(todo.completedDate) == todo.alterDate
                    expect(todo.recurrence?.every) == Recurrence.Interval(.week, count: 2)
                    expect(todo.recurrence?.occurrence) == 3
                }
                it("leaves the new fields out while they are empty, so a format-1 todo reads and writes as before") {
                    let text = String(decoding: try! DocketJSON.encode(TodoItem(text: "x")), as: UTF8.self)
                    for key in [
                        "tags", "priority", "notes", "completedDate", "recurrence", "kept", "waitDate", "scheduledDate",
                        "dependencies", "claim",
                    ] {
                        expect(text).notTo(contain("\"\(key)\""))
                    }
                }
                it("refuses a recurrence it cannot read, naming it") {
                    let json =
                        #"{"id":"6F9619FF-8B86-4D11-B42D-00C04FC964FF","text":"x","creationDate":"2026-11-22T10:30:00Z","recurrence":{"every":"fortnightly","series":"6F9619FF-8B86-4D11-B42D-00C04FC964FF"}}"#
                    expect { try DocketJSON.decode(TodoItem.self, from: Data(json.utf8)) }.to(
                        throwError { error in
                            expect("\(error)").to(
                                contain("\"fortnightly\" is not an interval such as \"week\" or \"2 days\""))
                        })
                }
            }

            context("of a format-3 todo and task") {
                let todo = try! DocketJSON.decode(TodoItem.self, from: fixture("TodoItemFormat3"))
                let task = try! DocketJSON.decode(ProjectTask.self, from: fixture("ProjectTaskFormat3"))
                it("reads the wait and scheduled dates, each a day or a time as a due date is, and the dependencies") {
                    expect(todo.waitDate) == .day(CalendarDay(year: 2026, month: 11, day: 27)!)
                    expect(todo.scheduledDate) == .date(ISODate.date(from: "2026-11-27T08:00:00.000Z")!)
                    expect(todo.dependencies) == [
                        UUID(uuidString: "3B241101-E2BB-4255-8CAF-4136C566A962")!,
                        UUID(uuidString: "A3B2C1D0-1111-4222-8333-944455556666")!,
                    ]
                    expect(task.waitDate) == .day(CalendarDay(year: 2026, month: 11, day: 24)!)
                    expect(task.scheduledDate) == .date(ISODate.date(from: "2026-11-25T12:00:00.000Z")!)
                    expect(task.dependencies) == [UUID(uuidString: "6F9619FF-8B86-4D11-B42D-00C04FC964FF")!]
                }
                it("reads an older todo or task, without them, as waiting for nothing") {
                    let old = try! DocketJSON.decode(TodoItem.self, from: fixture("TodoItemFormat2"))
                    let oldTask = try! DocketJSON.decode(ProjectTask.self, from: fixture("ProjectTask"))
                    expect(old.waitDate) == .unknown
                    expect(old.scheduledDate) == .unknown
                    expect(old.dependencies) == []
                    expect(oldTask.waitDate) == .unknown
                    expect(oldTask.dependencies) == []
                }
                it("writes a wait for a day as the day alone, and one at a time with its local offset") {
                    let day = TodoItem(text: "x").alter(.wait(.day(CalendarDay(year: 2026, month: 12, day: 3)!)))
                    let time = TodoItem(text: "x").alter(
                        .scheduled(.date(ISODate.date(from: "2026-12-03T16:30:00.000Z")!)))
                    expect(String(decoding: try! DocketJSON.encode(day), as: UTF8.self)).to(
                        contain("\"waitDate\" : \"2026-12-03\""))
                    expect(String(decoding: try! DocketJSON.encode(time), as: UTF8.self)).to(
                        contain("\"scheduledDate\" : \"2026-12-03T17:30:00.000+01:00\""))
                }
                it("keeps dependencies written by hand in any case and order as one sorted set") {
                    let json =
                        #"{"id":"6F9619FF-8B86-4D11-B42D-00C04FC964FF","text":"x","creationDate":"2026-11-22T10:30:00Z","dependencies":["a3b2c1d0-1111-4222-8333-944455556666","3B241101-E2BB-4255-8CAF-4136C566A962","A3B2C1D0-1111-4222-8333-944455556666"]}"#
                    let read = try! DocketJSON.decode(TodoItem.self, from: Data(json.utf8))
                    expect(read.dependencies.map(\.uuidString)) == [
                        "3B241101-E2BB-4255-8CAF-4136C566A962", "A3B2C1D0-1111-4222-8333-944455556666",
                    ]
                }
                it("refuses a dependency that is not an id, naming the field") {
                    let json =
                        #"{"id":"6F9619FF-8B86-4D11-B42D-00C04FC964FF","text":"x","creationDate":"2026-11-22T10:30:00Z","dependencies":["soon"]}"#
                    expect { try DocketJSON.decode(TodoItem.self, from: Data(json.utf8)) }.to(
                        throwError { (error: Error) in expect("\(error)").to(contain("dependencies")) })
                }
            }

            context("of a claim") {
                it("reads the holder, the claim id, when it was taken, renewed and released, and when it expires") {
                    let todo = try! DocketJSON.decode(TodoItem.self, from: fixture("TodoItemClaim"))
                    let task = try! DocketJSON.decode(ProjectTask.self, from: fixture("ProjectTaskClaim"))
                    expect(todo.claim?.holder) == "agent-7"
                    expect(todo.claim?.id) == UUID(uuidString: "3F2A9C1E-5B6D-4E7F-8A9B-0C1D2E3F4A5B")
                    expect(todo.claim?.renewed) == ISODate.date(from: "2026-11-28T10:05:00.000Z")
                    expect(todo.claim?.isLive(at: ISODate.date(from: "2026-11-28T12:04:59.999Z")!)) == true
                    expect(todo.claim?.isLive(at: ISODate.date(from: "2026-11-28T12:05:00.000Z")!)) == false
                    expect(task.claim?.released) == ISODate.date(from: "2026-11-28T10:30:00.000Z")
                    expect(task.heldClaim(at: ISODate.date(from: "2026-11-28T10:10:00.000Z")!)).to(beNil())
                }
                it("reads an older todo or task, without one, as unclaimed") {
                    expect(try! DocketJSON.decode(TodoItem.self, from: fixture("TodoItemFormat3")).claim).to(beNil())
                    expect(try! DocketJSON.decode(ProjectTask.self, from: fixture("ProjectTaskFormat3")).claim).to(
                        beNil())
                }
                it("refuses a claim without a holder, naming the field") {
                    let json =
                        #"{"id":"6F9619FF-8B86-4D11-B42D-00C04FC964FF","text":"x","creationDate":"2026-11-22T10:30:00Z","claim":{"holder":" ","id":"6F9619FF-8B86-4D11-B42D-00C04FC964FF","taken":"2026-11-22T10:30:00Z","expires":"2026-11-22T11:30:00Z"}}"#
                    expect { try DocketJSON.decode(TodoItem.self, from: Data(json.utf8)) }.to(
                        throwError { (error: Error) in expect("\(error)").to(contain("a claim's holder has no name")) })
                }
            }

            context("of a format-2 task") {
                let task = try! DocketJSON.decode(ProjectTask.self, from: fixture("ProjectTaskFormat2"))
                it("decodes and re-encodes byte for byte") { roundTrip(ProjectTask.self, "ProjectTaskFormat2") }
                it("reads every field a todo has, a repeating one's too, and its slips") {
                    expect(task.tags) == ["garden"]
                    expect(task.priority) == .low
                    expect(task.notes.map(\.text)) == ["the front half only"]
                    expect(task.completedDate) == task.alterDate
                    expect(task.recurrence?.every) == Recurrence.Interval(.week)
                    expect(task.recurrence?.from) == .completion
                    expect(task.recurrence?.occurrence) == 2
                    expect(task.timeSlips.last?.stop) == task.completedDate
                }
                it("reads a format-1 task, which has none of them, as it was written") {
                    let old = try! DocketJSON.decode(ProjectTask.self, from: fixture("ProjectTask"))
                    expect(old.recurrence).to(beNil())
                    expect(old.tags).to(beEmpty())
                    expect(old.creationDate).to(beNil())
                }
            }

            context("of a todo") {
                let todo = try! DocketJSON.decode(TodoItem.self, from: fixture("TodoItem"))
                it("reads every field") {
                    expect(todo.text) == "Buy milk / oat, not \"dairy\" — 2 l"
                    expect(todo.id) == UUID(uuidString: "6F9619FF-8B86-4D11-B42D-00C04FC964FF")
                    expect(todo.completed) == true
                    expect(todo.creationDate) == Date(timeIntervalSince1970: 1_795_197_840)
                    expect(todo.alterDate?.timeIntervalSince1970) == 1_795_339_815.25
                }
                it("ends with a newline and has one field per line") {
                    let text = String(decoding: try! DocketJSON.encode(todo), as: UTF8.self)
                    expect(text.hasSuffix("}\n")) == true
                    expect(text.split(separator: "\n").count) == 8
                }
                it("writes an absent due date as null, so every field has its line") {
                    let text = String(decoding: try! DocketJSON.encode(TodoItem(text: "x")), as: UTF8.self)
                    expect(text).to(contain("\"dueDate\" : null"))
                    expect(text).to(contain("\"alterDate\" : null"))
                }
                it("writes dates as UTC with milliseconds, and a due time as a clock here shows it, with its offset") {
                    let date = Date(timeIntervalSince1970: 1_795_339_815.2509)
                    let todo = TodoItem(text: "x").alter(.due(date))
                    let text = String(decoding: try! DocketJSON.encode(todo), as: UTF8.self)
                    expect(text).to(contain("\"dueDate\" : \"2026-11-22T10:30:15.250+01:00\""))
                    expect(text).to(contain("\"creationDate\" : \"\(ISODate.string(from: todo.creationDate))\""))
                    expect(ISODate.string(from: todo.creationDate)).to(endWith("Z"))
                }
                it("writes a due time in UTC itself with +00:00, never Z, so it never reads as an older day") {
                    DocketClock.use(timeZone: TimeZone(identifier: "UTC")!)
                    let noon = Date(timeIntervalSince1970: 1_795_348_800) // 2026-11-22 12:00 UTC
                    let todo = TodoItem(text: "x").alter(.due(noon))
                    let text = String(decoding: try! DocketJSON.encode(todo), as: UTF8.self)
                    expect(text).to(contain("\"dueDate\" : \"2026-11-22T12:00:00.000+00:00\""))
                    expect(try DocketJSON.decode(TodoItem.self, from: Data(text.utf8)).due) == .date(noon)
                }
                it("writes a due date without a time as the day alone") {
                    let todo = TodoItem(text: "x").alter(
                        .dueDate(to: .day(CalendarDay(year: 2026, month: 12, day: 3)!)))
                    let text = String(decoding: try! DocketJSON.encode(todo), as: UTF8.self)
                    expect(text).to(contain("\"dueDate\" : \"2026-12-03\""))
                }
            }

            context("of a due date an older docket wrote (before store format 3)") {
                it("reads one without a time (noon here, in UTC) as that day, and writes it back as the day") {
                    let todo = try! DocketJSON.decode(TodoItem.self, from: fixture("TodoItemDueBeforeFormat3"))
                    expect(todo.due) == .day(CalendarDay(year: 2026, month: 11, day: 24)!)
                    let text = String(decoding: try! DocketJSON.encode(todo), as: UTF8.self)
                    expect(text).to(contain("\"dueDate\" : \"2026-11-24\""))
                    expect(text) == String(decoding: fixture("TodoItem"), as: UTF8.self)
                }
                it("reads one with a time as that moment, and writes it back with its local offset") {
                    let task = try! DocketJSON.decode(ProjectTask.self, from: fixture("ProjectTaskDueBeforeFormat3"))
                    expect(task.dueDate) == .date(ISODate.date(from: "2026-11-28T17:00:00Z")!)
                    expect(String(decoding: try! DocketJSON.encode(task), as: UTF8.self))
                        == String(decoding: fixture("ProjectTask"), as: UTF8.self)
                }
                it("reads noon by another zone's clock as a time: the older rule is noon here") {
                    DocketClock.use(timeZone: TimeZone(identifier: "America/New_York")!)
                    let todo = try! DocketJSON.decode(TodoItem.self, from: fixture("TodoItemDueBeforeFormat3"))
                    expect(todo.due) == .date(ISODate.date(from: "2026-11-24T11:00:00Z")!)
                }
            }

            context("of a due date this docket wrote") {
                func due(_ text: String) throws -> DueDate {
                    let json =
                        #"{"id":"6F9619FF-8B86-4D11-B42D-00C04FC964FF","text":"x","creationDate":"2026-11-22T10:30:00Z","dueDate":"\#(text)"}"#
                    let todo: TodoItem = try DocketJSON.decode(TodoItem.self, from: Data(json.utf8))
                    return todo.due
                }
                it("reads a time at noon with its offset as a time, not as a day") {
                    expect(try due("2026-11-24T12:00:00.000+01:00"))
                        == .date(ISODate.date(from: "2026-11-24T11:00:00Z")!)
                }
                it("reads a day as that day wherever it is read") {
                    DocketClock.use(timeZone: TimeZone(identifier: "Pacific/Kiritimati")!)
                    expect(try due("2026-11-24")) == .day(CalendarDay(year: 2026, month: 11, day: 24)!)
                }
                it("refuses a due date that is no date, naming the forms it takes") {
                    expect { try due("2026-02-30") }.to(
                        throwError { error in
                            expect("\(error)").to(
                                contain(
                                    "\"2026-02-30\" is not a due date such as 2026-11-22 or 2026-11-22T09:30:00.000+01:00"
                                ))
                        })
                }
            }

            context("of a value that carries dates (MillisecondDate)") {
                struct Stamped: Codable, Equatable {
                    @MillisecondDate var at: Date
                    @OptionalMillisecondDate var until: Date?
                }
                it(
                    "writes them as the files do whatever strategy the encoder was given, null for none, and reads them back"
                ) {
                    let encoder = JSONEncoder()
                    encoder.dateEncodingStrategy = .secondsSince1970
                    encoder.outputFormatting = .sortedKeys
                    let value = Stamped(at: Date(timeIntervalSince1970: 1_795_339_815.2509), until: nil)
                    let text = String(decoding: try encoder.encode(value), as: UTF8.self)
                    expect(text) == #"{"at":"2026-11-22T09:30:15.250Z","until":null}"#
                    expect(try JSONDecoder().decode(Stamped.self, from: Data(text.utf8)).at.docketMilliseconds)
                        == value.at.docketMilliseconds
                    expect(
                        try JSONDecoder().decode(Stamped.self, from: Data(#"{"at":"2026-11-22T09:30:15Z"}"#.utf8)).until
                    ).to(beNil())
                    expect { try JSONDecoder().decode(Stamped.self, from: Data(#"{"at":"soon"}"#.utf8)) }
                        .to(
                            throwError { (error: Error) in
                                expect("\(error)").to(contain("\"soon\" is not an ISO-8601 date"))
                            })
                    expect { try encoder.encode(Stamped(at: Date(timeIntervalSince1970: 1e12), until: nil)) }.to(
                        throwError())
                }
            }

            context("when a file was edited by hand") {
                it("accepts a date with a time zone offset and no fraction") {
                    let json =
                        #"{"id":"6F9619FF-8B86-4D11-B42D-00C04FC964FF","text":"x","creationDate":"2026-11-22T10:30:00+01:00"}"#
                    let todo = try! DocketJSON.decode(TodoItem.self, from: Data(json.utf8))
                    expect(todo.creationDate) == Date(timeIntervalSince1970: 1_795_339_800)
                    expect(todo.completed) == false
                    expect(todo.dueDate).to(beNil())
                }
                it("names the field whose date does not parse") {
                    let json = #"{"id":"6F9619FF-8B86-4D11-B42D-00C04FC964FF","text":"x","creationDate":"yesterday"}"#
                    expect { try DocketJSON.decode(TodoItem.self, from: Data(json.utf8)) }
                        .to(throwError { (error: Error) in expect("\(error)").to(contain("yesterday")) })
                }
                it("refuses an impossible date") {
                    let json =
                        #"{"id":"6F9619FF-8B86-4D11-B42D-00C04FC964FF","text":"x","creationDate":"2026-02-30T10:00:00Z"}"#
                    expect { try DocketJSON.decode(TodoItem.self, from: Data(json.utf8)) }.to(throwError())
                }
            }

            context("as a property over random values") {
                it("gives back an equal TodoItem from its JSON") {
                    forAll(1000) { g in
                        let value = RandomValues.todo(&g)
                        let back = try! DocketJSON.decode(TodoItem.self, from: try! DocketJSON.encode(value))
                        return back == value ? nil : "\(value) came back as \(back)"
                    }
                }
                it("gives back an equal AppState from its JSON, with an identical re-encoding") {
                    forAll(500) { g in
                        let value = RandomValues.state(&g)
                        let data = try! DocketJSON.encode(value)
                        let back = try! DocketJSON.decode(AppState.self, from: data)
                        guard back == value else { return "\(value) came back as \(back)" }
                        return try! DocketJSON.encode(back) == data ? nil : "re-encoding differs for \(value)"
                    }
                }
                it("hashes a value and its read-back copy alike") {
                    forAll(500) { g in
                        let value = RandomValues.project(&g)
                        let back = try! DocketJSON.decode(Project.self, from: try! DocketJSON.encode(value))
                        return back.hashValue == value.hashValue ? nil : "hash differs for \(value)"
                    }
                }
            }
        }

        describe("a key one object holds twice") {
            func repeated(_ text: String) -> String? { DocketJSON.repeatedKey(in: Data(text.utf8)) }
            it("is found at the top, in a nested object, and written with an escape") {
                expect(repeated("{\"text\": \"A\", \"completed\": false, \"text\": \"B\"}")) == "text"
                expect(repeated("{\"notes\": [{\"id\": 1, \"text\": \"a\", \"text\": \"b\"}]}")) == "text"
                expect(repeated("{\"text\": \"A\", \"\\u0074ext\": \"B\"}")) == "text"
                let many = (0..<100).map { "\"k\($0)\": \($0)" }.joined(separator: ", ")
                expect(repeated("{\(many), \"k5\": 5}")) == "k5"
                expect(repeated("{\(many)}")).to(beNil())
            }
            it("is not the same key in two objects, nor a value that looks like a key") {
                expect(repeated("{\"notes\": [{\"text\": \"a\"}, {\"text\": \"b\"}], \"text\": \"c\"}")).to(beNil())
                expect(repeated("{\"text\": \"text\", \"tags\": [\"text\", \"text\"], \"x\": \"{\\\"text\\\": 1}\"}"))
                    .to(beNil())
                expect(repeated("{\"a\": {\"b\": 1}, \"b\": {\"a\": 2}}")).to(beNil())
            }
        }
    }
}
