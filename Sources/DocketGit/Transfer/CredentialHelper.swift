import DocketSystem
import Foundation

/// git's credential helpers (`credential.helper`), asked through `git credential`,
/// where users' tokens for https remotes already live.
struct CredentialHelper {
    let git: String
    let folder: String?
    /// The request, as git's credential protocol writes it.
    let request: String

    /// A helper request for `url` (protocol, host with port, path, and the user the URL names).
    init?(url: String, user: String?, git: String, folder: String?) {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme, let host = parts.host else {
            return nil
        }
        var lines = ["protocol=\(scheme.lowercased())", "host=\(host)\(parts.port.map { ":\($0)" } ?? "")"]
        let path = parts.path.hasPrefix("/") ? String(parts.path.dropFirst()) : parts.path
        if !path.isEmpty { lines.append("path=\(path)") }
        if let user, !user.isEmpty { lines.append("username=\(user)") }
        guard !lines.contains(where: { $0.contains("\n") || $0.contains("\0") }) else { return nil }
        (self.git, self.folder, request) = (git, folder, lines.joined(separator: "\n") + "\n")
    }

    /// The user and password a helper gives (or the terminal prompt git shows when
    /// stdin is a terminal); nil when there is none.
    func fill() -> (user: String, password: String)? {
        var environment: [String: String?] = [:]
        // NB: without a terminal git would fail asking; with one, it asks as 'git pull' would.
        if isatty(STDIN_FILENO) != 1 { environment["GIT_TERMINAL_PROMPT"] = "0" }
        guard
            let outcome = try? Spawn.run(
                [git, "credential", "fill"], input: Data((request + "\n").utf8), environment: environment,
                folder: folder ?? "/"),
            outcome.status == 0
        else { return nil }
        var values: [String: String] = [:]
        for line in outcome.text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            values[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        guard let user = values["username"], let password = values["password"] else { return nil }
        return (user, password)
    }

    /// Tells the helpers the credential worked (`approve`) or did not (`reject`).
    func answer(_ accepted: Bool, user: String, password: String) {
        let text =
            request.split(separator: "\n").filter { !$0.hasPrefix("username=") }.joined(separator: "\n")
            + "\nusername=\(user)\npassword=\(password)\n\n"
        _ = try? Spawn.run(
            [git, "credential", accepted ? "approve" : "reject"], input: Data(text.utf8), folder: folder ?? "/")
    }
}
