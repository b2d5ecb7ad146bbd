import Docket
import Foundation
import MCP

/// A tool call that cannot be done, said so an agent can act on it.
struct ToolError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The tools `docket mcp` offers, each call run on the store one at a time.
final class DocketTools: @unchecked Sendable {
    private let store: Store
    private let agent: String
    private let lock = NSLock()
    /// The claims this server took and its agent has not given up or been told it lost, by item.
    // NB: kept here, not read from the store: a merge in another server's sync on this store can take one, and
    // this agent's next `sync`, `heartbeat` or `complete` must still tell it so.
    private var held: [UUID: (ref: EntryRef, claim: UUID)] = [:]

    init(store: Store, agent: String) {
        self.store = store
        self.agent = agent
    }

    /// Runs one tool: its JSON result, or a tool error that says what went wrong and what to do.
    func call(_ name: String, _ arguments: [String: Value]) -> CallTool.Result {
        lock.lock()
        defer { lock.unlock() }
        do {
            let args = Arguments(values: arguments)
            let result: any Encodable
            switch name {
            case "ready": result = try ready(args)
            case "list": result = try list(args)
            case "show": result = item(try store.entry(try ref(args)))
            case "add": result = try add(args)
            case "update": result = try update(args)
            case "complete": result = try complete(args)
            case "note": result = try note(args)
            case "claim_next": result = try claimNext(args)
            case "claim":
                result = item(remember(try store.claimEntry(try ref(args), as: agent, lease: try lease(args)).after))
            case "heartbeat": result = try heartbeat(args)
            case "release": result = try release(args)
            case "sync": result = try sync(args)
            case "merges": result = try store.merges(limit: try args.int("limit") ?? 5)
            default: throw ToolError("there is no tool '\(name)'; tools/list names them")
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let text = String(decoding: try encoder.encode(result), as: UTF8.self)
            return .init(content: [.text(text: text, annotations: nil, _meta: nil)], isError: false)
        } catch {
            return .init(content: [.text(text: "Error: \(error)", annotations: nil, _meta: nil)], isError: true)
        }
    }

    // MARK: Reads

    private func filter(_ args: Arguments) throws -> EntryFilter {
        var filter = EntryFilter()
        filter.tags = try args.strings("tags")
        filter.words = try args.string("words").map { $0.split(separator: " ").map(String.init) } ?? []
        if let project = try args.string("project") { filter.projects = [try store.projectID(idOrTitle: project)] }
        if let priorities = try args.strings("priority").nilIfEmpty {
            filter.priorities = Set(try priorities.map { try Self.priority($0) })
        }
        filter.limit = try args.int("limit")
        return filter
    }

    private func ready(_ args: Arguments) throws -> Items {
        var filter = try filter(args)
        filter.readiness = .ready
        return Items(items: try store.freeEntries(filter, for: agent).map(item))
    }

    private func list(_ args: Arguments) throws -> Items {
        var filter = try filter(args)
        switch try args.string("status") ?? "open" {
        case "open": filter.status = .open
        case "done": filter.status = .done
        case "all": filter.status = .all
        case let other: throw ToolError("status '\(other)' is none of open, done or all")
        }
        filter.waiting = try args.bool("waiting") == true ? .shown : .hidden
        return Items(items: try store.entries(filter).entries.map(item))
    }

    // MARK: Writes

    private func add(_ args: Arguments) throws -> AgentItem {
        guard let text = try args.string("text"), !text.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ToolError("add needs a text: what is to be done")
        }
        let tags = try args.strings("tags")
        let priority = try args.string("priority").map(Self.priority)
        let due = try args.string("due").map(Self.date)
        let wait = try args.string("wait").map(Self.date)
        let depends = try args.strings("depends").map { try store.entryRef($0) }.map(\.id)
        let ref: EntryRef
        if let project = try args.string("project") {
            let projectID = try store.projectID(idOrTitle: project)
            var task = ProjectTask(title: text).alter(by: .tagging(add: tags, remove: []))
            if let priority { task = task.alter(by: .setting(.priority(to: priority))) }
            if let due { task = task.alter(by: .setting(.dueDate(to: due))) }
            if let wait { task = task.alter(by: .setting(.waitDate(to: wait))) }
            try store.addTask(task, to: projectID)
            ref = .task(task.id, project: projectID)
        } else {
            var todo = TodoItem(text: text).alter(.tagging(add: tags, remove: []))
            if let priority { todo = todo.alter(.priority(priority)) }
            if let due { todo = todo.alter(.dueDate(to: due)) }
            if let wait { todo = todo.alter(.wait(wait)) }
            try store.addTodo(todo)
            ref = .todo(todo.id)
        }
        if !depends.isEmpty { try store.changeDependencies(of: ref, add: depends, remove: []) }
        if let note = try args.string("note") { try addNote(note, to: ref) }
        return item(try store.entry(ref))
    }

