import DocketCGitTransport
import Foundation

/// Remote addresses as they may be shown: the user-info of an http(s) URL
/// (`https://user:token@host/…`) may be a secret, so it is never shown.
public enum RemoteURL {
    /// The URL with the user-info of an http(s) address replaced by `***`; others as they are.
    public static func redacted(_ url: String) -> String {
        guard let (scheme, userInfo, rest) = parts(url) else { return url }
        return userInfo.isEmpty ? url : scheme + "***@" + rest
    }

    /// "scheme://host:port" of a network URL, lower-cased, the port filled in
    /// for http(s) and ssh; nil for a path. Credentials are bound to it.
    public static func origin(_ url: String) -> String? {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(),
            let host = parts.host?.lowercased(),
            !host.isEmpty
        else { return nil }
        let port = parts.port ?? ["https": 443, "http": 80, "ssh": 22, "git": 9418][scheme] ?? 0
        return "\(scheme)://\(host):\(port)"
    }

    /// Whether the URL carries user-info (`https://user:secret@host/…`, or a
    /// token as the user name, `https://TOKEN@host/…`), which must not be stored.
    public static func hasUserInfo(_ url: String) -> Bool {
        guard let (_, userInfo, _) = parts(url) else { return false }
        return !userInfo.isEmpty
    }

    /// Why the URL must not be kept or handed to another program, or nil:
    /// a control character (a cron line, a unit file or ssh's arguments could
    /// be split at it), an ssh address that does not read (`user@[:path`), or
    /// an ssh user or host that ssh would read as an option.
    public static func refusal(_ url: String) -> String? {
        if url.unicodeScalars.contains(where: {
            $0.properties.generalCategory == .control || $0.value == 0x2028 || $0.value == 0x2029
        }) {
            return "holds a control character"
        }
        guard isSSH(url) else { return nil }
        var user: UnsafeMutablePointer<CChar>?
        var host: UnsafeMutablePointer<CChar>?
        var path: UnsafeMutablePointer<CChar>?
        var port: Int32 = 0
        let parsed = docket_exec_parse_ssh_url(url, &user, &host, &port, &path)
        guard parsed == 0 else {
            return "is not an ssh address docket understands: \(String(cString: docket_ssh_address_problem(parsed)))"
        }
        defer {
            free(user)
            free(host)
            free(path)
        }
        // NB: as git refuses them ("strange hostname … blocked", "strange username …").
        if let host, host.pointee == CChar(UInt8(ascii: "-")) {
            return "has an ssh host name that starts with '-', which ssh would take as an option"
        }
        if let user, user.pointee == CChar(UInt8(ascii: "-")) {
            return "has an ssh user name that starts with '-', which ssh would take as an option"
        }
        return nil
    }

    /// The folder a remote on this machine lives in (a path or a file:// URL); nil for a network remote.
    public static func localPath(_ url: String) -> String? {
        if url.lowercased().hasPrefix("file://") { return URLComponents(string: url)?.path }
        if url.contains("://") { return nil }
        // scp-like "host:path" (a colon before any slash) is ssh.
        if let colon = url.firstIndex(of: ":"), !url[..<colon].contains("/") { return nil }
        return url
    }

    /// Whether git carries the URL over ssh (ssh://, ssh+git://, git+ssh://, or scp-like host:path).
    public static func isSSH(_ url: String) -> Bool {
        let lower = url.lowercased()
        if ["ssh://", "ssh+git://", "git+ssh://"].contains(where: { lower.hasPrefix($0) }) { return true }
        return !url.contains("://") && localPath(url) == nil
    }

    /// The host and port (nil when not given) of an ssh URL.
    public static func sshHost(_ url: String) -> (name: String, port: Int?) {
        var user: UnsafeMutablePointer<CChar>?
        var host: UnsafeMutablePointer<CChar>?
        var path: UnsafeMutablePointer<CChar>?
        var port: Int32 = 0
        guard docket_exec_parse_ssh_url(url, &user, &host, &port, &path) == 0, let host else { return (url, nil) }
        defer {
            free(user)
            free(host)
            free(path)
        }
        return (String(cString: host), port == 0 ? nil : Int(port))
    }

    /// The path part of an ssh URL (scp-like or ssh://); nil when it is not one.
    static func sshPath(_ url: String) -> String? {
        var user: UnsafeMutablePointer<CChar>?
        var host: UnsafeMutablePointer<CChar>?
        var path: UnsafeMutablePointer<CChar>?
        var port: Int32 = 0
        guard docket_exec_parse_ssh_url(url, &user, &host, &port, &path) == 0, let path else { return nil }
        defer {
            free(user)
            free(host)
            free(path)
        }
        return String(cString: path)
    }

    /// `text` with the URL, and the path it names, each replaced by "<remote>":
    /// what failed is then read from the words around them only.
    static func withoutAddress(_ text: String, of url: String) -> String {
        let path = localPath(url) ?? (isSSH(url) ? sshPath(url) : URLComponents(string: url)?.path)
        return [url, path].compactMap { $0 }.filter { $0.count >= 2 }.sorted { $0.count > $1.count }
            .reduce(text) { $0.replacingOccurrences(of: $1, with: "<remote>") }
    }

    /// A relative path made absolute from `folder`, so the remote means the
    /// same folder whichever folder docket runs from; other URLs as they are.
    public static func absolute(_ url: String, from folder: String) -> String {
        guard let path = localPath(url), !url.lowercased().hasPrefix("file://"), !path.hasPrefix("/") else {
            return url
        }
        return URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: folder, isDirectory: true))
            .standardizedFileURL.path
    }

    /// The secret parts of a URL's user-info, to keep out of messages that quote it.
    static func secrets(_ url: String) -> [String] {
        guard let (_, userInfo, _) = parts(url), !userInfo.isEmpty else { return [] }
        return [userInfo] + userInfo.split(separator: ":").map(String.init).filter { $0.count >= 3 }
    }

    /// `text` with every secret of `url` replaced by `***`.
    static func scrub(_ text: String, of url: String) -> String {
        secrets(url).sorted { $0.count > $1.count }.reduce(text) { $0.replacingOccurrences(of: $1, with: "***") }
    }

    /// "https://", the user-info, and the rest from the host on, for an http(s) URL.
    private static func parts(_ url: String) -> (String, String, String)? {
        let lower = url.lowercased()
        guard let scheme = ["https://", "http://"].first(where: { lower.hasPrefix($0) }) else { return nil }
        let afterScheme = url.dropFirst(scheme.count)
        let authorityEnd =
            afterScheme.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? afterScheme.endIndex
        guard let at = afterScheme[..<authorityEnd].lastIndex(of: "@") else {
            return (String(url.prefix(scheme.count)), "", String(afterScheme))
        }
        return (
            String(url.prefix(scheme.count)), String(afterScheme[..<at]),
            String(afterScheme[afterScheme.index(after: at)...])
        )
    }
}
