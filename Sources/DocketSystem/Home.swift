import Foundation

/// The user's home folder as users and git mean it: `$HOME`, else the passwd
/// entry. (Foundation on Linux reads only the passwd entry, so `HOME=/tmp/x`
/// would otherwise be ignored in CI, containers and `sudo -E`.)
public enum Home {
    /// The home folder.
    public static var folder: URL {
        if let home = ProcessInfo.processInfo.environment["HOME"], home.hasPrefix("/") {
            return URL(fileURLWithPath: home, isDirectory: true)
        }
        return FileManager.default.homeDirectoryForCurrentUser
    }

    /// `path` with a leading `~` or `~/` replaced by the home folder; `~user/…` from the passwd entry.
    public static func expand(_ path: String) -> String {
        if path == "~" { return folder.path }
        if path.hasPrefix("~/") { return folder.path + path.dropFirst(1) }
        if path.hasPrefix("~") { return (path as NSString).expandingTildeInPath }
        return path
    }
}
