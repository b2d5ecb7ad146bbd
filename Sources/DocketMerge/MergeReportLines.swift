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
                    ? "\(item): removed on \(removal.removedOn) after the edit on \(removal.removedOn.other); lost edit \(removal.lostItem.map(oneLine) ?? "")"
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

/// JSON on one line: its lines joined with single spaces.
private func oneLine(_ json: String) -> String {
    json.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
}
