import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What a file was when a cache read it: its identity (device and inode) and its size, modification and change
/// times. A cache of something read from a file keeps the file's stamp beside it and reads the file again when the
/// stamp differs: a file replaced (a new inode), rewritten (a new size or time) or given a new mode (a new change
/// time) is seen at the next call. A missing file has a stamp too, so one that appears is seen.
public struct FileStamp: Equatable, Sendable {
    private let device: UInt64
    private let inode: UInt64
    private let size: Int64
    private let modified: Int
    private let modifiedNanos: Int
    private let changed: Int
    private let changedNanos: Int

    /// The stamp of the file (or folder) at `path` now; a missing or unreadable file's stamp is all zeros.
    public init(_ path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            (device, inode, size, modified, modifiedNanos, changed, changedNanos) = (0, 0, -1, 0, 0, 0, 0)
            return
        }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modified = Int(info.st_mtim.tv_sec)
        modifiedNanos = Int(info.st_mtim.tv_nsec)
        changed = Int(info.st_ctim.tv_sec)
        changedNanos = Int(info.st_ctim.tv_nsec)
    }

    /// The stamps of `paths`, in their order: what a value read from several files is kept beside.
    public static func of(_ paths: [String]) -> [FileStamp] { paths.map(FileStamp.init) }
}

/// A value read from files, kept with the files' stamps: `value(reading:)` gives the kept value while every file is
/// as it was, and reads it again otherwise. Its owner states what it caches; this states when it is read again.
public struct StampedValue<Value> {
    private let paths: [String]
    private var kept: (stamps: [FileStamp], value: Value)?

    /// A value read from the files at `paths`, not read yet.
    public init(paths: [String]) { self.paths = paths }

    /// The value: the one kept while the files are unchanged, else what `read` gives now.
    public mutating func value(reading read: () throws -> Value) rethrows -> Value {
        let stamps = FileStamp.of(paths)
        if let kept, kept.stamps == stamps { return kept.value }
        let value = try read()
        kept = (stamps, value)
        return value
    }

    /// Forgets the kept value: the next call reads the files.
    public mutating func forget() { kept = nil }
}
