import DocketModel
import Foundation

/// todo.txt (todotxt.org) read into todos and written back.
///
/// `x` marks a done line, followed by its completion date; then comes the
/// creation date; `(A)`, `(B)`, `(C)` are high, medium and low priority (later
/// letters low); `+project` and `@context` become tags (`project` and
/// `@context`); `due:YYYY-MM-DD` is the due date, `t:YYYY-MM-DD` (todo.txt's
/// threshold: hidden until then) the wait date, from the start of that day,
/// `scheduled:YYYY-MM-DD` the scheduled date, each `dep:` the id of a todo it
/// depends on, `pri:A` a done line's priority, `id:` a Docket id; any other
/// `key:value` stays in the text. A key given twice takes the last (the user's latest word, as `todo.sh append` adds
/// it).
/// A line has no id of its own: its todo's id is made from its text (and how
/// many lines before it have the same text), so importing it again finds the same todo.
public enum TodoTxt {
    static let namespace = UUID(uuidString: "B7A1E0C4-3D52-4F8B-8E6A-91C2D4F5A7B3")!

    /// A line read: the todo, and the text its id was made from.
    struct Line {
        var todo: TodoItem
        var key: String
        /// Whether the line says a priority (`(A)`, or `pri:A` on a done line).
        var saysPriority: Bool
        /// The keys the line gives more than once (`t:`, say, once more by `todo.sh append`), each with the value
        /// taken: the last.
        var repeated: [(key: String, taken: String)] = []
    }

