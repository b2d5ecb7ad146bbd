import DocketModel
import Foundation

/// The specs' one fake clock, with an id source driven by a seeded generator,
/// installed as Docket's: time moves only when told, in a fixed time zone
/// (UTC unless said), and a property case is replayed exactly from its seed.
public final class SeededWorld: @unchecked Sendable {
    private let lock = NSLock()
    private var generator: SeededGenerator
    private var milliseconds: Int64

    /// A world at a fixed start time, in `timeZone`, whose ids come from `seed`.
    public init(seed: UInt64, start: Int64 = 1_795_339_800_000, timeZone: TimeZone = TimeZone(identifier: "UTC")!) {
        generator = SeededGenerator(seed: seed ^ 0xD0C3_E7)
        milliseconds = start
        DocketClock.use { [unowned self] in now }
        DocketClock.use(timeZone: timeZone)
        DocketIDs.use { [unowned self] in lock.withLock { RandomValues.uuid(&generator) } }
    }

    /// Back to the system clock, time zone and random ids.
    public func uninstall() {
        DocketClock.reset()
        DocketIDs.reset()
    }

    /// The world's current time.
    public var now: Date { lock.withLock { Date(docketMillisecondsForSpecs: milliseconds) } }
    /// The world's current time in milliseconds.
    public var time: Int64 {
        get { lock.withLock { milliseconds } }
        set { lock.withLock { milliseconds = newValue } }
    }

    /// Moves the clock to `date` (at whole milliseconds).
    public func set(_ date: Date) { time = Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    /// Moves the clock on (or back, for a negative number) by `seconds`.
    public func advance(_ seconds: TimeInterval) { time += Int64((seconds * 1000).rounded()) }
}

extension Date {
    /// A date at whole milliseconds since 1970.
    public init(docketMillisecondsForSpecs ms: Int64) { self.init(timeIntervalSince1970: Double(ms) / 1000) }
}

/// Random edits of every kind, made through the Change DSL.
public enum RandomEdits {
    static let texts = [
        "Buy milk", "Call Anna", "Fix bike", "Water plants", "Book flights", "Pay rent", "Party", "Buy Beer",
        "Order Pizza", "Café",
    ]

    /// The agents that claim items in random edits.
    public static let holders = ["agent-1", "agent-2", "agent-3"]

    /// A claim as an agent changes it: a new one taken now, the current one renewed or released.
    public static func claimChange(_ current: Claim?, _ g: inout SeededGenerator) -> Claim? {
        let lease = Double(Int.random(in: 1...3, using: &g)) * 60
        switch Int.random(in: 0..<4, using: &g) {
        case 0: return current?.renewing(lease: lease) ?? Claim(holder: holders.randomElement(using: &g)!, lease: lease)
        case 1: return current?.releasing()
        default: return Claim(holder: holders.randomElement(using: &g)!, lease: lease)
        }
    }

    /// A state made from nothing by `count` random edits.
    public static func state(_ count: Int, _ g: inout SeededGenerator, world: SeededWorld) -> AppState {
        (0..<count).reduce(AppState()) { state, _ in edit(state, &g, world: world) }
    }

    /// `state` after `count` random edits, the clock stepping between them.
    public static func edits(_ state: AppState, _ count: Int, _ g: inout SeededGenerator, world: SeededWorld)
        -> AppState
    {
        (0..<count).reduce(state) { state, _ in edit(state, &g, world: world) }
    }

