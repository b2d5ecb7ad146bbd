import Docket

// What items say of themselves, as they are shown to a person: escaped by `Output.safe`.

extension TodoItem {
    /// The text, safe for a terminal.
    var shownText: String { Output.safe(text) }
}

extension Project {
    /// The title, safe for a terminal.
    var shownTitle: String { Output.safe(title) }
}

extension ProjectTask {
    /// The title, safe for a terminal.
    var shownTitle: String { Output.safe(title) }
}