    private func update(_ args: Arguments) throws -> AgentItem {
        let ref = try ref(args)
        let text = try args.string("text")
        let priority = try args.string("priority").map { $0 == "none" ? nil : try Self.priority($0) }
        let due = try args.string("due").map { $0 == "none" ? DueDate.unknown : try Self.date($0) }
        let wait = try args.string("wait").map { $0 == "none" ? DueDate.unknown : try Self.date($0) }
        let (add, remove) = (try args.strings("add_tags"), try args.strings("remove_tags"))
        var changes: [SharedChange] = [.tagging(add: add, remove: remove)]
        if let text { changes.append(.text(text)) }
        if let priority { changes.append(.priority(priority)) }
        if let due { changes.append(.due(due)) }
        if let wait { changes.append(.wait(wait)) }
        try store.changeEntry(ref, changes)
        let depends = try args.strings("depends").map { try store.entryRef($0) }.map(\.id)
        if !depends.isEmpty { try store.changeDependencies(of: ref, add: depends, remove: []) }
        return item(try store.entry(ref))
    }

    private func note(_ args: Arguments) throws -> AgentItem {
        let ref = try ref(args)
        guard let text = try args.string("text"), !text.isEmpty else { throw ToolError("note needs a text") }
        try addNote(text, to: ref)
        return item(try store.entry(ref))
    }

    private func addNote(_ text: String, to ref: EntryRef) throws {
        let note = Note(text: text)
        try store.changeEntry(ref, [.noting(.add(note))])
    }

    // MARK: Claims

    /// The entry, its claim remembered as this server's when its agent holds it.
    private func remember(_ entry: Entry) -> Entry {
        if let claim = entry.claim, claim.holder == agent, claim.released == nil {
            held[entry.id] = (store.ref(of: entry), claim.id)
        }
        return entry
    }

    /// Renews this agent's claim; when it is not held (lost in a merge, released, or taken after it expired), the
    /// error names who holds it, and the claim is forgotten: the agent has been told.
    private func heartbeat(_ args: Arguments) throws -> AgentItem {
        let ref = try ref(args)
        do {
            return item(remember(try store.renewClaim(ref, as: agent, lease: try lease(args)).after))
        } catch let error as ClaimError {
            if let id = held.first(where: { $0.value.ref == ref })?.key { held[id] = nil }
            throw error
        }
    }

    private func release(_ args: Arguments) throws -> AgentItem {
        let released = try store.releaseClaim(try ref(args), as: agent).after
        held[released.id] = nil
        return item(released)
    }

    /// Completes an item, giving up this agent's claim; the result says when the claim had been lost to another.
    private func complete(_ args: Arguments) throws -> Completed {
        let ref = try ref(args)
        if let note = try args.string("note") { try addNote(note, to: ref) }
        let entry = try store.entry(ref)
        let mine = held.removeValue(forKey: entry.id)
        var lostTo: AgentClaim?
        if let held = entry.heldClaim(), held.holder != agent {
            lostTo = AgentClaim(held)
        } else if let mine, let now = entry.claim, now.id != mine.claim {
            // NB: the claim that beat this agent's in a merge has ended since (released or expired): still lost.
            lostTo = AgentClaim(now)
        }
        // NB: completed first, then the claim released: released first, the item would be open and free for a moment,
        // and another server on this store could claim it.
        let (_, next) = try store.completeEntries([ref])
        if lostTo == nil, let claim = entry.claim, claim.holder == agent, claim.released == nil {
            do {
                try store.releaseClaim(ref, as: agent)
            } catch ClaimError.notHeld(_, _, let now) {
                // NB: a merge (another server's sync on this store) took the claim between the read and the release.
                lostTo = now.map { AgentClaim($0) }
            }
        }
        return Completed(
            item: item(try store.entry(ref)), next: next.map(item),
            claimLost: lostTo.map {
                $0.live
                    ? "your claim was not held: \($0.holder) holds this item (a merge keeps the claim taken first); "
                        + "it is completed all the same"
                    : "your claim was not held: a claim of \($0.holder)'s, since ended, took its place; "
                        + "it is completed all the same"
            }, holder: lostTo)
    }

    /// Claims the first ready item; with `sync`, syncs before and right after, in one hold of the store's lock, and,
    /// when the sync brought an earlier claim on it, takes the next (up to five times), so agents in separate clones
    /// rarely work one item twice.
    private func claimNext(_ args: Arguments) throws -> AgentItem {
        var filter = try filter(args)
        filter.readiness = .ready
        filter.limit = nil
        let lease = try lease(args)
        guard try args.bool("sync") == true else {
            return item(remember(try store.claimNext(filter, as: agent, lease: lease)))
        }
        for _ in 0..<5 {
            let (claimed, shared) = try store.withLock {
                // NB: a sync first, so the claim is taken on the list as the remote has it now, and the one after has
                // only the claim to send: the time in which another clone can take the item unseen is that push's.
                _ = try? store.sync()
                let claimed = try store.claimNext(filter, as: agent, lease: lease)
                do {
                    var outcome = try store.sync()
                    // NB: another clone moved the branch between this sync's fetch and its push, so the claim went to
                    // this store's writer reference, unchecked against what that clone pushed: a sync again reads it.
                    for _ in 0..<2 where outcome.pushed?.asWriter != nil { outcome = try store.sync() }
                    return (claimed, true)
                } catch {
                    return (claimed, false)
                }
            }
            // NB: the claim stands on this store when the sync failed; the next sync shares it.
            guard shared else { return item(remember(claimed)) }
            let now = try store.entry(store.ref(of: claimed))
            if now.heldClaim()?.holder == agent { return item(remember(now)) }
        }
        throw ClaimError.nothingReady
    }

