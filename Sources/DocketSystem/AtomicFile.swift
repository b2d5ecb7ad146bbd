import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Writes a file so that a reader sees the old contents or the new, never a
/// mix: a temporary file beside it is written (and, for data that matters,
/// flushed to disk), then renamed over it.
public enum AtomicFile {
    /// Names of temporary files start with this; readers skip them, and a
    /// docket that finds one whose process is gone removes it.
    public static let temporaryPrefix = ".docket-tmp-"

    /// A written temporary file, not yet in place.
    public struct Pending: Sendable {
        /// The temporary file.
        public let temporaryPath: String
        /// Where it goes.
        public let path: String

        /// Renames the temporary file into place.
        public func commit() throws {
            Fault.point("before-rename")
            do {
                try systemCall("rename", path: path) { rename(temporaryPath, path) }
            } catch {
                unlink(temporaryPath)
                throw error
            }
        }

        /// Removes the temporary file.
        public func discard() { unlink(temporaryPath) }
    }

    /// The temporary file beside `path` that this process writes it through.
    public static func temporaryPath(for path: String) -> String {
        let slash = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        return String(path[..<slash]) + temporaryPrefix + "\(getpid())-" + String(path[slash...])
    }

    /// The process that wrote a temporary file, from its name; nil for any other name.
    public static func writer(ofTemporary name: Substring) -> pid_t? {
        guard name.hasPrefix(temporaryPrefix) else { return nil }
        return pid_t(name.dropFirst(temporaryPrefix.count).prefix { $0 != "-" })
    }

    /// Writes `data` to a temporary file beside `path`, flushed to disk when `durable`.
    public static func prepare(_ data: Data, at path: String, durable: Bool = true) throws -> Pending {
        let temporary = temporaryPath(for: path)
        let fd = try systemCall("open", path: temporary) {
            open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o644)
        }
        do {
            try data.withUnsafeBytes { try writeAll(fd, $0, path: temporary) }
            if durable { try systemCall("fsync", path: temporary) { fsync(fd) } }
            close(fd)
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        return Pending(temporaryPath: temporary, path: path)
    }

    /// Writes `data` at `path` atomically, making its folder when needed.
    /// `durable: false` is for files that can be rebuilt (caches, notes): not flushed.
    public static func write(_ data: Data, to path: String, durable: Bool = true) throws {
        try makeFolder(of: path)
        try prepare(data, at: path, durable: durable).commit()
    }

    /// Makes the folder that will hold `path`, with its parents.
    public static func makeFolder(of path: String) throws {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return }
        try makeFolders(String(path[..<slash]))
    }

    /// Makes `folder` and any missing parents (`mkdir -p`).
    public static func makeFolders(_ folder: String) throws {
        var info = stat()
        if lstat(folder, &info) == 0 { return }
        if let slash = folder.lastIndex(of: "/"), slash != folder.startIndex {
            try makeFolders(String(folder[..<slash]))
        }
        if mkdir(folder, 0o755) != 0 && errno != EEXIST { throw SystemError("mkdir", path: folder, code: errno) }
    }
}
