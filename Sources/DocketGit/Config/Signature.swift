import DocketCGit2
import DocketSystem
import Foundation

/// Who a commit is by, and when.
public struct Signature: Equatable, Sendable {
    /// The name.
    public let name: String
    /// The e-mail address.
    public let email: String
    /// When; nil means at the moment of committing.
    public let date: Date?
    /// The time zone offset to record, in minutes east of UTC; nil means the local one.
    public let offsetMinutes: Int?

    /// A signature of this name and address (and, if given, date and offset).
    public init(name: String, email: String, date: Date? = nil, offsetMinutes: Int? = nil) {
        self.name = name
        self.email = email
        self.date = date
        self.offsetMinutes = offsetMinutes
    }

    /// Docket's own identity, for a machine that has no other.
    public static let docket = Signature(name: "docket", email: "docket@localhost")
}

/// Who authors and who commits: git's two identities.
public struct Identities: Equatable, Sendable {
    /// The author.
    public let author: Signature
    /// The committer.
    public let committer: Signature

    /// These two.
    public init(author: Signature, committer: Signature) {
        self.author = author
        self.committer = committer
    }
}

/// git's configuration asks for an identity set in it (`user.useConfigOnly`), and none is.
public struct IdentityUnknown: Error, Equatable, Sendable {
    /// Which identity: "author" or "committer".
    public let role: String
}

extension Repository {
    /// Who commits here, as git decides it: `GIT_AUTHOR_NAME`/`_EMAIL`/`_DATE`
    /// and `GIT_COMMITTER_NAME`/`_EMAIL`/`_DATE`, else `author.*`/`committer.*`,
    /// else `user.name`/`user.email` (repository, then user, then system), else
    /// `DOCKET_AUTHOR_NAME`/`DOCKET_AUTHOR_EMAIL`, else "docket" — unless
    /// `user.useConfigOnly` is set, where git refuses a commit without a
    /// configured identity (`IdentityUnknown`). Where the configuration holds
    /// an include libgit2 does not evaluate (`includeIf "hasconfig:…"`), git
    /// itself is asked (`git var GIT_AUTHOR_IDENT`).
    public func identities(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Identities {
        func config(_ name: String) -> String? { (try? configString(name)).flatMap { $0?.isEmpty == false ? $0 : nil } }
        func env(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        if hasIncludesLibgit2Skips(), let asked = identitiesFromGit(environment: environment) { return asked }
        let configOnly = (try? configBool("user.useConfigOnly")) == true
        let userName = config("user.name") ?? (configOnly ? nil : env("DOCKET_AUTHOR_NAME") ?? Signature.docket.name)
        let userEmail =
            config("user.email") ?? (configOnly ? nil : env("DOCKET_AUTHOR_EMAIL") ?? Signature.docket.email)
        func identity(_ role: String) throws -> Signature {
            let upper = role.uppercased()
            let (date, offset) = env("GIT_\(upper)_DATE").flatMap(GitDate.parse) ?? (nil, nil)
            guard let name = env("GIT_\(upper)_NAME") ?? config("\(role).name") ?? userName,
                let email = env("GIT_\(upper)_EMAIL") ?? config("\(role).email") ?? userEmail
            else { throw IdentityUnknown(role: role) }
            return Signature(name: name, email: email, date: date, offsetMinutes: offset)
        }
        return Identities(author: try identity("author"), committer: try identity("committer"))
    }

    /// Who commits here: the author of `identities()`.
    public func defaultSignature(environment: [String: String] = ProcessInfo.processInfo.environment) throws
        -> Signature
    {
        try identities(environment: environment).author
    }

    /// Whether git's configuration holds an include whose condition libgit2 1.5
    /// does not evaluate (`includeIf "hasconfig:remote.*.url:…"`), so that
    /// git may read settings libgit2 does not.
    func hasIncludesLibgit2Skips() -> Bool {
        var config: OpaquePointer?
        var iterator: OpaquePointer?
        guard git_repository_config_snapshot(&config, pointer) == 0 else { return false }
        defer { git_config_free(config) }
        guard git_config_iterator_glob_new(&iterator, config, "^includeif\\.hasconfig:") == 0 else { return false }
        defer { git_config_iterator_free(iterator) }
        var entry: UnsafeMutablePointer<git_config_entry>?
        return git_config_next(&entry, iterator) == 0
    }

    /// The identities `git var` gives in this repository; nil when git is not installed or refuses.
    private func identitiesFromGit(environment: [String: String]) -> Identities? {
        func ident(_ variable: String) -> Signature? {
            guard
                let outcome = try? Spawn.run(
                    ["git", "var", variable], environment: ["GIT_DIR": gitdir, "GIT_WORK_TREE": nil],
                    folder: workdir ?? gitdir), outcome.status == 0
            else { return nil }
            // "Name <email> 1795339800 +0100"
            let line = outcome.text.trimmingCharacters(in: .newlines)
            guard let open = line.lastIndex(of: "<"), let close = line.lastIndex(of: ">"), open < close else {
                return nil
            }
            let name = line[..<open].trimmingCharacters(in: .whitespaces)
            let email = String(line[line.index(after: open)..<close])
            let upper = variable.hasPrefix("GIT_AUTHOR") ? "AUTHOR" : "COMMITTER"
            let (date, offset) = environment["GIT_\(upper)_DATE"].flatMap(GitDate.parse) ?? (nil, nil)
            return Signature(name: name, email: email, date: date, offsetMinutes: offset)
        }
        guard let author = ident("GIT_AUTHOR_IDENT"), let committer = ident("GIT_COMMITTER_IDENT") else { return nil }
        return Identities(author: author, committer: committer)
    }
}

/// The dates git takes in `GIT_AUTHOR_DATE` and `GIT_COMMITTER_DATE`: its own
/// "@<seconds> <±hhmm>" or "<seconds> <±hhmm>", ISO 8601, and RFC 2822.
enum GitDate {
    static func parse(_ text: String) -> (Date, Int)? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let parts = trimmed.split(separator: " ")
        if let first = parts.first, let seconds = Double(first.hasPrefix("@") ? first.dropFirst() : first) {
            return (Date(timeIntervalSince1970: seconds), parts.count > 1 ? offset(parts[1]) ?? 0 : 0)
        }
        let formats = [
            "yyyy-MM-dd'T'HH:mm:ssXXXXX", "yyyy-MM-dd HH:mm:ss XX", "yyyy-MM-dd'T'HH:mm:ssXX",
            "EEE, d MMM yyyy HH:mm:ss Z",
            "EEE MMM d HH:mm:ss yyyy Z",
        ]
        for format in formats {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.dateFormat = format
            if let date = formatter.date(from: trimmed) {
                let zone =
                    trimmed.range(of: #"[+-]\d\d:?\d\d$"#, options: .regularExpression).flatMap { offset(trimmed[$0]) }
                    ?? 0
                return (date, zone)
            }
        }
        return nil
    }

    /// "+0100" or "-05:30" as minutes east of UTC.
    private static func offset(_ text: Substring) -> Int? {
        let digits = text.dropFirst().filter { $0 != ":" }
        guard let sign = text.first, sign == "+" || sign == "-", digits.count == 4, let value = Int(digits) else {
            return nil
        }
        return (sign == "-" ? -1 : 1) * (value / 100 * 60 + value % 100)
    }
}
