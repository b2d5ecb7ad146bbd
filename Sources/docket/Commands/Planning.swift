import ArgumentParser
import Docket
import Foundation

// `wait`, `schedule` and `depend`: when a todo or task may be started, and what it waits on. The names are
// Taskwarrior's (wait:, scheduled:, depends:), as commands of their own beside `due`, `tag` and `priority`.

struct Wait: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wait",
        abstract: "Hide a todo or task until a date, or show it again (none).",
        discussion: """
            A waiting item is left out of the day's view and the lists of open items until its date comes \
            ('docket list --waiting' shows them). A day without a time waits until that day begins; \
            a time until then.

            Dates, as for a due date: \(DateInput.forms); quotes optional; 'none' ends the wait.

            Examples:
              docket wait 3f2a monday
              docket wait 3f2a tomorrow 9am
            """)

    @OptionGroup var store: StoreOptions
    @Argument(help: "The todo's or task's id or a unique prefix.", completion: Completions.openItems) var id: String
    @OptionGroup var when: DateArgument

    func run() throws {
        let store = try self.store.open()
        let date = try when.date
        let changed = try store.changeEntry(
            try store.entryRef(id), [.wait(date)])
        let text = Output.safe(changed.after.text)
        guard date != .unknown else {
            return print("\(changed.before == changed.after ? "Not waiting" : "Wait ended"): \(text)")
        }
        let verb = changed.before == changed.after ? "Unchanged" : "Waiting"
        let shown = DateInput.show(date)
        print(
            "\(verb): \(text)  "
                + (changed.after.isWaiting(at: DocketClock.now) ? "until \(shown)" : "(\(shown) has come: shown)"))
    }
}

struct Schedule: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedule",
        abstract: "Set or clear the date you plan to start a todo or task.",
        discussion: """
            The scheduled date is shown beside the item; it hides nothing (see 'docket wait').

            Dates, as for a due date: \(DateInput.forms); quotes optional; 'none' clears it.

            Example: docket schedule 3f2a tomorrow
            """)

    @OptionGroup var store: StoreOptions
    @Argument(help: "The todo's or task's id or a unique prefix.", completion: Completions.openItems) var id: String
    @OptionGroup var when: DateArgument

    func run() throws {
        let store = try self.store.open()
        let date = try when.date
        let changed = try store.changeEntry(
            try store.entryRef(id), [.scheduled(date)])
        let verb = changed.before == changed.after ? "Unchanged" : date == .unknown ? "Unscheduled" : "Scheduled"
        print("\(verb): \(Output.safe(changed.after.text))" + (date == .unknown ? "" : "  \(DateInput.show(date))"))
    }
}

struct Depend: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "depend",
        abstract: "Make a todo or task depend on others (+id), or not (-id); none removes them all.",
        discussion: """
            An item is blocked while an item it depends on is open, and the items others wait on are shown as \
            blocking. A dependency on the item itself, on an id no todo or task has, or one that would make a \
            circle is refused. A dependency on an item that is done or removed blocks nothing.

            Examples:
              docket depend 3f2a +9c1e +b04d
              docket depend 3f2a -9c1e
              docket depend 3f2a none
            """)

    @OptionGroup var store: StoreOptions
    @Argument(help: "The todo's or task's id or a unique prefix.", completion: Completions.openItems) var id: String
    @Argument(
        parsing: .allUnrecognized,
        help: ArgumentHelp("+id to depend on, -id to depend on no longer, or none.", valueName: "+id|-id|none"))
    var changes: [String] = []

    var parsed: (add: [String], remove: [String], none: Bool) {
        get throws {
            if changes.count == 1, changes[0].lowercased() == "none" { return ([], [], true) }
            var add: [String] = []
            var remove: [String] = []
            for word in changes {
                // "+9c1e,b04d" adds both.
                let ids = word.dropFirst().split(separator: ",").map(String.init)
                guard let sign = word.first, sign == "+" || sign == "-", !ids.isEmpty else {
                    throw ValidationError(
                        "'\(Output.safe(word))' is neither +id nor -id: docket depend <id> +9c1e -b04d (or none)")
                }
                if sign == "+" { add += ids } else { remove += ids }
            }
            if add.isEmpty && remove.isEmpty {
                throw ValidationError(
                    "give ids to depend on (+id) or no longer (-id), or none: docket depend <id> +9c1e")
            }
            return (add, remove, false)
        }
    }

    func validate() throws { _ = try parsed }

    func run() throws {
        let store = try self.store.open()
        let (add, remove, none) = try parsed
        let ref = try store.entryRef(id)
        let current = try store.entry(ref).dependencies
        let removing = none ? current : try remove.map { try DependencyWords.among(current, typed: $0) }
        let changed = try store.changeDependencies(
            of: ref, add: try add.map { try store.entryRef($0).id }, remove: removing)
        let text = Output.safe(changed.after.text)
        let ids = changed.after.dependencies
        print(
            "\(changed.before == changed.after ? "Unchanged" : "Dependencies changed"): \(text)  "
                + (ids.isEmpty
                    ? Output.dim("depends on nothing") : "depends on " + ids.map(Output.short).joined(separator: ", ")))
    }
}

