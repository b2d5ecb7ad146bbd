import CGit2
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

extension Repository {
    /// Who commits here, as git decides it: `GIT_AUTHOR_NAME`/`_EMAIL`/`_DATE`
    /// and `GIT_COMMITTER_NAME`/`_EMAIL`/`_DATE`, else `author.*`/`committer.*`,
    /// else `user.name`/`user.email` (repository, then user, then system), else
    /// `DOCKET_AUTHOR_NAME`/`DOCKET_AUTHOR_EMAIL`, else "docket".
    public func identities(environment: [String: String] = ProcessInfo.processInfo.environment) -> Identities {
        func config(_ name: String) -> String? { (try? configString(name)).flatMap { $0?.isEmpty == false ? $0 : nil } }
        func env(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let userName = config("user.name") ?? env("DOCKET_AUTHOR_NAME") ?? Signature.docket.name
        let userEmail = config("user.email") ?? env("DOCKET_AUTHOR_EMAIL") ?? Signature.docket.email
        func identity(_ role: String) -> Signature {
            let upper = role.uppercased()
            let (date, offset) = env("GIT_\(upper)_DATE").flatMap(GitDate.parse) ?? (nil, nil)
            return Signature(name: env("GIT_\(upper)_NAME") ?? config("\(role).name") ?? userName,
                             email: env("GIT_\(upper)_EMAIL") ?? config("\(role).email") ?? userEmail,
                             date: date, offsetMinutes: offset)
        }
        return Identities(author: identity("author"), committer: identity("committer"))
    }

    /// Who commits here: the author of `identities()`.
    public func defaultSignature(environment: [String: String] = ProcessInfo.processInfo.environment) -> Signature {
        identities(environment: environment).author
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
        let formats = ["yyyy-MM-dd'T'HH:mm:ssXXXXX", "yyyy-MM-dd HH:mm:ss XX", "yyyy-MM-dd'T'HH:mm:ssXX", "EEE, d MMM yyyy HH:mm:ss Z",
                       "EEE MMM d HH:mm:ss yyyy Z"]
        for format in formats {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.dateFormat = format
            if let date = formatter.date(from: trimmed) {
                let zone = trimmed.range(of: #"[+-]\d\d:?\d\d$"#, options: .regularExpression).flatMap { offset(trimmed[$0]) } ?? 0
                return (date, zone)
            }
        }
        return nil
    }

    /// "+0100" or "-05:30" as minutes east of UTC.
    private static func offset(_ text: Substring) -> Int? {
        let digits = text.dropFirst().filter { $0 != ":" }
        guard let sign = text.first, sign == "+" || sign == "-", digits.count == 4, let value = Int(digits) else { return nil }
        return (sign == "-" ? -1 : 1) * (value / 100 * 60 + value % 100)
    }
}
