import ArgumentParser
import Docket
import Foundation

/// Who claims: `--as NAME`, else `DOCKET_AGENT`, else the user's login name.
struct HolderOptions: ParsableArguments {
    @Option(
        name: .customLong("as"),
        help: ArgumentHelp("Claim as this name (else $DOCKET_AGENT, else $USER).", valueName: "name"))
    var name: String?

    /// The holder named, or nil when none is.
    var named: String? {
        name ?? ProcessInfo.processInfo.environment["DOCKET_AGENT"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The holder: named, else the login name.
    var holder: String { named ?? ProcessInfo.processInfo.environment["USER"] ?? "someone" }
}

/// A claim as `show` says it: "agent-7 until Sat 28 Nov 14:05 (claim 3f2a9c1e)", or how it ended.
enum ClaimText {
    /// "Claimed 3f2a9c1e 'Paint the fence' as agent-7 until 2026-11-28 16:00", on stdout.
    static func printClaimed(_ entry: Entry) {
        guard let claim = entry.claim else { return }
        print(
            "Claimed \(Output.short(entry.id)) '\(Output.safe(entry.text))' as \(Output.safe(claim.holder)) until "
                + DateInput.show(claim.expires))
    }

    static func show(_ claim: Claim, on entry: Entry, now: Date) -> String {
        let who = "\(Output.safe(claim.holder)) (claim \(claim.id.uuidString.prefix(8).lowercased()))"
        if entry.isDone { return "\(who), ended by the completion" }
        if let released = claim.released { return "\(who), released \(DateInput.show(released))" }
        if !claim.isLive(at: now) { return "\(who), expired \(DateInput.show(claim.expires))" }
        return "\(who) until \(DateInput.show(claim.expires))"
    }
}

/// A claim refused, said as the command line says times: in the user's time zone, as `list` shows them.
enum ClaimRefusal {
    /// Runs `body`, turning a `ClaimError` into the error the command prints.
    static func saying<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as ClaimError {
            throw ShownError(message: Output.safeLines(error.message(showing: DateInput.show)))
        }
    }
}

/// `--for 2h`: a lease of minutes, hours or days.
enum LeaseInput {
    static func parse(_ text: String) throws -> TimeInterval {
        let units: [(String, TimeInterval)] = [("m", 60), ("min", 60), ("h", 3600), ("d", 86_400)]
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        for (unit, seconds) in units.reversed() where trimmed.hasSuffix(unit) {
            if let count = Double(trimmed.dropLast(unit.count)), count > 0 { return count * seconds }
        }
        throw ValidationError(
            "'\(Output.safe(text))' is not a lease; give minutes, hours or days, such as 30m, 2h or 1d (at most a day)")
    }
}

struct ClaimCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "claim",
        abstract: "Claim a todo or task: say you work on it, for a while (a lease).",
        discussion: """
            The claim is written in the item's file, so everyone who syncs sees who holds what until when \
            ('docket show', 'docket list'); 'docket ready' leaves it out for everyone else. Claiming an item you \
            hold renews your lease. A claim is taken under the store's lock, so two processes on one store never \
            both get it; across clones, a merge keeps the claim taken first and 'docket merges' names the other.

            --for is the lease: 30m, 2h, 1d (a minute to a day; an hour by default). The holder is --as, else \
            $DOCKET_AGENT, else your login name.

            Examples:
              docket claim 3f2a --for 2h
              docket claim 3f2a --as agent-7
            """)

    @OptionGroup var store: StoreOptions
    @Argument(help: "The todo's or task's id (or a unique prefix).") var id: String
    @OptionGroup var holder: HolderOptions
    @Option(
        name: .customLong("for"), help: ArgumentHelp("How long the claim lasts unless renewed.", valueName: "lease"),
        transform: LeaseInput.parse)
    var lease: TimeInterval = Claim.defaultLease

    func run() throws {
        let store = try self.store.open()
        let ref = try store.entryRef(id)
        let changed = try ClaimRefusal.saying { try store.claimEntry(ref, as: holder.holder, lease: lease) }
        ClaimText.printClaimed(changed.after)
    }
}

struct Heartbeat: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "heartbeat",
        abstract: "Renew your claim on a todo or task while you work on it.",
        discussion: """
            Renews the lease from now: --for long (30m, 2h, 1d; a minute to a day, an hour by default). It refuses \
            an item its holder does not hold: never claimed, released, expired and taken by another, or lost in a \
            merge to a claim taken earlier; the refusal names who holds it until when. Send one before the lease \
            ends. The holder is --as, else $DOCKET_AGENT, else your login name.

            Example: docket heartbeat 3f2a --for 30m --as agent-7
            """)

    @OptionGroup var store: StoreOptions
    @Argument(help: "The todo's or task's id (or a unique prefix).") var id: String
    @OptionGroup var holder: HolderOptions
    @Option(
        name: .customLong("for"), help: ArgumentHelp("How long the claim lasts from now.", valueName: "lease"),
        transform: LeaseInput.parse)
    var lease: TimeInterval = Claim.defaultLease

    func run() throws {
        let store = try self.store.open()
        let ref = try store.entryRef(id)
        let changed = try ClaimRefusal.saying { try store.renewClaim(ref, as: holder.holder, lease: lease) }
        guard let claim = changed.after.claim else { return }
        print(
            "Renewed \(Output.short(changed.after.id)) '\(Output.safe(changed.after.text))' for "
                + "\(Output.safe(claim.holder)) until \(DateInput.show(claim.expires))")
    }
}