    /// Reads todo.txt files (a todo.txt and, if given, its done.txt) in order.
    /// A line that says all the store's todo of its id says (to the day) is that todo, unchanged;
    /// one that says otherwise is an edit made when its file was last modified (`modified`, by file
    /// name; else `now`), as a line keeps no time of its own.
    ///
    /// `known` are the todos whose lines the files held when Docket last read or wrote them
    /// (`Store.todoTxtLines`): one open in the store whose line is gone — deleted, or replaced by another — is
    /// removed, dated by the files' last change. A line found in `elsewhere` (a done.txt beside the todo.txt, not
    /// named, where todo.sh moves a done line) is not gone, and the import says so.
    public static func read(
        _ files: [(name: String, data: Data)], existing: (UUID) -> TodoItem? = { _ in nil },
        modified: [String: Date] = [:], now: Date = DocketClock.now, known: Set<UUID> = [],
        elsewhere: [(name: String, data: Data)] = []
    ) -> ExchangeBatch {
        var batch = ExchangeBatch()
        batch.completesSeries = true
        var todos: [TodoItem] = []
        var seen: [String: Int] = [:]
        for (name, data) in files {
            guard let text = String(validating: data, as: UTF8.self) else {
                batch.problems.append(
                    ExchangeProblem(file: name, reason: "it is not UTF-8 text", skipped: "the whole file"))
                continue
            }
            for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
                if line.allSatisfy(\.isWhitespace) { continue }
                do {
                    var read = try parse(String(line), now: now, written: modified[name] ?? now)
                    for (key, taken) in read.repeated {
                        batch.notes.append(
                            "\(name), line \(index + 1): \(key) twice; took the last, \(key)\(taken) (an export writes "
                                + "only that one).")
                    }
                    if read.todo.id == .zero {
                        seen[read.key, default: 0] += 1
                        read.todo = read.todo.replacing(id: derivedID(read.key, seen[read.key]!))
                    }
                    let old = existing(read.todo.id)
                    if let recurrence = read.todo.recurrence {
                        // A series goes on under the id it had; a line new to the store begins one of its own.
                        let series = old?.recurrence?.series ?? read.todo.id
                        read.todo = read.todo.replacing(
                            recurrence: .some(
                                Recurrence(
                                    every: recurrence.every, from: recurrence.from, series: series,
                                    occurrence: old?.recurrence?.occurrence ?? 1, until: old?.recurrence?.until)))
                    }
                    if let old, read.todo.completed, !read.saysPriority, let priority = old.priority {
                        read.todo = read.todo.replacing(priority: .some(priority))
                    }
                    if let old, TodoTxt.line(old) == TodoTxt.line(read.todo) {
                        read.todo = old
                    } else if let old {
                        // What a line says, over the todo it was: every field a line cannot say (notes, kept keys, a
                        // time of day) is kept, and a date the line gives to the day is the todo's own when it is that
                        // day.
                        let line = read.todo
                        func day(_ date: Date?) -> String? { date.map { BasicDate.dayString($0) } }
                        func keeping(_ read: Date?, _ had: Date?) -> Date? { day(read) == day(had) ? had : read }
                        let zone = DocketClock.timeZone
                        func keeping(_ read: DueDate, _ had: DueDate) -> DueDate {
                            read.day(in: zone) == had.day(in: zone) ? had : read
                        }
                        read.todo = old.replacing(
                            text: line.text,
                            creationDate: undated(line)
                                ? old.creationDate : keeping(line.creationDate, old.creationDate),
                            completed: line.completed, due: keeping(line.due, old.due),
                            // NB: later than the store's own date for it, unless the store changed it since the file
                            // was written.
                            alterDate: .some(max(modified[name] ?? now, line.alterDate ?? .distantPast)),
                            tags: line.tags, priority: .some(line.priority),
                            completedDate: .some(line.completed ? keeping(line.completedDate, old.completedDate) : nil),
                            recurrence: .some(line.recurrence),
                            kept: old.kept.setting("todotxt", to: line.kept["todotxt"]),
                            waitDate: keeping(line.waitDate, old.waitDate),
                            scheduledDate: keeping(line.scheduledDate, old.scheduledDate),
                            dependencies: line.dependencies)
                    }
                    todos.append(read.todo)
                } catch let problem as Unreadable {
                    batch.problems.append(
                        ExchangeProblem(
                            file: name, place: "line \(index + 1)", reason: problem.reason, skipped: "that line"))
                } catch {}
            }
        }
        let read = Set(todos.map(\.id))
        // NB: a line that does not read may be a known todo's: with one, no line is taken as gone.
        let gone = batch.problems.isEmpty ? known.subtracting(read) : []
        let archived = gone.isEmpty ? [] : lineIDs(elsewhere)
        var removed: [Tombstone] = []
        var removedTexts: [String] = []
        var kept: [String] = []
        for todo in gone.compactMap(existing).sorted(by: { $0.id.uuidString < $1.id.uuidString })
        where !todo.completed {
            if archived.contains(todo.id) {
                kept.append("'\(todo.text)'")
                continue
            }
            // NB: a line keeps no time of its own: it went when its file last changed. A todo edited in Docket since
            // then is a later edit, which the merge keeps over the removal, with a record.
            let date = modified.values.max() ?? now
            removed.append(Tombstone(id: todo.id, kind: .todo, removedDate: date))
            removedTexts.append("'\(todo.text)'")
        }
        if !removedTexts.isEmpty {
            batch.notes.append(
                "Removed \(removedTexts.count == 1 ? "1 todo" : "\(removedTexts.count) todos") whose line is gone "
                    + "(deleted or replaced): \(removedTexts.joined(separator: ", ")).")
        }
        if !kept.isEmpty {
            batch.notes.append(
                "Left \(kept.joined(separator: ", ")) as \(kept.count == 1 ? "it is" : "they are"): "
                    + "\(kept.count == 1 ? "its line is" : "their lines are") in \(elsewhere.map(\.name).joined(separator: ", ")), "
                    + "not named; name it to import the line.")
        }
        batch.state = AppState(todos: todos, projects: [], removed: removed)
        batch.inferredRemovals = Set(removed.map(\.id))
        return batch
    }

    /// The ids of the lines of these files, as `read` gives them; a line that does not read has none.
    static func lineIDs(_ files: [(name: String, data: Data)]) -> Set<UUID> {
        var ids = Set<UUID>()
        var seen: [String: Int] = [:]
        for (_, data) in files {
            guard let text = String(validating: data, as: UTF8.self) else { continue }
            for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
                let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
                guard !line.allSatisfy(\.isWhitespace), let read = try? parse(String(line), now: .distantPast) else {
                    continue
                }
                if read.todo.id == .zero {
                    seen[read.key, default: 0] += 1
                    ids.insert(derivedID(read.key, seen[read.key]!))
                } else {
                    ids.insert(read.todo.id)
                }
            }
        }
        return ids
    }

    /// The kept key marking a todo read from a line that gave no creation date.
    static let undatedKeys = KeptKeys(["todotxt": ["undated": .bool(true)]])

    /// Whether the todo came from a line without a creation date, which its line leaves out too.
    static func undated(_ todo: TodoItem) -> Bool { todo.kept["todotxt"]["undated"] == .bool(true) }

    /// The id of the `occurrence`th line with this text.
    static func derivedID(_ key: String, _ occurrence: Int) -> UUID {
        NameBasedID.make(namespace: namespace, name: occurrence == 1 ? key : "\(key) #\(occurrence)")
    }

    private struct Unreadable: Error { let reason: String }

    /// One line as a todo; its id is .zero unless the line names one. A day the line gives is that day's noon, but
    /// no later than `written`, the moment its file was written, on that day: a line done this morning was done by
    /// the time its file changed, so neither it nor the next instance it makes is dated ahead of the edits after it.
    static func parse(_ line: String, now: Date, written: Date? = nil) throws -> Line {
        if line.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && $0 != "\t" }) {
            throw Unreadable(reason: "it holds control characters, which todo.txt lines do not")
        }
        var words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)[...]
        var completed = false
        var completedDate: Date?
        var creationDate: Date?
        var priority: Priority?
        /// A YYYY-MM-DD word's day.
        func day(_ word: String?) -> Date? {
            guard let word, word.count == 10, Array(word)[4] == "-", Array(word)[7] == "-",
                let noon = BasicDate.day(word.replacingOccurrences(of: "-", with: ""))
            else { return nil }
            // NB: a date ahead of the real one outweighs every later edit of the todo in a merge (by alterDate).
            if let written, noon > written, BasicDate.dayString(written) == BasicDate.dayString(noon) { return written }
            return noon
        }
        if words.first == "x" {
            completed = true
            words.removeFirst()
            if let date = day(words.first) {
                completedDate = date
                words.removeFirst()
            }
            if let date = day(words.first) {
                creationDate = date
                words.removeFirst()
            }
        }
        if let first = words.first, let found = letterPriority(first) {
            priority = found
            words.removeFirst()
        }
        if creationDate == nil, let date = day(words.first) {
            creationDate = date
            words.removeFirst()
        }
        var text: [String] = []
        var tags: [String] = []
        var due = DueDate.unknown
        var wait = DueDate.unknown
        var scheduled = DueDate.unknown
        var dependencies: [UUID] = []
        var id: UUID?
        var repeating: (every: Recurrence.Interval, from: Recurrence.Anchor)?
        let saidPriority = priority != nil
        // NB: a key given twice (`todo.sh append 3 t:…` on a line with one) takes the last, the user's latest word.
        var given: [(key: String, value: String)] = []
        func note(_ key: String, _ word: String) { given.append((key, String(word.dropFirst(key.count)))) }
        for word in words {
            if word.count > 1, word.hasPrefix("+") || word.hasPrefix("@") {
                let tag = word.hasPrefix("+") ? String(word.dropFirst()) : word
                if Tags.problem(with: tag) == nil {
                    tags.append(tag)
                    continue
                }
            }
            if word.hasPrefix("due:") {
                guard let day = CalendarDay(String(word.dropFirst(4))) else {
                    throw Unreadable(reason: "\(word.prefix(30)) is not a date as due:YYYY-MM-DD")
                }
                note("due:", word)
                due = .day(day)
                continue
            }
            if word.hasPrefix("t:") {
                // NB: a threshold day hides the line until that day begins, as a wait for a day does.
                guard let day = CalendarDay(String(word.dropFirst(2))) else {
                    throw Unreadable(reason: "\(word.prefix(30)) is not a date as t:YYYY-MM-DD")
                }
                note("t:", word)
                wait = .day(day)
                continue
            }
            if word.hasPrefix("scheduled:") {
                guard let day = CalendarDay(String(word.dropFirst(10))) else {
                    throw Unreadable(reason: "\(word.prefix(30)) is not a date as scheduled:YYYY-MM-DD")
                }
                note("scheduled:", word)
                scheduled = .day(day)
                continue
            }
            if word.hasPrefix("dep:"), let dependency = UUID(hex: String(word.dropFirst(4))) {
                dependencies.append(dependency)
                continue
            }
            if word.hasPrefix("pri:"), word.count == 5, let found = letterPriority("(\(word.dropFirst(4)))") {
                priority = found
                continue
            }
            if word.hasPrefix("rec:") {
                guard let read = Self.recurrence(String(word.dropFirst(4))) else {
                    throw Unreadable(
                        reason: "\(word.prefix(30)) is not a repeat such as rec:1w or rec:+2d (d, b, w, m, y)")
                }
                note("rec:", word)
                repeating = read
                continue
            }
            if word.hasPrefix("id:"), let named = UUID(hex: String(word.dropFirst(3))) {
                id = named
                continue
            }
            text.append(word)
        }
        guard !text.isEmpty else { throw Unreadable(reason: "it has no text, only dates, priority or tags") }
        let joined = text.joined(separator: " ")
        let created = creationDate ?? completedDate ?? now
        let done = completed ? completedDate ?? created : nil
        // NB: a line without a creation date is dated by its reading, and marked, so the export writes none either.
        let todo = TodoItem(
            id: id ?? .zero, text: joined, creationDate: created, completed: completed, due: due,
            alterDate: done, tags: Tags.normalized(tags), priority: priority, completedDate: done,
            recurrence: repeating.map { Recurrence(every: $0.every, from: $0.from, series: id ?? .zero) },
            kept: creationDate == nil ? undatedKeys : KeptKeys(), waitDate: wait, scheduledDate: scheduled,
            dependencies: Dependencies.normalized(dependencies))
        var repeated: [(key: String, taken: String)] = []
        for (key, value) in given where given.filter({ $0.key == key }).count > 1 {
            if let index = repeated.firstIndex(where: { $0.key == key }) {
                repeated[index].taken = value
            } else {
                repeated.append((key, value))
            }
        }
        return Line(
            todo: todo, key: joined, saysPriority: saidPriority || (completed && priority != nil), repeated: repeated)
    }

    /// A `rec:` value: `1w` (from completion), `+1w` (from the due date); units d, b (weekdays), w, m, y.
    static func recurrence(_ value: String) -> (every: Recurrence.Interval, from: Recurrence.Anchor)? {
        var body = Substring(value)
        let strict = body.hasPrefix("+")
        if strict { body = body.dropFirst() }
        guard let unit = body.last, let count = Int(body.dropLast().isEmpty ? "1" : body.dropLast()),
            (1...1000).contains(count)
        else { return nil }
        let interval: Recurrence.Interval
        switch unit {
        case "d": interval = .init(.day, count: count)
        case "b":
            guard count == 1 else { return nil }
            interval = .init(.weekday)
        case "w": interval = .init(.week, count: count)
        case "m": interval = .init(.month, count: count)
        case "y": interval = .init(.year, count: count)
        default: return nil
        }
        return (interval, strict ? .due : .completion)
    }

    /// The `rec:` value of a recurrence.
    static func rec(_ recurrence: Recurrence) -> String {
        let unit = ["day": "d", "weekday": "b", "week": "w", "month": "m", "year": "y"][recurrence.every.unit.rawValue]!
        return (recurrence.from == .due ? "+" : "") + "\(recurrence.every.count)" + unit
    }

    /// (A) is high, (B) medium, (C) to (Z) low; nil when the word is not a priority.
    static func letterPriority(_ word: String) -> Priority? {
        let scalars = Array(word.unicodeScalars)
        guard scalars.count == 3, scalars[0] == "(", scalars[2] == ")", ("A"..."Z").contains(scalars[1]) else {
            return nil
        }
        return scalars[1] == "A" ? .high : scalars[1] == "B" ? .medium : .low
    }

    /// The todos as todo.txt lines, open ones first, each in store order. A
    /// todo whose id is not the one its text would give carries it as `id:`.
    public static func export(_ todos: [TodoItem]) -> String {
        var seen: [String: Int] = [:]
        var lines: [String] = []
        for todo in todos.filter({ !$0.completed }) + todos.filter(\.completed) {
            let text = words(todo.text)
            seen[text, default: 0] += 1
            let line = self.line(todo)
            lines.append(
                derivedID(text, seen[text]!) == todo.id ? line : line + " id:" + todo.id.uuidString.lowercased())
        }
        return lines.map { $0 + "\n" }.joined()
    }

    private static func words(_ text: String) -> String {
        text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    /// The line of a todo, without its id.
    static func line(_ todo: TodoItem) -> String {
        var words: [String] = []
        func day(_ date: Date) -> String {
            let basic = BasicDate.dayString(date)
            return "\(basic.prefix(4))-\(basic.dropFirst(4).prefix(2))-\(basic.suffix(2))"
        }
        let letter = todo.priority.map { $0 == .high ? "A" : $0 == .medium ? "B" : "C" }
        if todo.completed {
            words.append("x")
            words.append(day(todo.completedDate ?? todo.alterDate ?? todo.creationDate))
        } else if let letter {
            words.append("(\(letter))")
        }
        if !undated(todo) { words.append(day(todo.creationDate)) }
        words.append(self.words(todo.text))
        // NB: a tag read from a file is checked as one typed is; one made otherwise still cannot start a line of its
        // own.
        words += todo.tags.map { self.words($0).replacingOccurrences(of: " ", with: "_") }.filter { !$0.isEmpty }
            .map { $0.hasPrefix("@") ? $0 : "+" + $0 }
        if let due = todo.due.day(in: DocketClock.timeZone) { words.append("due:\(due)") }
        if let wait = todo.waitDate.day(in: DocketClock.timeZone) { words.append("t:\(wait)") }
        if let scheduled = todo.scheduledDate.day(in: DocketClock.timeZone) { words.append("scheduled:\(scheduled)") }
        words += todo.dependencies.map { "dep:" + $0.uuidString.lowercased() }
        if let recurrence = todo.recurrence { words.append("rec:" + rec(recurrence)) }
        if todo.completed, let letter { words.append("pri:" + letter) }
        return words.joined(separator: " ")
    }
}
