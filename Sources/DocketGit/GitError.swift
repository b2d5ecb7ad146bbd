import CGit2

/// A libgit2 call that failed: which function, its code, and libgit2's message.
public struct GitError: Error, CustomStringConvertible, Equatable, Sendable {
    /// libgit2's error code (`GIT_ENOTFOUND` is -3, `GIT_EEXISTS` -4, …).
    public let code: Int32
    /// The libgit2 function that failed.
    public let function: String
    /// libgit2's own message.
    public let message: String

    /// Whether the failure means "not found".
    public var isNotFound: Bool { code == GIT_ENOTFOUND.rawValue }

    public var description: String { "\(function) failed: \(message)" }
}
