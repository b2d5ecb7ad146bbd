import DocketModel
import Foundation

/// A todo or a project task as a calendar sees it.
enum CalendarEntry: Equatable {
    case todo(TodoItem)
    case task(ProjectTask, project: UUID)

    var id: UUID {
        switch self {
        case let .todo(todo): todo.id
        case let .task(task, _): task.id
        }
    }
}

/// The mapping between Docket's items and VTODOs: SUMMARY, STATUS and
/// COMPLETED, DUE, PRIORITY, CATEGORIES (tags), DESCRIPTION (the notes, a
/// paragraph each), RRULE (how a todo repeats), CREATED and LAST-MODIFIED (the
/// alter date); the scheduled date as DTSTART (RFC 5545: when the to-do is to
/// start) where RFC 5545 allows one (before DUE, and of its kind: a day or a
/// time), else as X-DOCKET-SCHEDULED; the wait date as X-DOCKET-WAIT (a VTODO
/// has none); each dependency as RELATED-TO;RELTYPE=DEPENDS-ON (RFC 9253) with
/// that item's UID. A VTODO's other properties (other RELATED-TOs too) are
/// Docket's to keep, not to change.
enum VTodo {
    static let namespace = UUID(uuidString: "3E9B7A20-C1D4-4B65-A8F0-5D2E6C9B1F47")!
    /// The properties Docket writes; every other is kept as found.
    static let managed: Set<String> = [
        "UID", "SUMMARY", "STATUS", "COMPLETED", "PERCENT-COMPLETE", "DUE", "PRIORITY", "CATEGORIES",
        "DESCRIPTION", "RRULE", "CREATED", "LAST-MODIFIED", "DTSTAMP", "DTSTART", scheduledName, waitName,
        stampName,
    ]
    /// The property of a scheduled date DTSTART cannot hold.
    static let scheduledName = "X-DOCKET-SCHEDULED"
    /// The property of a wait date.
    static let waitName = "X-DOCKET-WAIT"

    /// Whether Docket writes `property` (a RELATED-TO only of the DEPENDS-ON kind): a file's are replaced by Docket's.
    static func isManaged(_ property: ICalComponent.Property) -> Bool {
        managed.contains(property.name) || isDependency(property)
    }

    /// Whether `property` names an item this one depends on.
    static func isDependency(_ property: ICalComponent.Property) -> Bool {
        property.name == "RELATED-TO" && property.parameter("RELTYPE")?.uppercased() == "DEPENDS-ON"
    }
    /// The property naming the version of the item Docket wrote a file from. Calendar apps keep a property they do not
    /// know, so a file edited on a phone says which version the edit started from, and is merged against that.
    static let stampName = "X-DOCKET-VERSION"

