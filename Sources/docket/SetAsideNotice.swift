import Docket
import Foundation

/// The one line that says which files pulls set aside and are not settled yet; nil when none are.
func setAsideLine(_ store: Store) -> String? {
    guard let files = try? store.setAsideFiles(), let first = files.first else { return nil }
    if files.count == 1 {
        return
            "Set aside: \(first.line) ('docket merges' shows it; the item's next edit, here or on any machine, settles it)"
    }
    return "Set aside \(files.count) files a remote brought that docket cannot take in, the first \(first.line) "
        + "('docket merges' shows them; each item's next edit, here or on any machine, settles it)"
}

/// Says, on standard error, what pulls set aside and is not settled yet (the day's view and lists keep stdout theirs).
func noticeSetAside(_ store: Store) {
    if let line = setAsideLine(store) { Output.notice(line) }
}
