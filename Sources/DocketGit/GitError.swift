import DocketCGit2

/// A libgit2 call that failed: which function, its code, its error class, and libgit2's message.
public struct GitError: Error, CustomStringConvertible, Equatable, Sendable {
    /// libgit2's error code (`GIT_ENOTFOUND` is -3, `GIT_EEXISTS` -4, …).
    public let code: Int32
    /// The libgit2 function that failed.
    public let function: String
    /// libgit2's own message.
    public let message: String
    /// libgit2's error class, `git_error_last()->klass` (`GIT_ERROR_NET` is 12, `GIT_ERROR_OS` 2, …); 0 when
    /// none was set.
    public let errorClass: Int32

    /// A failure as libgit2 reported it, or as Docket reports one of its own (no error class).
    public init(code: Int32, function: String, message: String, errorClass: Int32 = 0) {
        self.code = code
        self.function = function
        self.message = message
        self.errorClass = errorClass
    }

    /// Whether the failure means "not found".
    public var isNotFound: Bool { code == GIT_ENOTFOUND.rawValue }

    /// Whether a lock file (`index.lock`, a reference's `.lock`) that another process holds, or a killed one left,
    /// stopped the call (`GIT_ELOCKED`).
    public var isLocked: Bool { code == GIT_ELOCKED.rawValue }

    /// Whether the object database failed (`GIT_ERROR_ODB`): an object is missing or unreadable.
    public var isObjectDatabase: Bool { errorClass == Int32(GIT_ERROR_ODB.rawValue) }

    /// Whether reading the index file failed in libgit2's index parser (`GIT_ERROR_INDEX` from `git_repository_index`
    /// or `git_index_read`: "invalid data in index", "corrupted TREE extension in index", …).
    public var isDamagedIndex: Bool {
        errorClass == Int32(GIT_ERROR_INDEX.rawValue) && ["git_repository_index", "git_index_read"].contains(function)
    }

    public var description: String { "\(function) failed: \(message)" }
}
