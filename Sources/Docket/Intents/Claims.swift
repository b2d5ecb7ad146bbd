import DocketModel
import Foundation

/// Why a claim could not be taken, renewed or given up.
public enum ClaimError: Error, Equatable, CustomStringConvertible, Sendable {
    /// Another holder's live claim holds the item.
    case heldByAnother(item: String, holder: String, until: Date)
    /// The item is done (a finished task): there is nothing left to claim.
    case done(item: String)
    /// `holder` holds no claim on the item: it never did, gave it up, or lost it in a merge to `now` (if any).
    case notHeld(item: String, holder: String, now: Claim?)
    /// A holder's name that cannot be written.
    case badHolder(String)
    /// No item that the filter admits is free to claim.
    case nothingReady

    /// The message with dates as ISO 8601 in UTC, as an agent reads them.
    public var description: String { message(showing: ISODate.string(from:)) }

    /// The message with each date written by `show`: the command line writes them in the user's time zone, as lists
    /// show times.
    public func message(showing show: (Date) -> String) -> String {
        switch self {
        case let .heldByAnother(item, holder, until):
            "\(item) is claimed by \(holder) until \(show(until)); 'ready' lists what is free"
        case let .done(item):
            "\(item) is done: there is nothing left to claim; 'ready' lists what is free"
        case let .notHeld(item, holder, now):
            if let now, now.holder != holder, now.isLive() {
                "\(holder) holds no claim on \(item): \(now.holder) holds it until \(show(now.expires)); "
                    + "'ready' lists what is free"
            } else if let now, now.holder == holder, now.released != nil {
                "\(holder) released its claim on \(item); claim it again to work on it"
            } else {
                "\(holder) holds no claim on \(item); claim it first"
            }
        case let .badHolder(problem):
            "\(problem); name the holder with --as NAME or DOCKET_AGENT"
        case .nothingReady:
            "no item is ready and free to claim; 'list --blocked' and 'list --waiting' show what waits"
        }
    }
}

extension Entry {
    /// Its claim, live or ended; nil when it was never claimed.
    public var claim: Claim? {
        switch self {
        case let .todo(todo): todo.claim
        case let .task(task, _): task.claim
        }
    }

    /// Its claim while someone holds it at `date` (an open item with a live claim).
    public func heldClaim(at date: Date = DocketClock.now) -> Claim? {
        switch self {
        case let .todo(todo): todo.heldClaim(at: date)
        case let .task(task, _): task.heldClaim(at: date)
        }
    }

    /// "the todo 3f2a9c1e 'Paint the fence'", for messages.
    var named: String {
        let kind = if case .todo = self { "todo" } else { "task" }
        return "the \(kind) \(id.uuidString.prefix(8).lowercased()) '\(text)'"
    }
}

extension Store {
    /// Claims a todo or task for `holder` for `lease` seconds (clamped to a minute … a day), read, checked and written
    /// under the store's lock, so two processes never both get it. A holder that already holds it renews its claim.
    @discardableResult
    public func claimEntry(_ ref: EntryRef, as holder: String, lease: TimeInterval = Claim.defaultLease) throws
        -> Changed<Entry>
    {
        try Self.checkHolder(holder)
        return try changeClaim(ref) { entry in
            if entry.isDone { throw ClaimError.done(item: entry.named) }
            if let held = entry.heldClaim(), held.holder != holder {
                throw ClaimError.heldByAnother(item: entry.named, holder: held.holder, until: held.expires)
            }
            if let held = entry.heldClaim() { return held.renewing(lease: lease) }
            return Claim(holder: holder, lease: lease)
        }
    }

    /// Renews `holder`'s claim on an entry for `lease` seconds (a heartbeat). An error when the holder no longer holds
    /// it (released, or lost to an earlier claim in a merge) names who does.
    @discardableResult
    public func renewClaim(_ ref: EntryRef, as holder: String, lease: TimeInterval = Claim.defaultLease) throws
        -> Changed<Entry>
    {
        try changeClaim(ref) { entry in
            if entry.isDone { throw ClaimError.done(item: entry.named) }
            guard let claim = entry.claim, claim.holder == holder, claim.released == nil,
                entry.heldClaim().map({ $0.holder == holder }) ?? true
            else { throw ClaimError.notHeld(item: entry.named, holder: holder, now: entry.claim) }
            return claim.renewing(lease: lease)
        }
    }

