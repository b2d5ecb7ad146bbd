import DocketModel
import Foundation

/// Merges the order of a list (projects, or a project's tasks) edited on two sides.
///
/// The Change DSL appends new items and moves re-added ones to the end, so
/// each side's list is a run of untouched items in base order followed by a
/// tail of added or moved ones. Items untouched on every side that has them
/// keep their base order; then come the two tails, the one that sorts first by
/// id going first, so both machines get the same order.
func mergeOrder(base: [UUID], ours: [UUID], theirs: [UUID], kept: Set<UUID>) -> [UUID] {
    let baseIndex = Dictionary(base.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    func split(_ list: [UUID]) -> (untouched: Set<UUID>, tail: ArraySlice<UUID>) {
        var last = -1
        var end = 0
        while end < list.count, let position = baseIndex[list[end]], position > last {
            last = position
            end += 1
        }
        return (Set(list[..<end]), list[end...])
    }
    let (oursUntouched, oursTail) = split(ours)
    let (theirsUntouched, theirsTail) = split(theirs)
    let (oursAll, theirsAll) = (Set(ours), Set(theirs))

    var order = base.filter {
        kept.contains($0) && (!oursAll.contains($0) || oursUntouched.contains($0))
            && (!theirsAll.contains($0) || theirsUntouched.contains($0))
    }
    var placed = Set(order)
    let oursFirst = oursTail.lexicographicallyPrecedes(theirsTail) { $0.precedes($1) }
    for id in (oursFirst ? oursTail + theirsTail : theirsTail + oursTail)
    where kept.contains(id) && !placed.contains(id) {
        order.append(id)
        placed.insert(id)
    }
    return order
}
