import DocketGit
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

    /// Writes `data` to a temporary file beside `path` and, unless `sync` is
    /// false (a batch that syncs once for all its files), fsyncs it.
    public static func prepare(_ data: Data, at path: String, sync: Bool = true) throws -> Pending {
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
        if failure == nil, sync, fsync(fd) != 0 { failure = String(cString: strerror(errno)) }
        close(fd)
        if let failure {
            unlink(temporary)
            throw StoreError.io(path: path, reason: failure)
        }
        return Pending(temporaryPath: temporary, path: path)
    }

    /// Writes `data` at `path` atomically, making its folder when needed.
    public static func write(_ data: Data, to path: String) throws {
        try makeFolder(of: path)
        try prepare(data, at: path).commit()
    }

    static func makeFolder(of path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        if !FileManager.default.fileExists(atPath: folder) {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw StoreError.io(path: folder, reason: error.localizedDescription)
            }
        }
    }

    /// Many files written atomically with one flush to disk instead of one per
    /// file: each goes to a temporary file, then all are synced, then renamed.
    ///
    /// NB: an fsync per file costs about 1 ms, so writing 100,000 items took
    /// 140 s; past a few files, one `syncfs` of the store's file system is
    /// far cheaper and just as durable.
    public final class Batch {
        private var pending: [Pending] = []

        /// An empty batch.
        public init() {}

        /// Writes `data` to a temporary file beside `path`; it is put in place by `commit`.
        public func add(_ data: Data, at path: String) throws {
            do {
                try AtomicFile.makeFolder(of: path)
                pending.append(try AtomicFile.prepare(data, at: path, sync: false))
            } catch {
                discard()
                throw error
            }
        }

        /// Syncs every temporary file to disk, then renames each into place.
        public func commit() throws {
            defer { pending = [] }
            guard !pending.isEmpty else { return }
            if pending.count <= 8 {
                for file in pending { try fsync(file.temporaryPath) }
            } else if let reason = flushFileSystem(holding: pending[0].temporaryPath) {
                discard()
                throw StoreError.io(path: pending[0].path, reason: reason)
            }
            for (index, file) in pending.enumerated() {
                do {
                    try file.commit()
                } catch {
                    for rest in pending[(index + 1)...] { unlink(rest.temporaryPath) }
                    throw error
                }
            }
        }

        /// Removes the temporary files of a batch that will not be committed.
        public func discard() {
            for file in pending { unlink(file.temporaryPath) }
            pending = []
        }

        private func fsync(_ path: String) throws {
            let fd = open(path, O_RDONLY)
            let ok = fd >= 0 && Glibc.fsync(fd) == 0
            let reason = String(cString: strerror(errno))
            if fd >= 0 { close(fd) }
            if !ok {
                discard()
                throw StoreError.io(path: path, reason: reason)
            }
        }

        deinit { discard() }
    }
}
