import Foundation

/// A claim on a todo or task: who works on it, since when, and until when the lease runs. It is written in the
/// item's file, so every reader sees it and a merge reconciles it (see `Claim.merged`). A claim stays in the file
/// after its release, as a record of when it ended, so a merge can tell claims that overlapped from claims that
/// followed each other.
public struct Claim: Sendable, FieldCoded {
    /// Who holds it: an agent's or a person's name.
    public let holder: String
    /// The identity of this claim: a new claim by the same holder gets a new one.
    public let id: UUID
    /// When it was taken.
    public let taken: Date
    /// When its holder last said it still works on the item (a heartbeat); nil until then.
    public let renewed: Date?
    /// When the lease ends unless renewed.
    public let expires: Date
    /// When its holder gave it up (or completed the item); nil while held.
    public let released: Date?

    /// The shortest lease: a minute.
    public static let shortestLease: TimeInterval = 60
    /// The longest lease: a day.
    public static let longestLease: TimeInterval = 86_400
    /// The lease a claim gets when none is said: an hour.
    public static let defaultLease: TimeInterval = 3_600

    /// A claim exactly as stored.
    public init(holder: String, id: UUID, taken: Date, renewed: Date? = nil, expires: Date, released: Date? = nil) {
        self.holder = holder
        self.id = id
        self.taken = taken
        self.renewed = renewed
        self.expires = expires
        self.released = released
    }

    /// A new claim by `holder`, taken now, for `lease` seconds (clamped to a minute … a day).
    public init(holder: String, lease: TimeInterval = Claim.defaultLease) {
        let now = DocketClock.now
        self.init(holder: holder, id: DocketIDs.make(), taken: now, expires: now + Claim.clamped(lease))
    }

    /// `lease` within a minute and a day.
    public static func clamped(_ lease: TimeInterval) -> TimeInterval {
        min(max(lease, shortestLease), longestLease)
    }

    /// Whether it is held at `date`: not released and not expired.
    public func isLive(at date: Date = DocketClock.now) -> Bool {
        released == nil && date.docketMilliseconds < expires.docketMilliseconds
    }

    /// When it ended or will end: its release, else its expiry.
    public var end: Date { released ?? expires }

    /// The same claim renewed now for `lease` seconds (a heartbeat); its expiry never moves earlier.
    public func renewing(lease: TimeInterval = Claim.defaultLease) -> Claim {
        let now = DocketClock.now
        let expiry = max(expires, now + Claim.clamped(lease))
        return Claim(holder: holder, id: id, taken: taken, renewed: max(now, taken), expires: expiry, released: nil)
    }

    /// The same claim given up now (never before it was taken).
    public func releasing() -> Claim {
        Claim(
            holder: holder, id: id, taken: taken, renewed: renewed, expires: expires,
            released: max(DocketClock.now, taken))
    }

    /// Why `holder` cannot name a claim's holder, or nil when it can.
    public static func holderProblem(_ holder: String) -> String? {
        if holder.trimmingCharacters(in: .whitespaces).isEmpty { return "a claim's holder has no name" }
        if holder.count > 100 { return "a claim's holder name is longer than 100 characters" }
        if holder.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) }) {
            return "a claim's holder name holds a control character"
        }
        return nil
    }

    /// Why a claim read from a file cannot be taken, or nil when it can.
    public static func problem(in claim: Claim?) -> String? {
        guard let claim else { return nil }
        if let problem = holderProblem(claim.holder) { return problem }
        if claim.expires.docketMilliseconds < claim.taken.docketMilliseconds {
            return "a claim expires before it was taken"
        }
        return nil
    }

    /// The claim for people and merge reports: "agent-7 until 2026-11-28T14:05:00.000Z (claim 3f2a9c1e)".
    public var fieldText: String {
        let state = released.map { "released " + ISODate.string(from: $0) } ?? "until " + ISODate.string(from: expires)
        return
            "\(holder) \(state) (claim \(id.uuidString.prefix(8).lowercased()), taken \(ISODate.string(from: taken)))"
    }

    // MARK: Fields

    /// Every field of a claim.
    public static let fields: [ItemField<Claim>] = [
        ItemField("holder", rule: .identity, get: { $0.holder }, set: { $0.with(holder: $1) }),
        ItemField("id", rule: .identity, get: { $0.id }, set: { $0.with(id: $1) }),
        ItemField("taken", rule: .identity, get: { $0.taken }, set: { $0.with(taken: $1) }),
        ItemField("renewed", rule: .latest, omitWhenAbsent: true, get: { $0.renewed }, set: { $0.with(renewed: $1) }),
        ItemField("expires", rule: .latest, get: { $0.expires }, set: { $0.with(expires: $1) }),
        ItemField(
            "released", rule: .laterEdit, omitWhenAbsent: true, get: { $0.released }, set: { $0.with(released: $1) }),
    ]

    public static let blank = Claim(holder: "", id: .zero, taken: .distantPast, expires: .distantPast)

    private func with(
        holder: String? = nil, id: UUID? = nil, taken: Date? = nil, renewed: Date?? = nil, expires: Date? = nil,
        released: Date?? = nil
    ) -> Claim {
        Claim(
            holder: holder ?? self.holder, id: id ?? self.id, taken: taken ?? self.taken,
            renewed: renewed ?? self.renewed, expires: expires ?? self.expires, released: released ?? self.released)
    }

    // Equality at the stored precision: dates to the millisecond.
    public static func == (a: Claim, b: Claim) -> Bool { sameFields(a, b) }
    public func hash(into hasher: inout Hasher) { hashFields(into: &hasher) }
}

extension TodoItem {
    /// Its claim while someone holds it at `date`: the todo is open and the claim live. Completion beats any claim.
    public func heldClaim(at date: Date = DocketClock.now) -> Claim? {
        guard !completed, let claim, claim.isLive(at: date) else { return nil }
        return claim
    }
}

extension ProjectTask {
    /// Its claim while someone holds it at `date`: the task is not finished and the claim live. Finishing beats any
    /// claim.
    public func heldClaim(at date: Date = DocketClock.now) -> Claim? {
        guard state != .finished, let claim, claim.isLive(at: date) else { return nil }
        return claim
    }
}
