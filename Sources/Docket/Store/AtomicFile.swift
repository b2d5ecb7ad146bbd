import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes a file so that a reader sees the old contents or the new, never a
/// mix: a temporary file beside it is written and fsynced, then renamed over it.
public enum AtomicFile {
    /// A written temporary file, not yet in place.
    public struct Pending {
        /// The temporary file.
        public let temporaryPath: String
        /// Where it goes.
        public let path: String

        /// Renames the temporary file into place.
        public func commit() throws {
            Fault.point("before-rename")
            guard rename(temporaryPath, path) == 0 else {
                let reason = String(cString: strerror(errno))
                unlink(temporaryPath)
                throw StoreError.io(path: path, reason: reason)
            }
        }
    }

    /// Names of temporary files start with this; loading skips them.
    public static let temporaryPrefix = ".docket-tmp-"

    /// Writes `data` to a temporary file beside `path` and fsyncs it.
    public static func prepare(_ data: Data, at path: String) throws -> Pending {
        let folder = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        let temporary = folder + "/" + temporaryPrefix + "\(getpid())-" + name
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw StoreError.io(path: temporary, reason: String(cString: strerror(errno))) }
        var failure: String?
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 { failure = String(cString: strerror(errno)); return }
                offset += written
            }
        }
        if failure == nil, fsync(fd) != 0 { failure = String(cString: strerror(errno)) }
        close(fd)
        if let failure {
            unlink(temporary)
            throw StoreError.io(path: path, reason: failure)
        }
        return Pending(temporaryPath: temporary, path: path)
    }

    /// Writes `data` at `path` atomically, making its folder when needed.
    public static func write(_ data: Data, to path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        if !FileManager.default.fileExists(atPath: folder) {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw StoreError.io(path: folder, reason: error.localizedDescription)
            }
        }
        try prepare(data, at: path).commit()
    }
}
