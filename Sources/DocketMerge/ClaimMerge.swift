import DocketModel
import Foundation

/// The claim rule (`MergeRule.claim`), for two claims on one item that both sides changed:
/// - the same claim (one claim id): its later expiry and latest heartbeat; a release later than the last heartbeat
///   wins over it, an earlier one loses;
/// - two claims that never overlapped in time (one ended, by release or expiry, before the other was taken): the
///   later one;
/// - two claims that overlapped: the one taken first (on the same millisecond, the smaller claim id); the other is
///   the loser, recorded in the merge report, and its holder is told at its next sync, heartbeat or completion;
/// - a claim and none (a claim removed by hand): the claim.
/// Completion beats any claim: a completed item is held by no one, whatever its claim says (`Claim.isLive` is only
/// asked of open items).
public enum ClaimMerge {
    /// The merged claim of `a` and `b`, the claim that lost (nil when none did), and the rule that chose.
    /// The same whichever side is `a`.
    public static func merged(_ a: Claim?, _ b: Claim?) -> (kept: Claim?, lost: Claim?, rule: FieldDecision.Rule) {
        guard let a else { return (b, nil, .laterClaim) }
        guard let b else { return (a, nil, .laterClaim) }
        if a == b { return (a, nil, .sameClaim) }
        if a.id == b.id { return (same(a, b), nil, .sameClaim) }
        let (first, second) = takenFirst(a, b) ? (a, b) : (b, a)
        if first.end.docketMilliseconds <= second.taken.docketMilliseconds { return (second, nil, .laterClaim) }
        return (first, second, .earlierClaim)
    }

    /// Whether `a` was taken before `b` (on the same millisecond, whether its id is smaller).
    static func takenFirst(_ a: Claim, _ b: Claim) -> Bool {
        let (x, y) = (a.taken.docketMilliseconds, b.taken.docketMilliseconds)
        return x != y ? x < y : a.id.uuidString < b.id.uuidString
    }

    /// Two versions of one claim made one: the later expiry and heartbeat, and the earliest release that is not
    /// older than the last heartbeat.
    static func same(_ a: Claim, _ b: Claim) -> Claim {
        func ms(_ date: Date) -> Int64 { date.docketMilliseconds }
        // NB: a holder and a taken date never differ for one claim id but by a hand edit: the greater text wins.
        let named = a.fieldText >= b.fieldText ? a : b
        let renewed = [a.renewed, b.renewed].compactMap { $0 }.max { ms($0) < ms($1) }
        let expires = ms(a.expires) >= ms(b.expires) ? a.expires : b.expires
        let lastBeat = [a, b].map { ms($0.renewed ?? $0.taken) }.max()!
        let released = [a.released, b.released].compactMap { $0 }.filter { ms($0) >= lastBeat }.min { ms($0) < ms($1) }
        return Claim(
            holder: named.holder, id: named.id, taken: named.taken, renewed: renewed, expires: expires,
            released: released)
    }
}

extension FieldMerge {
    /// `merged` with its claim set by the claim rule, recording the decision (and the losing claim).
    mutating func mergeClaim<Item>(_ field: ItemField<Item>, base: Item?, ours: Item, theirs: Item, into merged: Item)
        -> Item
    {
        if field.isSame(ours, theirs) { return merged }
        if let base, field.isSame(base, ours) || field.isSame(base, theirs) {
            return pick(field, base: base, ours: ours, theirs: theirs, into: merged)
        }
        let (o, t) = (field.value(of: ours) as! Claim?, field.value(of: theirs) as! Claim?)
        let (kept, lost, rule) = ClaimMerge.merged(o, t)
        let from: MergeSide
        if kept == o && kept != t {
            from = .ours
        } else if kept == t && kept != o {
            from = .theirs
        } else {
            // NB: two versions of one claim may differ only in their last heartbeat, which `fieldText` leaves out.
            func text(_ claim: Claim?) -> String { claim.fieldText + (claim?.renewed?.fieldText ?? "") }
            from = later ?? (text(o) > text(t) ? .ours : .theirs)
        }
        decisions.append(
            FieldDecision(
                field: .field(field.key), from: from, rule: rule, kept: kept.fieldText, lost: lost.map(\.fieldText)))
        return field.setting(kept, in: merged)
    }
}
