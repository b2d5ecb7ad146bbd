import ArgumentParser
import Docket
import Foundation

/// A todo or task as a plain form for an editor: every field a command sets, one per line (`text:` (a task's title),
/// `due:`, `wait:`, `scheduled:`, `tags:`, `priority:`, `repeat:`, `depends:`), then its notes, one per `- ` line.
/// Read back, a line that is missing leaves its field as it is (a form kept by an older docket has only `text:` and
/// `due:`).
struct TodoForm: Equatable {
    var text: String
    var due: String
    var wait: String?
    var scheduled: String?
    var tags: String?
    var priority: String?
    var repeats: String?
    var depends: String?
    var notes: [String]?

    /// The field lines in the order the form has them, each with how it is read.
    static let keys = ["text", "due", "wait", "scheduled", "tags", "priority", "repeat", "depends", "notes"]

    init(
        text: String, due: String, wait: String? = nil, scheduled: String? = nil, tags: String? = nil,
        priority: String? = nil, repeats: String? = nil, depends: String? = nil, notes: [String]? = nil
    ) {
        self.text = text
        self.due = due
        self.wait = wait
        self.scheduled = scheduled
        self.tags = tags
        self.priority = priority
        self.repeats = repeats
        self.depends = depends
        self.notes = notes
    }

    init(_ entry: Entry) {
        self.init(
            text: entry.text, due: DateInput.show(entry.due), wait: DateInput.show(entry.waitDate),
            scheduled: DateInput.show(entry.scheduledDate), tags: entry.tags.map { "+" + $0 }.joined(separator: " "),
            priority: entry.priority?.rawValue ?? "none",
            repeats: entry.recurrence.map { "\($0.every) from \($0.from.rawValue)" } ?? "none",
            depends: entry.dependencies.map(Output.short).joined(separator: " "), notes: entry.notes.map(\.text))
    }