struct Release: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "release",
        abstract: "Give up the claim on a todo or task.",
        discussion: """
            Without --as (or $DOCKET_AGENT) it gives up whoever's claim it is; with it, only that holder's, \
            and says so when that holder holds none. The claim stays in the file as released, so a merge knows \
            it ended.

            Example: docket release 3f2a
            """)

    @OptionGroup var store: StoreOptions
    @Argument(help: "The todo's or task's id (or a unique prefix).") var id: String
    @OptionGroup var holder: HolderOptions

    func run() throws {
        let store = try self.store.open()
        let ref = try store.entryRef(id)
        let changed = try ClaimRefusal.saying { try store.releaseClaim(ref, as: holder.named) }
        print(
            "Released \(Output.short(changed.after.id)) '\(Output.safe(changed.after.text))'"
                + (changed.after.claim.map { " (claimed by \(Output.safe($0.holder)))" } ?? ""))
    }
}

struct Ready: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ready",
        abstract: "List what may be started now: open, not waiting, not blocked, and not claimed by someone else.",
        discussion: """
            Takes the filters 'list' takes. Items you hold (--as, else $DOCKET_AGENT, else your login name) are \
            listed too, marked as claimed by you.

            --json prints the items as 'list --json' does (with --project, tasks with their project).

            --claim claims one of them that no one holds (not one you hold already), for --for (an hour unless said): \
            it starts at one of the first few (four, or as many as there are holders at work on what the filters \
            admit), fixed by the name, so agents in separate clones start apart, and prints it: what 'claim_next' \
            does for an agent. The claim is taken under the store's \
            lock, so two processes never both get one item. When nothing is ready and free it says so and exits 1.

            Examples:
              docket ready
              docket ready +backend --as agent-7 -n 5
              docket ready --claim +backend --as agent-7 --for 2h
            """)

    @OptionGroup var store: StoreOptions
    @OptionGroup var filtering: FilterOptions
    @OptionGroup var holder: HolderOptions
    @Option(
        name: [.customShort("n"), .customLong("limit")], help: ArgumentHelp("At most this many.", valueName: "count"))
    var limit: Int?
    @Flag(help: "Print JSON for scripts.") var json = false
    @Flag(help: "Claim the first ready item no one holds, and print it.") var claim = false
    @Option(
        name: .customLong("for"),
        help: ArgumentHelp("With --claim, how long the claim lasts unless renewed.", valueName: "lease"),
        transform: LeaseInput.parse)
    var lease: TimeInterval?

    func validate() throws {
        if filtering.blocked { throw ValidationError("--blocked lists what is not ready; use 'docket list --blocked'") }
        if let limit, limit < 1 { throw ValidationError("--limit must be 1 or more") }
        if claim, limit != nil { throw ValidationError("--claim takes one item; leave out --limit") }
        if !claim, lease != nil { throw ValidationError("--for is the lease of --claim; add --claim") }
        _ = try filtering.words(command: Ready.self)
    }

    func run() throws {
        let store = try self.store.open()
        var filter = try filtering.filter(in: store, command: Ready.self)
        filter.status = .open
        filter.waiting = .hidden
        filter.readiness = .ready
        filter.limit = limit
        if claim { return try claimFirst(filter, in: store) }
        let now = DocketClock.now
        let entries = try store.freeEntries(filter, for: holder.holder, now: now)
        if json {
            let todos = entries.compactMap { entry -> TodoItem? in if case let .todo(todo) = entry { todo } else { nil }
            }
            return try filter.projects == nil ? Output.json(todos) : Output.json(entries)
        }
        if entries.isEmpty {
            return print(
                "Nothing is ready and free: 'docket list --blocked' and 'docket list --waiting' show what waits.")
        }
        var relative = RelativeDays(now: now)
        var text = ""
        for entry in entries { text += line(entry, now: now, relative: &relative, showProject: false) + "\n" }
        Output.write(text)
    }

    private func claimFirst(_ filter: EntryFilter, in store: Store) throws {
        let entry = try ClaimRefusal.saying {
            try store.claimNext(filter, as: holder.holder, lease: lease ?? Claim.defaultLease)
        }
        guard json else { return ClaimText.printClaimed(entry) }
        if case let .todo(todo) = entry, filter.projects == nil { return try Output.json(todo) }
        try Output.json(entry)
    }
}
