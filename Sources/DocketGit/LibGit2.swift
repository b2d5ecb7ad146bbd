import DocketCGit2
import DocketCGitTransport
import Foundation

/// The libgit2 library Docket runs on.
public enum LibGit2 {
    /// libgit2's version, as "major.minor.revision".
    public static var version: String {
        var major: Int32 = 0
        var minor: Int32 = 0
        var revision: Int32 = 0
        git_libgit2_version(&major, &minor, &revision)
        return "\(major).\(minor).\(revision)"
    }

    /// Whether libgit2 fsyncs the files it writes in a git folder: always, in every repository of the process.
    package static var fsyncsGitFolder: Bool {
        _ = LibGit2Runtime.started
        return docket_git_fsyncs_gitdir() != 0
    }

    /// Whether the system's certificate bundle is still unparsed: it is
    /// parsed for the first https remote, never for local work.
    public static var systemCertificatesWaiting: Bool {
        _ = LibGit2Runtime.started
        return docket_git_certificates_deferred() != 0
    }
}

/// Starts libgit2 once per process, with fsync of the git directory on, so a
/// commit survives a crash.
enum LibGit2Runtime {
    static let started: Void = {
        // NB: libgit2 writes to sockets without MSG_NOSIGNAL; a remote that
        // drops the connection mid-push would otherwise kill the process with
        // SIGPIPE instead of failing the push with an error.
        signal(SIGPIPE, SIG_IGN)
        // NB: the system's certificates are parsed only once an https remote
        // needs them (`TransferContext`); see DeferredCertificates.c.
        docket_git_start()
        _ = docket_git_enable_fsync_gitdir(1)
        // NB: libgit2 caches only trees under 4 KiB; the todos/ tree (256
        // folders) and each todos/<AB> tree of a large store are bigger, so
        // every path lookup inflated them again: half of a pull's time.
        _ = docket_git_set_tree_cache_limit(4 << 20)
        // NB: a partial clone in which `git sparse-checkout` ran names extensions.worktreeConfig, which libgit2 1.5
        // would refuse to open; see shim.h.
        _ = docket_git_allow_worktree_config()
    }()
}

/// The one error gate: throws a `GitError` naming `function` when `code` is negative.
@discardableResult
func check(_ code: Int32, _ function: StaticString) throws -> Int32 {
    guard code < 0 else { return code }
    throw lastError(code, function)
}

/// libgit2's last error as a value, for a failure that needs classifying before it is thrown.
func lastError(_ code: Int32, _ function: StaticString) -> GitError {
    let last = git_error_last()?.pointee
    let message = last.map { String(cString: $0.message) } ?? "error \(code)"
    return GitError(code: code, function: "\(function)", message: message, errorClass: last?.klass ?? 0)
}

/// Calls `body` with a C array of the strings, freed afterwards.
func withStrArray<T>(_ strings: [String], _ body: (git_strarray) throws -> T) rethrows -> T {
    let pointers = strings.map { strdup($0) }
    defer { pointers.forEach { free($0) } }
    var array = pointers
    return try array.withUnsafeMutableBufferPointer { buffer in
        try body(git_strarray(strings: buffer.baseAddress, count: strings.count))
    }
}