    /// One random edit, after a random step of the clock (sometimes none, sometimes backwards).
    public static func edit(_ state: AppState, _ g: inout SeededGenerator, world: SeededWorld) -> AppState {
        // NB: steps on a coarse grid, often none, so the two sides often edit
        // at the very same millisecond and the merge's tie rule gets exercised.
        switch Int.random(in: 0..<10, using: &g) {
        case 0, 1, 2: break
        case 3: world.time -= Int64.random(in: 1...5, using: &g) * 1000
        default: world.time += Int64.random(in: 1...3, using: &g) * 1000
        }
        let text =
            texts.randomElement(using: &g)! + (Bool.random(using: &g) ? "" : " \(Int.random(in: 1...9, using: &g))")
        let due: Date? =
            Bool.random(using: &g)
            ? world.now.addingTimeInterval(Double(Int.random(in: 1...30, using: &g)) * 86_400) : nil

        switch Int.random(in: 0..<20, using: &g) {
        case 0, 1:
            return state.alter(by: .adding(.todo(TodoItem(text: text))))
        case 2, 3, 4:
            guard let todo = state.todos.randomElement(using: &g) else { return state }
            switch Int.random(in: 0..<14, using: &g) {
            case 13: return state.alter(by: .updating(.todo(todo.alter(.claim(claimChange(todo.claim, &g))))))
            case 0:
                return todo.completed
                    ? state.alter(by: .updating(.todo(todo.alter(.completed(false))))) : state.completingTodo(todo.id)
            case 1: return state.alter(by: .updating(.todo(todo.alter(.tagging(add: tags(&g), remove: tags(&g))))))
            case 2:
                return state.alter(
                    by: .updating(.todo(todo.alter(.priority(Priority.allCases.randomElement(using: &g))))))
            case 3: return state.alter(by: .updating(.todo(todo.alter(.noting(noteChange(todo.notes, text, &g))))))
            case 4:
                let every = Recurrence.Interval(
                    Recurrence.Interval.Unit.allCases.randomElement(using: &g)!, count: Int.random(in: 1...2, using: &g)
                )
                let recurrence =
                    Bool.random(using: &g)
                    ? nil
                    : Recurrence(
                        every: every, from: Bool.random(using: &g) ? .due : .completion,
                        series: todo.recurrence?.series ?? todo.id, occurrence: todo.recurrence?.occurrence ?? 1)
                return state.alter(by: .updating(.todo(todo.alter(.recurrence(recurrence)))))
            case 5: return state.alter(by: .updating(.todo(todo.alter(.wait(planned(due, &g))))))
            case 6: return state.alter(by: .updating(.todo(todo.alter(.scheduled(planned(due, &g))))))
            case 7:
                let (add, remove) = dependencies(state, &g)
                return state.alter(by: .updating(.todo(todo.alter(.depending(add: add, remove: remove)))))
            default:
                let change: TodoItem.Change = [.text(text), .completed(!todo.completed), .due(due)].randomElement(
                    using: &g)!
                return state.alter(by: .updating(.todo(todo.alter(change))))
            }
        case 5:
            guard let todo = state.todos.randomElement(using: &g) else { return state }
            let changes: [TodoItem.Change] = Bool.random(using: &g) ? [] : [.text(text)]
            return state.alter(by: .adding(.todo(todo.alter(.fork(changes)))))
        case 6:
            guard let todo = state.todos.randomElement(using: &g) else { return state }
            return state.alter(by: .removing(.todo(todo)))
        case 7:
            return state.alter(by: .adding(.project(Project(title: text))))
        case 8:
            guard let project = state.projects.randomElement(using: &g) else { return state }
            return state.alter(by: .updating(.project(project.alter(by: .setting(.title(to: text))))))
        case 9:
            guard let project = state.projects.randomElement(using: &g) else { return state }
            return Int.random(in: 0..<3, using: &g) == 0
                ? state.alter(by: .removing(.project(project)))
                : state.alter(by: .adding(.project(project))) // moves it to the end
        case 10, 11:
            guard let project = state.projects.randomElement(using: &g) else { return state }
            return state.alter(by: .updating(.project(project.alter(by: .adding(.task(ProjectTask(title: text)))))))
        case 12, 13, 14:
            guard let project = state.projects.randomElement(using: &g),
                let task = project.tasks.randomElement(using: &g)
            else { return state }
            let (add, remove) = dependencies(state, &g)
            let change: ProjectTask.Change = [
                .setting(.title(to: text)), .setting(.dueDate(to: DueDate(due))),
                .setting(.state(to: TaskState.allCases.randomElement(using: &g)!)),
                .setting(.priority(to: Priority.allCases.randomElement(using: &g))),
                .tagging(add: tags(&g), remove: tags(&g)), .noting(noteChange(task.notes, text, &g)),
                .setting(.waitDate(to: planned(due, &g))), .setting(.scheduledDate(to: planned(due, &g))),
                .depending(add: add, remove: remove), .setting(.claim(to: claimChange(task.claim, &g))),
            ].randomElement(using: &g)!
            return state.alter(by: .updating(.project(project.alter(by: .updating(.task(task.alter(by: change)))))))
        case 15, 16, 17:
            guard let project = state.projects.randomElement(using: &g),
                let task = project.tasks.randomElement(using: &g)
            else { return state }
            let record: ProjectTask.Change = .recording(Bool.random(using: &g) ? .start : .stop)
            return state.alter(by: .updating(.project(project.alter(by: .updating(.task(task.alter(by: record)))))))
        case 18:
            guard let project = state.projects.randomElement(using: &g),
                let task = project.tasks.randomElement(using: &g)
            else { return state }
            return state.alter(by: .updating(.project(project.alter(by: .removing(.task(task))))))
        default:
            guard let project = state.projects.randomElement(using: &g),
                let task = project.tasks.randomElement(using: &g)
            else { return state }
            return state.alter(by: .updating(.project(project.alter(by: .adding(.task(task)))))) // moves it to the end
        }
    }

    /// A few tags to add or remove, often none.
    static func tags(_ g: inout SeededGenerator) -> [String] {
        (0..<Int.random(in: 0...2, using: &g)).map { _ in RandomValues.tags.randomElement(using: &g)! }
    }

    /// A wait or scheduled date: `date`'s day (without a time) or the moment itself; none without a date.
    static func planned(_ date: Date?, _ g: inout SeededGenerator) -> DueDate {
        guard let date else { return .unknown }
        return Bool.random(using: &g) ? .day(CalendarDay(date, in: DocketClock.timeZone)) : .date(date)
    }

    /// A few ids of the state's todos and tasks to add to or remove from an item's dependencies, often none.
    static func dependencies(_ state: AppState, _ g: inout SeededGenerator) -> (add: [UUID], remove: [UUID]) {
        let ids = state.todos.map(\.id) + state.projects.flatMap { $0.tasks.map(\.id) }
        func some(_ g: inout SeededGenerator) -> [UUID] {
            ids.isEmpty ? [] : (0..<Int.random(in: 0...2, using: &g)).map { _ in ids.randomElement(using: &g)! }
        }
        return (some(&g), some(&g))
    }

    /// A note added, or one of `notes` edited or removed.
    static func noteChange(_ notes: [Note], _ text: String, _ g: inout SeededGenerator) -> Note.Change {
        guard let note = notes.randomElement(using: &g), Bool.random(using: &g) else { return .add(Note(text: text)) }
        return Bool.random(using: &g) ? .edit(note.id, text: text) : .remove(note.id)
    }
}