    /// The stamp of the version Docket writes for an entry: the same for the same content.
    static func stamp(_ entry: CalendarEntry) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in ICalComponent(name: "VTODO", properties: properties(entry)).text.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }

    struct Unreadable: Error {
        let reason: String
        /// Whether it is an RRULE Docket cannot keep (a list of weekdays, say): that todo is set aside, the rest syncs.
        var isRule = false
    }

    /// The Docket id of a UID: the UID itself when it is a uuid, else an id made from it.
    static func id(uid: String) -> UUID {
        if let id = UUID(hex: uid) { return id }
        let hex = uid.lowercased()
        if hex.count == 32, hex.allSatisfy(\.isHexDigit) {
            let chars = Array(hex)
            let dashed = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(chars[$0]) }.joined(separator: "-")
            if let id = UUID(hex: dashed) { return id }
        }
        return NameBasedID.make(namespace: namespace, name: "uid " + uid)
    }

    /// The one VTODO of a file, with its UID.
    static func vtodo(in calendar: ICalComponent) throws -> (vtodo: ICalComponent, uid: String) {
        guard calendar.name == "VCALENDAR" else { throw Unreadable(reason: "it is not a VCALENDAR") }
        // NB: a repeating todo may come with overrides of some of its instances (RECURRENCE-ID), all under its UID.
        let todos = calendar.components.filter { $0.name == "VTODO" && $0.property("RECURRENCE-ID") == nil }
        guard todos.count == 1 else {
            throw Unreadable(reason: todos.isEmpty ? "it holds no VTODO" : "it holds \(todos.count) VTODOs, not one")
        }
        guard let uid = todos[0].property("UID")?.text, !uid.isEmpty else {
            throw Unreadable(reason: "its VTODO has no UID")
        }
        let others = calendar.components.filter { $0.name == "VTODO" && $0.property("RECURRENCE-ID") != nil }
        if others.contains(where: { $0.property("UID")?.text != uid }) {
            throw Unreadable(reason: "it holds VTODOs of more than one UID")
        }
        return (todos[0], uid)
    }

    // MARK: Reading

    /// The fields a VTODO gives.
    struct Fields {
        var summary: String
        var status: String
        var completed: Date?
        var due: DueDate
        var priority: Priority?
        var tags: [String]
        var description: String?
        var every: Recurrence.Interval?
        /// Where the series ends: its RRULE's UNTIL, or the due date of the last instance its COUNT allows.
        var until: Date?
        var created: Date?
        var lastModified: Date?
        var scheduled = DueDate.unknown
        var wait = DueDate.unknown
        var dependencies: [UUID] = []
    }

    static func fields(_ vtodo: ICalComponent) throws -> Fields {
        func date(_ name: String) throws -> Date? { try VTodo.date(vtodo.property(name), name: name) }
        let summary = vtodo.property("SUMMARY")?.text ?? ""
        guard !summary.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw Unreadable(reason: "its VTODO has no SUMMARY")
        }
        var priority: Priority?
        if let text = vtodo.property("PRIORITY")?.value.trimmingCharacters(in: .whitespaces) {
            guard let number = Int(text), (0...9).contains(number) else {
                throw Unreadable(reason: "PRIORITY \"\(text.prefix(10))\" is not 0 to 9")
            }
            priority = number == 0 ? nil : number < 5 ? .high : number == 5 ? .medium : .low
        }
        var tags: [String] = []
        for property in vtodo.all("CATEGORIES") {
            for tag in ICalComponent.list(property.value) {
                let word = tag.replacingOccurrences(of: " ", with: "-")
                if let problem = Tags.problem(with: word) {
                    throw Unreadable(reason: "category \"\(tag.prefix(30))\": \(problem)")
                }
                tags.append(word)
            }
        }
        var every: Recurrence.Interval?
        var until: Date?
        let dueDate = try due(vtodo.property("DUE"), name: "DUE")
        if let text = vtodo.property("RRULE")?.value {
            let rule = try self.rule(text)
            every = rule.every
            until = rule.until
            if let count = rule.count, let start = dueDate.start() {
                // COUNT instances from this one: the series ends with the last one's due date.
                var last = start
                for _ in 1..<count { last = rule.every.after(last, calendar: DocketClock.calendar) }
                until = min(until ?? last, last)
            }
        }
        // NB: a UID that is no uuid names the item Docket made of it (see `id(uid:)`).
        let dependencies = vtodo.properties.filter(isDependency).map { VTodo.id(uid: $0.text) }
        return Fields(
            summary: summary, status: (vtodo.property("STATUS")?.value ?? "NEEDS-ACTION").uppercased(),
            completed: try date("COMPLETED"), due: dueDate, priority: priority,
            tags: Tags.normalized(tags),
            description: vtodo.property("DESCRIPTION")?.text, every: every, until: until, created: try date("CREATED"),
            lastModified: try date("LAST-MODIFIED") ?? date("DTSTAMP"),
            scheduled: try vtodo.property("DTSTART").map { try due($0, name: "DTSTART") }
                ?? due(vtodo.property(scheduledName), name: scheduledName),
            wait: try due(vtodo.property(waitName), name: waitName),
            dependencies: Dependencies.normalized(dependencies))
    }

    /// A due date property's date: a day for `VALUE=DATE` (a DATE), else a moment (a DATE-TIME, in its `TZID`).
    static func due(_ property: ICalComponent.Property?, name: String) throws -> DueDate {
        guard let property else { return .unknown }
        let value = property.value.trimmingCharacters(in: .whitespaces)
        guard property.parameter("VALUE")?.uppercased() == "DATE" || value.count == 8 else {
            return .date(try date(property, name: name)!)
        }
        guard value.count == 8,
            let day = CalendarDay("\(value.prefix(4))-\(value.dropFirst(4).prefix(2))-\(value.suffix(2))")
        else { throw Unreadable(reason: "\(name) \"\(value.prefix(30))\" is not a date") }
        return .day(day)
    }

    /// A date property's date (a day for `VALUE=DATE`), in its `TZID`.
    static func date(_ property: ICalComponent.Property?, name: String) throws -> Date? {
        guard let property else { return nil }
        let value = property.value.trimmingCharacters(in: .whitespaces)
        let zone = property.parameter("TZID").flatMap(TimeZone.init(identifier:)) ?? .current
        if property.parameter("VALUE")?.uppercased() == "DATE" || value.count == 8 {
            guard let day = BasicDate.day(value, zone: zone) else {
                throw Unreadable(reason: "\(name) \"\(value.prefix(30))\" is not a date")
            }
            return day
        }
        guard let date = BasicDate.date(value, zone: zone) else {
            throw Unreadable(reason: "\(name) \"\(value.prefix(30))\" is not a date")
        }
        return date
    }

    /// A calendar app that completes one instance of a repeating todo by an override (a VTODO with the
    /// same UID and a `RECURRENCE-ID` of the instance's due date) completes the instance Docket has;
    /// overrides of other instances say nothing about it.
    static func applyOverrides(_ calendar: ICalComponent, uid: String, to fields: inout Fields) {
        guard fields.every != nil, fields.status != "COMPLETED", fields.due != .unknown else { return }
        for override in calendar.components where override.name == "VTODO" && override.property("UID")?.text == uid {
            guard let instance = try? due(override.property("RECURRENCE-ID"), name: "RECURRENCE-ID"),
                sameSecond(instance, fields.due),
                let status = override.property("STATUS")?.value.uppercased(),
                status == "COMPLETED" || status == "CANCELLED"
            else { continue }
            fields.status = status
            fields.completed = (try? date(override.property("COMPLETED"), name: "COMPLETED")) ?? fields.completed
            fields.lastModified = [
                fields.lastModified, try? date(override.property("LAST-MODIFIED"), name: "LAST-MODIFIED"),
            ].compactMap { $0 }.max()
        }
    }

    /// An RRULE as Docket keeps it: the interval, where it ends (UNTIL), and how many instances it has (COUNT);
    /// throws naming a part Docket cannot keep (`isRule`).
    static func rule(_ rule: String) throws -> (every: Recurrence.Interval, until: Date?, count: Int?) {
        var kept: [String] = []
        var until: Date?
        var count: Int?
        for part in rule.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1)
            switch pair.count == 2 ? pair[0].uppercased() : "" {
            case "UNTIL":
                let value = String(pair[1])
                // NB: a day ends the series as it begins: an all-day instance due that day is the last.
                let day = BasicDate.day(value, zone: .current).map { CalendarDay($0, in: .current).start(in: .current) }
                guard let date = value.count == 8 ? day : BasicDate.date(value) else {
                    throw Unreadable(reason: "RRULE UNTIL \"\(value.prefix(30))\" is not a date")
                }
                until = date
            case "COUNT":
                guard let number = Int(pair[1]), (1...100_000).contains(number) else {
                    throw Unreadable(reason: "RRULE COUNT \"\(pair[1].prefix(20))\" is not 1 to 100,000")
                }
                count = number
            default: kept.append(String(part))
            }
        }
        return (try interval(kept.joined(separator: ";")), until, count)
    }

    /// An RRULE's FREQ, INTERVAL and BYDAY as Docket's interval; throws naming a part Docket cannot keep.
    static func interval(_ rule: String) throws -> Recurrence.Interval {
        var parts: [String: String] = [:]
        for part in rule.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else {
                throw Unreadable(reason: "RRULE part \"\(part.prefix(20))\" is not NAME=value")
            }
            parts[pair[0].uppercased()] = pair[1].uppercased()
        }
        let count = Int(parts.removeValue(forKey: "INTERVAL") ?? "1") ?? 0
        guard (1...1000).contains(count) else { throw Unreadable(reason: "RRULE INTERVAL is not 1 to 1000") }
        _ = parts.removeValue(forKey: "WKST")
        let freq = parts.removeValue(forKey: "FREQ")
        if freq == "WEEKLY", count == 1, parts["BYDAY"] == "MO,TU,WE,TH,FR" {
            parts.removeValue(forKey: "BYDAY")
            if parts.isEmpty { return .init(.weekday) }
        }
        // NB: one weekday for a weekly rule is the due date's own (as phones write it): the interval says it all.
        if freq == "WEEKLY", let days = parts["BYDAY"], days.count == 2, !days.contains(",") {
            parts.removeValue(forKey: "BYDAY")
        }
        if let unknown = parts.keys.sorted().first {
            throw Unreadable(
                reason: "RRULE part \(unknown.prefix(20))=\(parts[unknown]!.prefix(30)) is one Docket does not keep "
                    + "(it keeps FREQ, INTERVAL, UNTIL, COUNT, one BYDAY for WEEKLY, and BYDAY=MO,TU,WE,TH,FR)",
                isRule: true)
        }
        switch freq {
        case "DAILY": return .init(.day, count: count)
        case "WEEKLY": return .init(.week, count: count)
        case "MONTHLY": return .init(.month, count: count)
        case "YEARLY": return .init(.year, count: count)
        default:
            throw Unreadable(
                reason: "RRULE FREQ \(freq?.prefix(20) ?? "is missing"); Docket keeps DAILY, WEEKLY, MONTHLY and YEARLY"
            )
        }
    }

    /// Whether two due dates are the same day, or the same moment to the second (a file holds seconds).
    static func sameSecond(_ a: DueDate, _ b: DueDate) -> Bool {
        switch (a, b) {
        case let (.date(x), .date(y)):
            Int64(x.timeIntervalSince1970.rounded(.down)) == Int64(y.timeIntervalSince1970.rounded(.down))
        default: a == b
        }
    }

    /// A due date as read, or `previous` when they are the same (a file holds seconds, Docket milliseconds).
    static func keep(_ read: DueDate, _ previous: DueDate) -> DueDate { sameSecond(read, previous) ? previous : read }

    /// A date as read, or `previous` when they are the same second (a file holds seconds, Docket milliseconds).
    static func keep(_ read: Date?, _ previous: Date?) -> Date? {
        guard let read, let previous else { return read }
        return Int64(read.timeIntervalSince1970.rounded(.down)) == Int64(previous.timeIntervalSince1970.rounded(.down))
            ? previous : read
    }

    /// The notes a DESCRIPTION gives: `previous` when it renders the same; else a note per paragraph, each kept from
    /// `previous` when its text is there.
    static func notes(_ description: String?, previous: [Note], item: UUID, date: Date) -> [Note] {
        let text = description ?? ""
        if text == render(previous) { return previous }
        let paragraphs = text.components(separatedBy: "\n\n").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .filter { !$0.isEmpty }
        var notes: [Note] = []
        for paragraph in paragraphs {
            if let kept = previous.first(where: { $0.text == paragraph && !notes.contains($0) }) {
                notes.append(kept)
                continue
            }
            notes.append(
                Note(
                    id: NameBasedID.make(namespace: item, name: "description " + paragraph), date: date, text: paragraph
                ))
        }
        return Note.inOrder(notes)
    }

    static func render(_ notes: [Note]) -> String { notes.map(\.text).joined(separator: "\n\n") }

    /// The entry a VTODO describes, given the item it was (or nil for one new on the calendar side);
    /// what a VTODO cannot say (a repeat's series, a task's slips) comes from `previous`.
    static func entry(_ f: Fields, id: UUID, previous: CalendarEntry?, now: Date) -> CalendarEntry {
        // NB: a CANCELLED todo is not done: the calendar sync takes it as a removal before it gets here.
        let done = f.status == "COMPLETED"
        switch previous {
        case let .task(task, project)?:
            let state: TaskState = done ? .finished : f.status == "IN-PROCESS" ? .inProgress : .unfinished
            let completedDate =
                done ? keep(f.completed, task.completedDate) ?? task.completedDate ?? f.lastModified ?? now : nil
            // NB: as for a todo, a done instance's file says nothing of its series.
            var recurrence = done ? task.recurrence : nil
            if let every = f.every {
                recurrence =
                    task.recurrence.map {
                        Recurrence(
                            every: every, from: $0.from, series: $0.series, occurrence: $0.occurrence, until: f.until)
                    }
                    ?? Recurrence(every: every, series: id, until: f.until)
            }
            // What a VTODO carries, over the task it was: every field it cannot say is kept.
            var read = task.replacing(
                id: id, title: f.summary, dueDate: keep(f.due, task.dueDate), state: state,
                alterDate: .some(keep(f.lastModified, task.alterDate)), tags: f.tags, priority: .some(f.priority),
                notes: notes(f.description, previous: task.notes, item: id, date: f.lastModified ?? now),
                completedDate: .some(completedDate), recurrence: .some(recurrence),
                waitDate: keep(f.wait, task.waitDate), scheduledDate: keep(f.scheduled, task.scheduledDate),
                dependencies: f.dependencies)
            // A task the calendar finishes records no more time: its running slip stops at the finish.
            if task.state != .finished { read = read.stoppingSlipAtFinish()?.task ?? read }
            if sameContent(.task(read, project: project), .task(task, project: project)) { read = task }
            return .task(read, project: project)
        case let .todo(todo)?:
            let completedDate =
                done ? keep(f.completed, todo.completedDate) ?? todo.completedDate ?? f.lastModified ?? now : nil
            // NB: a done instance's file says nothing of its series (Docket writes no RRULE for it, and todoman drops
            // it when it completes one): it keeps the series it had.
            var recurrence = done ? todo.recurrence : nil
            if let every = f.every {
                recurrence =
                    todo.recurrence.map {
                        Recurrence(
                            every: every, from: $0.from, series: $0.series, occurrence: $0.occurrence, until: f.until)
                    }
                    ?? Recurrence(every: every, series: id, until: f.until)
            }
            // What a VTODO carries, over the todo it was: every field it cannot say is kept.
            var read = todo.replacing(
                id: id, text: f.summary, completed: done, due: keep(f.due, todo.due),
                alterDate: .some(keep(f.lastModified, todo.alterDate)), tags: f.tags, priority: .some(f.priority),
                notes: notes(f.description, previous: todo.notes, item: id, date: f.lastModified ?? now),
                completedDate: .some(completedDate), recurrence: .some(recurrence),
                waitDate: keep(f.wait, todo.waitDate), scheduledDate: keep(f.scheduled, todo.scheduledDate),
                dependencies: f.dependencies)
            if sameContent(.todo(read), .todo(todo)) { read = todo }
            return .todo(read)
        case nil:
            let created = f.created ?? f.lastModified ?? now
            let fresh = TodoItem(
                id: id, text: f.summary, creationDate: created, completed: false, dueDate: nil, alterDate: nil)
            return entry(f, id: id, previous: .todo(fresh), now: now)
        }
    }

    /// Whether two entries say the same in every field a VTODO carries (the alter date aside).
    static func sameContent(_ a: CalendarEntry, _ b: CalendarEntry) -> Bool {
        properties(a).filter { $0.name != "LAST-MODIFIED" && $0.name != "DTSTAMP" }
            == properties(b).filter { $0.name != "LAST-MODIFIED" && $0.name != "DTSTAMP" }
    }

    // MARK: Writing

    /// A due date's property (or a wait's or scheduled date's): a DATE (all day) for a day, a DATE-TIME in UTC for a
    /// time, noon included; nil when unknown.
    static func dueProperty(_ name: String, _ due: DueDate) -> ICalComponent.Property? {
        switch due {
        case .unknown: nil
        case let .day(day):
            .init(name: name, parameters: ";VALUE=DATE", value: day.description.replacingOccurrences(of: "-", with: ""))
        case let .date(date): .init(name: name, parameters: "", value: BasicDate.string(date))
        }
    }

    /// The managed properties of an entry, in the order Docket writes them; `uidOf` gives the UID of an item it
    /// depends on (its file's, for an item the calendar made).
    static func properties(
        _ entry: CalendarEntry, uid: String? = nil, uidOf: (UUID) -> String = { $0.uuidString.lowercased() }
    ) -> [ICalComponent.Property] {
        var out: [ICalComponent.Property] = []
        func add(_ name: String, _ value: String, _ parameters: String = "") {
            out.append(.init(name: name, parameters: parameters, value: value))
        }
        let (text, done, completedDate, due, alter, tags, priority, notes, status):
            (String, Bool, Date?, DueDate, Date?, [String], Priority?, [Note], String)
        var created: Date?
        var recurrence: Recurrence?
        let (wait, scheduled, dependencies): (DueDate, DueDate, [UUID])
        switch entry {
        case let .todo(todo):
            (text, done, completedDate, due, alter, tags, priority, notes) =
                (
                    todo.text, todo.completed, todo.completedDate, todo.due, todo.alterDate, todo.tags,
                    todo.priority, todo.notes
                )
            status = done ? "COMPLETED" : "NEEDS-ACTION"
            created = todo.creationDate
            recurrence = todo.recurrence
            (wait, scheduled, dependencies) = (todo.waitDate, todo.scheduledDate, todo.dependencies)
        case let .task(task, _):
            (text, done, completedDate, due, alter, tags, priority, notes) =
                (
                    task.title, task.state == .finished, task.completedDate, task.dueDate, task.alterDate,
                    task.tags, task.priority, task.notes
                )
            status = done ? "COMPLETED" : task.state == .inProgress ? "IN-PROCESS" : "NEEDS-ACTION"
            created = task.creationDate
            recurrence = task.recurrence
            (wait, scheduled, dependencies) = (task.waitDate, task.scheduledDate, task.dependencies)
        }
        add("UID", ICalComponent.escape(uid ?? entry.id.uuidString.lowercased()))
        let stamp = alter ?? created ?? Date(timeIntervalSince1970: 0)
        add("DTSTAMP", BasicDate.string(stamp))
        if let created { add("CREATED", BasicDate.string(created)) }
        add("LAST-MODIFIED", BasicDate.string(stamp))
        add("SUMMARY", ICalComponent.escape(text))
        add("STATUS", status)
        if done {
            add("COMPLETED", BasicDate.string(completedDate ?? stamp))
            add("PERCENT-COMPLETE", "100")
        }
        let dueProperty = self.dueProperty("DUE", due)
        if let start = self.dueProperty("DTSTART", scheduled) {
            // NB: RFC 5545 has a VTODO's DUE later than its DTSTART, and of the same kind (both days or both times).
            let fits = dueProperty.map { $0.parameters == start.parameters && start.value < $0.value } ?? true
            out.append(fits ? start : self.dueProperty(scheduledName, scheduled)!)
        }
        if let dueProperty { out.append(dueProperty) }
        if let wait = self.dueProperty(waitName, wait) { out.append(wait) }
        for dependency in dependencies {
            add("RELATED-TO", ICalComponent.escape(uidOf(dependency)), ";RELTYPE=DEPENDS-ON")
        }
        if let priority { add("PRIORITY", priority == .high ? "1" : priority == .medium ? "5" : "9") }
        if !tags.isEmpty { add("CATEGORIES", tags.map(ICalComponent.escape).joined(separator: ",")) }
        if !notes.isEmpty { add("DESCRIPTION", ICalComponent.escape(render(notes))) }
        // NB: a done instance is no longer the series' next: calendar apps show a VTODO with an RRULE as one still
        // repeating.
        // NB: UNTIL is of DUE's kind (RFC 5545): a day for an all-day todo, else a UTC time.
        let until =
            recurrence?.until.map { date -> String in
                guard case .day = due else { return ";UNTIL=" + BasicDate.string(date) }
                return ";UNTIL=" + BasicDate.dayString(date)
            } ?? ""
        if !done, let every = recurrence?.every {
            switch every.unit {
            case .weekday: add("RRULE", "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR" + until)
            default:
                let freq = ["day": "DAILY", "week": "WEEKLY", "month": "MONTHLY", "year": "YEARLY"][
                    every.unit.rawValue]!
                add("RRULE", "FREQ=\(freq)" + (every.count > 1 ? ";INTERVAL=\(every.count)" : "") + until)
            }
        }
        return out
    }

    /// A file for the entry: `existing` (a whole VCALENDAR) with its VTODO's
    /// managed properties replaced and every other kept, or a new calendar.
    static func file(
        _ entry: CalendarEntry, existing: ICalComponent?, uid: String?,
        uidOf: (UUID) -> String = { $0.uuidString.lowercased() }
    ) -> ICalComponent {
        var calendar =
            existing
            ?? ICalComponent(
                name: "VCALENDAR",
                properties: [
                    .init(name: "VERSION", parameters: "", value: "2.0"),
                    .init(name: "PRODID", parameters: "", value: "-//Docket//Docket//EN"),
                ])
        let index = calendar.components.firstIndex { $0.name == "VTODO" }
        var vtodo = index.map { calendar.components[$0] } ?? ICalComponent(name: "VTODO")
        vtodo.properties =
            properties(entry, uid: uid, uidOf: uidOf) + [.init(name: stampName, parameters: "", value: stamp(entry))]
            + vtodo.properties.filter { !isManaged($0) }
        if let index { calendar.components[index] = vtodo } else { calendar.components.append(vtodo) }
        return calendar
    }
}
