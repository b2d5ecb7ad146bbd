import DocketModel
import Foundation

/// Random model values for property specs, from a seeded generator.
public enum RandomValues {
    static let words = [
        "Buy", "milk", "Call", "Anna", "about", "the", "party", "fix", "bike", "tyre",
        "Café", "naïve", "日本語", "emoji 🎉", "quote \"x\"", "back\\slash", "path/to", "tab\tand\nnewline", "",
    ]

    /// A text of a few words, with the characters JSON must escape now and then.
    public static func text(_ g: inout SeededGenerator) -> String {
        (0..<Int.random(in: 1...5, using: &g)).map { _ in words.randomElement(using: &g)! }.joined(separator: " ")
    }

    /// A date within a few years of 2026, sometimes with sub-millisecond precision.
    public static func date(_ g: inout SeededGenerator) -> Date {
        let ms = Int64.random(in: 1_700_000_000_000...1_900_000_000_000, using: &g)
        let sub = Bool.random(using: &g) ? Double.random(in: 0..<0.001, using: &g) : 0
        return Date(timeIntervalSince1970: Double(ms) / 1000 + sub)
    }

    public static func optionalDate(_ g: inout SeededGenerator) -> Date? {
        Bool.random(using: &g) ? date(&g) : nil
    }

    /// A due date: a moment, a day without a time, or none, now and then at noon local time.
    public static func due(_ g: inout SeededGenerator) -> DueDate {
        switch Int.random(in: 0..<4, using: &g) {
        case 0: return .unknown
        case 1: return .date(date(&g))
        case 2: return .date(CalendarDay(date(&g), in: DocketClock.timeZone).noon(in: DocketClock.timeZone))
        default: return .day(CalendarDay(date(&g), in: DocketClock.timeZone))
        }
    }

