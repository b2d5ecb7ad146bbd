import Docket
import Foundation

/// A change to a todo or a task alike, as a command, `add` and `task add`'s options, or the editor form make it,
/// named as the form names its fields.
extension SharedChange {
    /// The field it changes, as the editor form names it: "text", "due", "tags"…
    var field: String {
        switch self {
        case .text: "text"
        case .due: "due"
        case .wait: "wait"
        case .scheduled: "scheduled"
        case .tagging: "tags"
        case .priority: "priority"
        case .recurrence: "repeat"
        case .depending: "depends"
        case .noting: "notes"
        case .claim: "claim"
        }
    }

    /// The fields `changes` change, once each in the editor form's order: "text, priority and tags".
    static func fields(_ changes: [SharedChange]) -> String {
        let order = ["text", "due", "wait", "scheduled", "tags", "priority", "repeat", "depends", "notes"]
        let names = Set(changes.map(\.field))
        let shown = order.filter(names.contains)
        guard shown.count > 1 else { return shown.first ?? "" }
        return shown.dropLast().joined(separator: ", ") + " and " + shown.last!
    }
}