    /// The form as written to the file.
    var file: String {
        var lines = [
            "# Edit it, save, and close the editor; lines starting with # are ignored.",
            "# due, wait (hidden until then) and scheduled: \(DateInput.forms); or none.",
            "# tags: +words; priority: high, medium, low or none; repeat: week, 2 weeks, day from completion… or none;",
            "# depends: ids of todos or tasks; notes: a line each, starting with '- ' (more lines start with two spaces).",
            "text: \(text)",
            "due: \(due)",
        ]
        for (key, value) in [
            ("wait", wait), ("scheduled", scheduled), ("tags", tags), ("priority", priority), ("repeat", repeats),
            ("depends", depends),
        ] {
            if let value { lines.append("\(key): \(value)".trimmingCharacters(in: .whitespaces)) }
        }
        if let notes {
            lines.append("notes:")
            for note in notes {
                lines.append(
                    "- " + note.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n  "))
            }
        }
        return lines.joined(separator: "\n") + "\n\n"
    }

    /// A form read back; lines after `text:` that name no field continue the text.
    static func parse(_ file: String) throws -> TodoForm {
        var values: [String: String] = [:]
        var text: [String]?
        var notes: [String]?
        var section = ""
        for line in file.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("#") { continue }
            if let key = keys.first(where: { line.hasPrefix($0 + ":") }) {
                let value = String(line.dropFirst(key.count + 1)).trimmingCharacters(in: .whitespaces)
                section = key
                switch key {
                case "text": text = [value]
                case "notes":
                    notes = []
                    if !value.isEmpty { notes?.append(value) }
                default: values[key] = value
                }
                continue
            }
            let blank = line.trimmingCharacters(in: .whitespaces).isEmpty
            if section == "text", !blank {
                text?.append(line)
            } else if section == "notes", line.hasPrefix("- ") || line == "-" {
                notes?.append(String(line.dropFirst(2)))
            } else if section == "notes", line.hasPrefix("  "), notes?.isEmpty == false {
                notes![notes!.count - 1] += "\n" + line.dropFirst(2)
            } else if !blank {
                throw ValidationError(
                    "the line '\(Output.safe(line))' names no field; the form has "
                        + keys.map { "'\($0):'" }.joined(separator: ", ") + " lines, and notes start with '- '")
            }
        }
        guard let text else { throw ValidationError("the form has no 'text:' line") }
        return TodoForm(
            text: text.joined(separator: "\n"), due: values["due"] ?? "none", wait: values["wait"],
            scheduled: values["scheduled"], tags: values["tags"], priority: values["priority"],
            repeats: values["repeat"], depends: values["depends"],
            notes: notes?.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty })
    }

    /// The changes that make `entry`, shown as `shown` (this form as it was written, read back), into what this form
    /// says; a field whose line is unchanged is left alone. Throws a usage error naming a line that does not read.
    func changes(to entry: Entry, shown: TodoForm, store: Store) throws -> [SharedChange] {
        var changes: [SharedChange] = []
        if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw ValidationError("the text cannot be empty")
        }
        if text != shown.text { changes.append(.text(text)) }
        // The form shows minutes: a date read back within the same minute is the one it had.
        if due != shown.due, case let read = try DueInput.parse(due).due, !sameMinute(read, entry.due) {
            changes.append(.due(read))
        }
        if let wait, wait != shown.wait, case let read = try DueInput.parse(wait).due, !sameMinute(read, entry.waitDate)
        {
            changes.append(.wait(read))
        }
        if let scheduled, scheduled != shown.scheduled, case let read = try DueInput.parse(scheduled).due,
            !sameMinute(read, entry.scheduledDate)
        {
            changes.append(.scheduled(read))
        }
        if let tags, tags != shown.tags {
            var wanted: [String] = []
            for word in tags.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init) {
                let tag = word.hasPrefix("+") ? String(word.dropFirst()) : word
                if let problem = Tags.problem(with: tag) {
                    throw ValidationError("tags: '\(Output.safe(word))' is not a tag: \(problem)")
                }
                wanted.append(tag)
            }
            changes.append(.tagging(add: wanted, remove: entry.tags.filter { !wanted.contains($0) }))
        }
        if let priority, priority != shown.priority {
            changes.append(.priority(try PriorityInput.parse(priority.isEmpty ? "none" : priority).priority))
        }
        if let repeats, repeats != shown.repeats {
            changes.append(.recurrence(try Self.recurrence(repeats, of: entry)))
        }
        if let depends, depends != shown.depends {
            let current = entry.dependencies
            var wanted: [UUID] = []
            for word in depends.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init) {
                // An id it depends on already stands for itself, even when its item is no longer in the store.
                let kept = current.filter { $0.uuidString.hasPrefix(word.uppercased()) }
                wanted.append(word.count >= 4 && kept.count == 1 ? kept[0] : try store.entryRef(word).id)
            }
            let add = wanted.filter { !current.contains($0) }
            if !add.isEmpty { try store.checkDependencies(of: entry.id, on: add) }
            changes.append(.depending(add: add, remove: current.filter { !wanted.contains($0) }))
        }
        if let notes, notes != shown.notes { changes += Self.noteChanges(from: entry.notes, to: notes) }
        return changes
    }

    /// `none`, or an interval with `from due` or `from completion` after it ("2 weeks from completion").
    private static func recurrence(_ text: String, of entry: Entry) throws -> Recurrence? {
        let words = text.lowercased().components(separatedBy: " from ")
        if words[0].trimmingCharacters(in: .whitespaces) == "none" || text.isEmpty { return nil }
        guard words.count <= 2 else {
            throw ValidationError(
                "repeat: '\(Output.safe(text))' says 'from' twice; write week, 2 weeks from completion…")
        }
        let every = try RepeatInput.parseInterval(words[0].trimmingCharacters(in: .whitespaces))
        let from = try words.count == 2 ? RepeatInput.parseAnchor(words[1].trimmingCharacters(in: .whitespaces)) : .due
        let current = entry.recurrence
        return Recurrence(
            every: every, from: from, series: current?.series ?? entry.id, occurrence: current?.occurrence ?? 1,
            until: current?.until)
    }

    /// The note changes from `notes` to these texts: a note whose text is still there stays as it is; the others
    /// are edited in order into the new texts, and what is left is removed or added.
    private static func noteChanges(from notes: [Note], to texts: [String]) -> [SharedChange] {
        var unmatched = texts
        var gone: [Note] = []
        for note in notes {
            if let index = unmatched.firstIndex(of: note.text) {
                unmatched.remove(at: index)
            } else {
                gone.append(note)
            }
        }
        var changes: [SharedChange] = []
        for (note, text) in zip(gone, unmatched) { changes.append(.noting(.edit(note.id, text: text))) }
        for note in gone.dropFirst(unmatched.count) { changes.append(.noting(.remove(note.id))) }
        for text in unmatched.dropFirst(gone.count) { changes.append(.noting(.add(Note(text: text)))) }
        return changes
    }
}

/// Whether two due dates are the same, times to the minute.
func sameMinute(_ a: DueDate, _ b: DueDate) -> Bool {
    switch (a, b) {
    case let (.date(x), .date(y)): Int(x.timeIntervalSince1970 / 60) == Int(y.timeIntervalSince1970 / 60)
    default: a == b
    }
}
