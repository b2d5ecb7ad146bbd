import CGit2
import Foundation

/// Who a commit is by.
public struct Signature: Equatable, Sendable {
    /// The name.
    public let name: String
    /// The e-mail address.
    public let email: String

    /// A signature of this name and address.
    public init(name: String, email: String) {
        self.name = name
        self.email = email
    }

    /// Docket's own identity, for a machine that has no other.
    public static let docket = Signature(name: "docket", email: "docket@localhost")
}

extension Repository {
    /// Who commits here: the repository's (or the user's) `user.name` and
    /// `user.email`, else `DOCKET_AUTHOR_NAME`/`DOCKET_AUTHOR_EMAIL`, else "docket".
    public func defaultSignature(environment: [String: String] = ProcessInfo.processInfo.environment) -> Signature {
        let name = try? configString("user.name")
        let email = try? configString("user.email")
        if let name, !name.isEmpty {
            return Signature(name: name, email: email ?? environment["DOCKET_AUTHOR_EMAIL"] ?? Signature.docket.email)
        }
        if let name = environment["DOCKET_AUTHOR_NAME"], !name.isEmpty {
            return Signature(name: name, email: environment["DOCKET_AUTHOR_EMAIL"] ?? email ?? Signature.docket.email)
        }
        return Signature(name: Signature.docket.name, email: email ?? Signature.docket.email)
    }
}
