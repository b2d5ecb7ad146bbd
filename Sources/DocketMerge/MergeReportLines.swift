import DocketModel
import Foundation

extension ItemDecision {
    /// What the merge decided for this item, for people: one line per field,
    /// removal and stopped slip. The merge commit's message and `docket merges` both show these.
    public var lines: [String] {
        let item = "\(kind) '\(label)'"
        var lines: [String] = []
        for field in fields {
            var line = "\(item) \(field.field): kept \"\(field.kept)\" (\(field.from)"
            switch field.rule {
            case .onlyOneSideChanged: line += ", only \(field.from) changed it)"
            case .laterEdit: line += ", the later edit)"
            case .tieBreak: line += ", same time, greater value)"
            case .combined:
                line =
                    "\(item) \(field.field): kept \"\(field.kept)\" (both changed it: "
                    + "ours \(field.combined?.ours ?? "?"), theirs \(field.combined?.theirs ?? "?"))"
            case .follows: line += ", as its \(field.leader ?? "field") was)"
            case .sameClaim: line += ", the same claim, its later lease or release)"
            case .laterClaim: line += ", the later claim, after the other ended)"
            case .earlierClaim: line += ", the claim taken first: both held it at once)"
            }
            if let lost = field.lost { line += ", lost \"\(lost)\" (\(field.from.other))" }
            lines.append(line)
        }
        if let removal {
            lines.append(
                removal.outcome == .removalWon
                    ? "\(item): removed on \(removal.removedOn) after the edit on \(removal.removedOn.other); lost edit: \(removal.lostItem.map(described) ?? "")"
                    : "\(item): kept, edited on \(removal.removedOn.other) after its removal on \(removal.removedOn)")
        }
        for slip in stoppedSlips {
            lines.append(
                "\(item): running slip \(slip.slipID.uuidString.prefix(8).lowercased()) stopped at \(ShownDate.string(slip.stop))"
            )
        }
        return lines
    }
}

/// An item a removal won over, as its file held it, for people: its text, whether it was done, its due date (in the
/// local zone, as lists show it); its JSON on one line when it does not read.
private func described(_ json: String) -> String {
    guard let item = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any] else {
        return oneLine(json)
    }
    var parts: [String] = []
    if let text = (item["text"] ?? item["title"]) as? String { parts.append("\"\(text)\"") }
    if let completed = item["completed"] as? Bool { parts.append(completed ? "done" : "open") }
    if let state = item["state"] as? String { parts.append(state == "inProgress" ? "in-progress" : state) }
    switch (item["dueDate"] as? String).flatMap({ DueDate.reading($0) }) {
    case let .day(day)?: parts.append("due \(day)")
    case let .date(date)?: parts.append("due \(ShownDate.string(date))")
    default: break
    }
    return parts.isEmpty ? oneLine(json) : parts.joined(separator: ", ")
}

/// JSON on one line: its lines joined with single spaces.
private func oneLine(_ json: String) -> String {
    json.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
}