    /// Gives up the claim on an entry: `holder`'s own (an error when it holds none), or, with no holder, whoever's.
    /// Giving up a claim already given up changes nothing.
    @discardableResult
    public func releaseClaim(_ ref: EntryRef, as holder: String? = nil) throws -> Changed<Entry> {
        try changeClaim(ref) { entry in
            guard let claim = entry.claim, holder == nil || claim.holder == holder else {
                throw ClaimError.notHeld(item: entry.named, holder: holder ?? "no one", now: entry.claim)
            }
            return claim.released == nil ? claim.releasing() : claim
        }
    }

    /// The entries `filter` admits that are free for `holder` at `now`: held by no live claim, or by its own. With
    /// `filter.readiness` `.ready` these are what an agent may start.
    public func freeEntries(_ filter: EntryFilter, for holder: String?, now: Date = DocketClock.now) throws -> [Entry] {
        var unlimited = filter
        unlimited.limit = nil
        let free = try entries(unlimited, now: now).entries.filter { entry in
            guard let held = entry.heldClaim(at: now) else { return true }
            return held.holder == holder
        }
        return filter.limit.map { Array(free.prefix($0)) } ?? free
    }

    /// How many of the first free entries `claimNext` spreads its holders over at the least: more when more holders
    /// work the list.
    public static let claimSpread = 4

    /// Claims an entry that `filter` admits and no one else holds, for `holder`; `ClaimError.nothingReady` when
    /// there is none. It starts at one of the first free entries, chosen by `holder`'s name alone (the same name
    /// always starts at the same place), and goes on in order from there, so agents in separate clones that see one
    /// list start on different items. It spreads them over as many entries as there are holders at work on what the
    /// filter admits (those with a live claim on one of its entries, and `holder`), and over `claimSpread` at the
    /// least. The listing and the claim are one step under the store's lock, so no other process on this store
    /// claims between them.
    public func claimNext(_ filter: EntryFilter, as holder: String, lease: TimeInterval = Claim.defaultLease) throws
        -> Entry
    {
        try Self.checkHolder(holder)
        return try withLock {
            // NB: under the lock no other process changes the store, so the first free entry is claimable; the
            // checks stay for an entry the listing and the claim see differently (a wait ending between them).
            var unlimited = filter
            unlimited.limit = nil
            let now = DocketClock.now
            let listed = try entries(unlimited, now: now).entries
            let free = listed.filter { $0.heldClaim(at: now) == nil }
            let holders = Set(listed.compactMap { $0.heldClaim(at: now)?.holder }).union([holder]).count
            let spread = min(max(Self.claimSpread, holders), free.count)
            let start = free.isEmpty ? 0 : Self.spreadSlot(of: holder) % spread
            for entry in free[start...] + free[..<start] {
                do {
                    return try claimEntry(ref(of: entry), as: holder, lease: lease).after
                } catch let error as ClaimError {
                    if case .heldByAnother = error { continue }
                    if case .done = error { continue }
                    throw error
                }
            }
            throw ClaimError.nothingReady
        }
    }

    /// A number fixed by `holder`'s name on every machine and run (FNV-1a over its UTF-8; Swift's `hashValue` is
    /// seeded per process).
    static func spreadSlot(of holder: String) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in holder.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return Int(hash % UInt64(Int32.max))
    }

    /// The claims `holder` holds at `now` on open todos and tasks.
    public func claims(of holder: String, now: Date = DocketClock.now) throws -> [Entry] {
        let (todos, _) = try loadTodos(openOnly: true)
        let (projects, _) = try loadProjects()
        let entries =
            todos.map(Entry.todo)
            + projects.flatMap { project in project.tasks.map { Entry.task($0, project: project) } }
        return entries.filter { $0.heldClaim(at: now)?.holder == holder }
    }

    /// The ref of an entry.
    public func ref(of entry: Entry) -> EntryRef {
        switch entry {
        case let .todo(todo): .todo(todo.id)
        case let .task(task, project): .task(task.id, project: project.id)
        }
    }

    private func changeClaim(_ ref: EntryRef, _ claim: @escaping (Entry) throws -> Claim) throws -> Changed<Entry> {
        try changeEntries([ref]) { entry in [.claim(try claim(entry))] }[0]
    }

    private static func checkHolder(_ holder: String) throws {
        if let problem = Claim.holderProblem(holder) { throw ClaimError.badHolder(problem) }
    }
}
