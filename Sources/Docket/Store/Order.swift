import Foundation

/// The order keys of projects and tasks (the `position` in their files), as
/// read from the store: part of what a read returns and of what a write takes.
public struct Order: Equatable, Sendable {
    /// The key of each project and task read, by id.
    public internal(set) var positions: [UUID: Int]

    /// No keys known.
    public init() { positions = [:] }

    init(_ positions: [UUID: Int]) { self.positions = positions }

    /// The key of an item, if known.
    public subscript(id: UUID) -> Int? { positions[id] }

    /// These keys and `other`'s (`other` wins for an id both know).
    func merging(_ other: Order) -> Order { Order(positions.merging(other.positions) { _, theirs in theirs }) }

    /// Keys for a list in this order: an item keeps its key while the keys
    /// still rise along the list, else (a new or moved item) it gets one past
    /// the largest key so far, and past `floor` (the largest key of items of
    /// the list not read), so appending or moving one item rewrites only its file.
    /// When the keys would pass `Int.max`, the whole list is numbered afresh.
    func assign(_ ids: [UUID], floor: Int = -1) -> [UUID: Int] {
        var result: [UUID: Int] = [:]
        var last = Int.min
        var next = max(floor, ids.compactMap { positions[$0] }.max() ?? -1)
        for id in ids {
            if let known = positions[id], known > last {
                result[id] = known
                last = known
                continue
            }
            let (bumped, overflow) = max(next, last).addingReportingOverflow(1)
            guard !overflow else { return Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, $0) }) }
            next = bumped
            result[id] = next
            last = next
        }
        return result
    }
}

/// Items sorted by their order keys, ties (and unknown keys, which count as 0) by id.
func ordered<Item: Identifiable<UUID>>(_ items: [Item], by order: Order) -> [Item] {
    items.sorted { a, b in
        let (pa, pb) = (order[a.id] ?? 0, order[b.id] ?? 0)
        return pa != pb ? pa < pb : a.id.uuidString < b.id.uuidString
    }
}