    public static func uuid(_ g: inout SeededGenerator) -> UUID {
        let a = g.next()
        let b = g.next()
        var bytes = [UInt8](repeating: 0, count: 16)
        for i in 0..<8 {
            bytes[i] = UInt8(truncatingIfNeeded: a >> (8 * UInt64(i)))
            bytes[8 + i] = UInt8(truncatingIfNeeded: b >> (8 * UInt64(i)))
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }

    /// An item with a random value in every field it declares, so a new field is exercised as soon as it is declared.
    public static func item<Item: FieldCoded>(_ g: inout SeededGenerator) -> Item {
        Item.fields.reduce(Item.blank) { item, field in
            field.setting(value(of: type(of: field.value(of: Item.blank)), &g), in: item)
        }
    }

    /// A random value of a field's type; a type it has no generator for stops the spec, naming it.
    public static func value(of type: any FieldValue.Type, _ g: inout SeededGenerator) -> any FieldValue {
        switch type {
        case is String.Type: return text(&g)
        case is Bool.Type: return Bool.random(using: &g)
        case is UUID.Type: return uuid(&g)
        case is Date.Type: return date(&g)
        case is Date?.Type: return optionalDate(&g)
        case is UUID?.Type: return Bool.random(using: &g) ? uuid(&g) : nil as UUID?
        case is DueDate.Type: return due(&g)
        case is TaskState.Type: return TaskState.allCases.randomElement(using: &g)!
        case is Tombstone.Kind.Type: return [Tombstone.Kind.todo, .project, .task].randomElement(using: &g)!
        case is [TimeSlip].Type: return (0..<Int.random(in: 0...3, using: &g)).map { _ in slip(&g) }
        case is [String].Type: return (0..<Int.random(in: 0...3, using: &g)).map { _ in tags.randomElement(using: &g)! }
        case is [UUID].Type:
            return Dependencies.normalized((0..<Int.random(in: 0...3, using: &g)).map { _ in uuid(&g) })
        case is Priority?.Type:
            return Bool.random(using: &g) ? Priority.allCases.randomElement(using: &g)! : nil as Priority?
        case is [Note].Type:
            return Note.inOrder(
                (0..<Int.random(in: 0...3, using: &g)).map { _ in Note(id: uuid(&g), date: date(&g), text: text(&g)) })
        case is Recurrence?.Type: return Bool.random(using: &g) ? recurrence(&g) : nil as Recurrence?
        case is KeptKeys.Type:
            guard Bool.random(using: &g) else { return KeptKeys() }
            let values: [JSONValue] = [
                .string(text(&g)), .integer(Int64.random(in: -5...5, using: &g)), .bool(Bool.random(using: &g)),
                .array([.string(uuid(&g).uuidString.lowercased())]), .null,
            ]
            return KeptKeys([
                "taskwarrior": ["wait": values.randomElement(using: &g)!, "estimate": values.randomElement(using: &g)!]
            ])
        case is Claim?.Type: return Bool.random(using: &g) ? claim(&g) : nil as Claim?
        case is [ProjectTask].Type: return (0..<Int.random(in: 0...4, using: &g)).map { _ in task(&g) }
        default: fatalError("RandomValues has no generator for a field of type \(type); add one")
        }
    }

    public static func todo(_ g: inout SeededGenerator) -> TodoItem { item(&g) }

    /// Tags, some of them alike but for case, and some not ASCII.
    public static let tags = ["errand", "shop", "home", "work", "Work", "café", "日本"]

    /// A recurrence of any interval, anchor and occurrence.
    public static func recurrence(_ g: inout SeededGenerator) -> Recurrence {
        let unit = Recurrence.Interval.Unit.allCases.randomElement(using: &g)!
        return Recurrence(
            every: .init(unit, count: Int.random(in: 1...3, using: &g)),
            from: Recurrence.Anchor.allCases.randomElement(using: &g)!,
            series: uuid(&g), occurrence: Int.random(in: 1...20, using: &g))
    }

    /// A claim by one of a few holders, renewed, released or neither.
    public static func claim(_ g: inout SeededGenerator) -> Claim {
        let taken = date(&g)
        let expires = taken.addingTimeInterval(Double(Int.random(in: 1...1440, using: &g)) * 60)
        return Claim(
            holder: RandomEdits.holders.randomElement(using: &g)!, id: uuid(&g), taken: taken,
            renewed: Bool.random(using: &g) ? taken.addingTimeInterval(30) : nil, expires: expires,
            released: Bool.random(using: &g) ? taken.addingTimeInterval(Double.random(in: 0...600, using: &g)) : nil)
    }

    /// Two claims on one item, related as agents make them: versions of one claim, claims taken close together, or
    /// claims far apart.
    public static func claimPair(_ g: inout SeededGenerator) -> (Claim, Claim) {
        let a = claim(&g)
        func minutes(_ range: ClosedRange<Int>) -> TimeInterval { Double(Int.random(in: range, using: &g)) * 60 }
        let b: Claim
        switch Int.random(in: 0..<3, using: &g) {
        case 0:
            let renewed = Bool.random(using: &g) ? a.taken + minutes(0...30) : a.renewed
            b = Claim(
                holder: a.holder, id: a.id, taken: a.taken, renewed: renewed, expires: a.taken + minutes(1...120),
                released: Bool.random(using: &g) ? a.taken + minutes(0...60) : nil)
        case 1:
            // NB: on a minute grid, so claims are often taken on the same millisecond.
            let taken = a.taken + minutes(-120...120)
            b = Claim(
                holder: RandomEdits.holders.randomElement(using: &g)!, id: uuid(&g), taken: taken,
                expires: taken + minutes(1...120), released: Bool.random(using: &g) ? taken + minutes(0...60) : nil)
        default:
            b = claim(&g)
        }
        return Bool.random(using: &g) ? (a, b) : (b, a)
    }

    public static func slip(_ g: inout SeededGenerator) -> TimeSlip {
        let start = date(&g)
        let stop = Bool.random(using: &g) ? start.addingTimeInterval(Double.random(in: 0...10_000, using: &g)) : nil
        return TimeSlip(id: uuid(&g), start: start, stop: stop)
    }

    public static func task(_ g: inout SeededGenerator) -> ProjectTask { item(&g) }

    public static func project(_ g: inout SeededGenerator) -> Project { item(&g) }

    public static func tombstone(_ g: inout SeededGenerator) -> Tombstone {
        let kind = [Tombstone.Kind.todo, .project, .task].randomElement(using: &g)!
        return Tombstone(id: uuid(&g), kind: kind, projectID: kind == .task ? uuid(&g) : nil, removedDate: date(&g))
    }

    public static func state(_ g: inout SeededGenerator) -> AppState {
        AppState(
            todos: (0..<Int.random(in: 0...6, using: &g)).map { _ in todo(&g) },
            projects: (0..<Int.random(in: 0...3, using: &g)).map { _ in project(&g) },
            removed: (0..<Int.random(in: 0...3, using: &g)).map { _ in tombstone(&g) })
    }
}
