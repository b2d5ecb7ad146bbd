import Docket
import Foundation

/// A todo or task as an agent reads it.
struct AgentItem: Encodable {
    let id: String
    let kind: String
    let text: String
    let project: String?
    let done: Bool
    let due: String?
    let priority: String?
    let tags: [String]
    let dependsOn: [String]
    let waitUntil: String?
    let notes: [String]
    /// Its claim, live or ended; `live` says whether someone holds it now.
    let claim: AgentClaim?

    init(_ entry: Entry, now: Date) {
        id = entry.id.uuidString.lowercased()
        text = entry.text
        done = entry.isDone
        priority = entry.priority?.rawValue
        tags = entry.tags
        dependsOn = entry.dependencies.map { $0.uuidString.lowercased() }
        notes = entry.notes.map(\.text)
        due = entry.due == .unknown ? nil : entry.due.fieldText
        waitUntil = entry.waitDate == .unknown ? nil : entry.waitDate.fieldText
        switch entry {
        case .todo:
            (kind, project) = ("todo", nil)
        case let .task(_, holder):
            (kind, project) = ("task", holder.title)
        }
        claim = entry.claim.map { AgentClaim($0, live: entry.heldClaim(at: now) != nil) }
    }
}

/// A claim as an agent reads it.
struct AgentClaim: Encodable {
    let holder: String
    let claimId: String
    let taken: String
    let expires: String
    let released: String?
    let live: Bool

    init(_ claim: Claim, live: Bool? = nil) {
        holder = claim.holder
        claimId = claim.id.uuidString.lowercased()
        taken = ISODate.string(from: claim.taken)
        expires = ISODate.string(from: claim.expires)
        released = claim.released.map(ISODate.string)
        self.live = live ?? claim.isLive()
    }
}

/// A list of items.
struct Items: Encodable {
    let items: [AgentItem]
}

/// What `complete` did.
struct Completed: Encodable {
    let item: AgentItem
    /// The next instance of a repeating item.
    let next: [AgentItem]
    /// Said when this agent's claim had been lost to another holder.
    let claimLost: String?
    /// The claim that holds it, when not this agent's.
    let holder: AgentClaim?
}

/// What `sync` did.
struct Synced: Encodable {
    let remote: String
    /// What the pull brought: a fast-forward, or a merge and its decisions.
    let arrived: [String]
    /// Items whose claim this agent held and holds no longer, each told once: a merge kept another's earlier claim,
    /// another agent completed the item, or someone else released the claim.
    let lostClaims: [AgentItem]
}