    /// Syncs; `lostClaims` has every claim this server took (or its agent held when the sync began) that its agent
    /// holds no longer and was not told of: taken by an earlier claim in a merge (this sync's, or another server's
    /// on this store), the item completed by another, or the claim released by someone else.
    private func sync(_ args: Arguments) throws -> Synced {
        for entry in try store.claims(of: agent) { _ = remember(entry) }
        let outcome = try store.sync(remote: try args.string("remote"))
        var arrived: [String] = []
        for pull in outcome.pulls {
            switch pull {
            case .upToDate, .remoteEmpty: continue
            case let .fastForwarded(to, _): arrived.append("fast-forwarded to \(to.prefix(7))")
            case let .merged(commit, report):
                arrived.append("merged \(commit.prefix(7)): \(report.summary)")
                arrived += report.items.flatMap(\.lines)
            case let .finishedReplay(_, commit, report):
                arrived.append("finished \(commit.prefix(7)): \(report.summary)")
            case let .tookRewrite(to, _):
                arrived.append("took the remote's rewritten history at \(to.prefix(7))")
            }
        }
        return Synced(remote: outcome.remote, arrived: arrived, lostClaims: lostClaims())
    }

    /// The claims this server remembers that its agent no longer holds, forgotten as they are told.
    private func lostClaims() -> [AgentItem] {
        var lost: [AgentItem] = []
        for (id, mine) in held.sorted(by: { $0.key.uuidString < $1.key.uuidString }) {
            guard let now = try? store.entry(mine.ref) else {
                held[id] = nil // removed: nothing is left to tell of
                continue
            }
            // NB: a claim of this agent's that merely expired is still its own: nobody took it, and a heartbeat
            // renews it.
            if let claim = now.claim, claim.id == mine.claim, claim.released == nil, !now.isDone { continue }
            held[id] = nil
            lost.append(item(now))
        }
        return lost
    }

    // MARK: Arguments

    private func ref(_ args: Arguments) throws -> EntryRef {
        guard let id = try args.string("id") else { throw ToolError("give the item's id (from ready, list or add)") }
        return try store.entryRef(id)
    }

    private func lease(_ args: Arguments) throws -> TimeInterval {
        guard let minutes = try args.int("lease_minutes") else { return Claim.defaultLease }
        guard minutes > 0 else { throw ToolError("lease_minutes must be 1 or more (at most 1440, a day)") }
        return Claim.clamped(Double(minutes) * 60)
    }

    private static func priority(_ text: String) throws -> Priority {
        guard let priority = Priority(rawValue: text.lowercased()) else {
            throw ToolError("priority '\(text)' is none of high, medium or low")
        }
        return priority
    }

    private static func date(_ text: String) throws -> DueDate {
        do {
            return try DatePhrase.read(text)
        } catch {
            throw ToolError("'\(text)' is not a date; use \(DatePhrase.forms)")
        }
    }

    private func item(_ entry: Entry) -> AgentItem { AgentItem(entry, now: DocketClock.now) }
}

/// A tool's arguments, read with a message naming the one of the wrong type.
struct Arguments {
    let values: [String: Value]

    func string(_ key: String) throws -> String? {
        guard let value = values[key], !value.isNull else { return nil }
        guard let text = value.stringValue else { throw ToolError("\(key) must be a string") }
        return text
    }

    func strings(_ key: String) throws -> [String] {
        guard let value = values[key], !value.isNull else { return [] }
        if let text = value.stringValue { return [text] }
        guard let array = value.arrayValue, array.allSatisfy({ $0.stringValue != nil }) else {
            throw ToolError("\(key) must be an array of strings")
        }
        return array.compactMap(\.stringValue)
    }

    func int(_ key: String) throws -> Int? {
        guard let value = values[key], !value.isNull else { return nil }
        if let number = value.intValue { return number }
        if let number = value.doubleValue, number == number.rounded() { return Int(number) }
        throw ToolError("\(key) must be a whole number")
    }

    func bool(_ key: String) throws -> Bool? {
        guard let value = values[key], !value.isNull else { return nil }
        guard let flag = value.boolValue else { throw ToolError("\(key) must be true or false") }
        return flag
    }
}

extension Array {
    fileprivate var nilIfEmpty: Self? { isEmpty ? nil : self }
}
