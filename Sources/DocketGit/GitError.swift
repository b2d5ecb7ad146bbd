import CGit2
import Foundation

/// A libgit2 call that failed: which function, its code, and libgit2's message.
public struct GitError: Error, CustomStringConvertible, Equatable {
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

/// The one error gate: throws a `GitError` naming `function` when `code` is negative.
@discardableResult
func check(_ code: Int32, _ function: StaticString) throws -> Int32 {
    guard code < 0 else { return code }
    let message = git_error_last().map { String(cString: $0.pointee.message) } ?? "error \(code)"
    throw GitError(code: code, function: "\(function)", message: message)
}

/// Starts libgit2 once per process, with fsync of the git directory on, so a
/// commit survives a crash.
enum LibGit2Runtime {
    static let started: Void = {
        // NB: libgit2 writes to sockets without MSG_NOSIGNAL; a remote that
        // drops the connection mid-push would otherwise kill the process with
        // SIGPIPE instead of failing the push with an error.
        signal(SIGPIPE, SIG_IGN)
        git_libgit2_init()
        _ = docket_git_enable_fsync_gitdir(1)
        // NB: libgit2 caches only trees under 4 KiB; the todos/ tree (256
        // folders) and each todos/<AB> tree of a large store are bigger, so
        // every path lookup inflated them again: half of a pull's time.
        _ = docket_git_set_tree_cache_limit(4 << 20)
    }()

    /// A private CA for https remotes, as OpenSSL-based tools take it.
    /// NB: loaded only for a transfer; parsing a certificate file costs more
    /// than all the rest of a local command such as `docket add`.
    static let privateCertificates: Void = {
        _ = started
        if let file = ProcessInfo.processInfo.environment["SSL_CERT_FILE"], !file.isEmpty {
            _ = docket_git_set_ssl_cert_file(file)
        }
    }()
}