/// Ids typed for dependencies.
enum DependencyWords {
    /// The one of `dependencies` that `typed` starts (4 or more characters), so a dependency on an item since
    /// removed can be removed too.
    static func among(_ dependencies: [UUID], typed: String) throws -> UUID {
        let prefix = typed.uppercased()
        guard prefix.count >= 4 else { throw StoreError.input(.idTooShort(prefix: typed)) }
        let matches = dependencies.filter { $0.uuidString.hasPrefix(prefix) }
        switch matches.count {
        case 1: return matches[0]
        case 0:
            throw ValidationError(
                "it does not depend on \(Output.safe(typed))"
                    + (dependencies.isEmpty
                        ? "; it depends on nothing"
                        : "; it depends on " + dependencies.map(Output.short).joined(separator: ", ")))
        default:
            throw StoreError.input(
                .ambiguous(
                    kind: .todo, prefix: typed, candidates: matches.map { $0.uuidString.lowercased() }.sorted()))
        }
    }

    /// The ids of `--depends 9c1e,b04d` (or several `--depends`), each a todo or task in the store.
    static func ids(_ typed: [String], store: Store) throws -> [UUID] {
        try typed.flatMap { $0.split(separator: ",").map(String.init) }.map { try store.entryRef($0).id }
    }
}

/// What lists say of an item's wait, scheduled date and dependencies.
enum PlanningMarks {
    /// What a line of a list says of an item's wait, scheduled date and dependencies: "  waiting until 2026-11-28",
    /// "  scheduled 2026-11-27 09:30", "  blocked by 3f2a1b9c", "  blocking 9c1e0a2b, b04d5e6f".
    static func marks(_ entry: Entry, now: Date, blocking: Blocking) -> String {
        var shown = ""
        if entry.isWaiting(at: now) {
            shown += "  " + Output.dim("waiting until \(DateInput.show(entry.waitDate))")
        }
        if entry.scheduledDate != .unknown, !entry.isDone {
            shown += "  " + Output.dim("scheduled \(DateInput.show(entry.scheduledDate))")
        }
        let blockers = blocking.blockers(of: entry)
        if !blockers.isEmpty { shown += "  " + Output.red("blocked by " + ids(blockers)) }
        let blocked = blocking.blocked(by: entry)
        if !blocked.isEmpty { shown += "  " + Output.yellow("blocking " + ids(blocked)) }
        if let claim = entry.heldClaim(at: now) {
            shown +=
                "  " + Output.cyan("claimed by \(Output.safe(claim.holder)) until \(DateInput.show(claim.expires))")
        }
        return shown
    }

    /// "3f2a1b9c", "3f2a1b9c, 9c1e0a2b", "3f2a1b9c, 9c1e0a2b and 2 more".
    private static func ids(_ ids: [UUID]) -> String {
        let shown = ids.prefix(2).map(Output.short).joined(separator: ", ")
        return ids.count > 2 ? shown + " and \(ids.count - 2) more" : shown
    }
}
