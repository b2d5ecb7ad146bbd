import DocketModel
import DocketSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Decoded todos kept between commands in `.git/docket/todos.cache`, so that
/// listing 100,000 todos does not decode 100,000 JSON files each time, and
/// the open todos of a store where most are done are read without the done.
///
/// The files stay the truth: each cached todo carries its file's stat data
/// (size, modification and change times, inode), and a todo is taken from the
/// cache only when its file's stat data is unchanged; any other file is read
/// through the store's reader as without a cache. A file changed within the
/// last tick of the file system's clock is never cached, so an edit in the
/// same clock tick as the cache write cannot hide behind equal times (git's
/// "racily clean" problem). A cache that is missing, damaged, or written for
/// another list of todo fields is ignored and rebuilt.
///
/// The cache is kept by shard folder (`todos/<AB>`), each with the folder's
/// own stat data and every name in it: while a folder's times are as cached,
/// no name was added, removed or renamed there, and its files are stat'ed by
/// name without listing it (git's untracked cache). While `docket monitor`
/// runs, the folders it says nothing changed in since the cache's scan began
/// are taken as cached without a look. Each record says whether its todo is
/// done, so a load of open todos decodes no done one.
struct TodoCache {
    /// The stat data that stands for a file's contents.
    struct Fingerprint: Equatable, Sendable {
        var size: Int64, modified: Int64, modifiedNanos: Int64, changed: Int64, changedNanos: Int64, inode: UInt64

        init(_ info: stat) {
            size = Int64(info.st_size)
            modified = Int64(info.st_mtim.tv_sec)
            modifiedNanos = Int64(info.st_mtim.tv_nsec)
            changed = Int64(info.st_ctim.tv_sec)
            changedNanos = Int64(info.st_ctim.tv_nsec)
            inode = UInt64(info.st_ino)
        }

        init(reading reader: inout CompactReader) throws {
            (size, modified, modifiedNanos) = (try reader.integer(), try reader.integer(), try reader.integer())
            (changed, changedNanos, inode) = (try reader.integer(), try reader.integer(), try reader.integer())
        }

        func write(to writer: inout CompactWriter) {
            for value in [size, modified, modifiedNanos, changed, changedNanos] { writer.integer(value) }
            writer.integer(inode)
        }

        /// Whether the file changed so recently that a second change in the same clock tick could go unseen.
        /// File systems with nanosecond times tick every few milliseconds; those
        /// with whole-second times (no nanoseconds at all) tick every one or two seconds.
        func isFresh(now: Date) -> Bool {
            let coarse = modifiedNanos == 0 && changedNanos == 0
            let latest = max(
                Double(modified) + Double(modifiedNanos) / 1e9, Double(changed) + Double(changedNanos) / 1e9)
            return latest >= now.timeIntervalSince1970 - (coarse ? 2 : 0.1)
        }
    }

    /// The fields a cached todo's record holds, in order: a cache written for other fields is not read.
    static let schema = TodoItem.fields.map(\.key).joined(separator: ",")
    static let magic = Array("DKTC".utf8)
    static let version: UInt32 = 5
}

/// The file a cache of decoded items is kept in: a magic, a version, the
/// fields its records hold, then one record per store file (its path, its
/// stat data, and what it decoded to).
struct CacheFormat {
    let magic: [UInt8]
    let version: UInt32
    /// The fields the records hold, in order: a cache written for other fields is not read.
    let schema: String

    /// The records in `file`, each read by `record` after its path and stat
    /// data; nil when there is no file, or it is damaged (a record that
    /// throws included) or written for another version or other fields.
    func read<Value>(from file: String, record: (TodoCache.Fingerprint, inout CompactReader) throws -> Value)
        -> [String: Value]?
    {
        // The cache is Docket's own file, but a link, a pipe or a giant there reads as no cache.
        guard let data = try? Folder.readFile(file, limit: 1 << 30) else { return nil }
        return data.withUnsafeBytes { raw in
            var reader = CompactReader(raw)
            do {
                guard Array(try reader.raw(magic.count)) == magic, try reader.integer(UInt32.self) == version,
                    try reader.string() == schema
                else { return nil }
                let count = Int(try reader.integer(UInt32.self))
                var records: [String: Value] = [:]
                records.reserveCapacity(count)
                for _ in 0..<count {
                    let path = try reader.string()
                    records[path] = try record(try TodoCache.Fingerprint(reading: &reader), &reader)
                }
                return reader.isAtEnd ? records : nil
            } catch {
                return nil
            }
        }
    }

    /// Writes `records` to `file` through a temporary file and a rename, so a
    /// reader sees a whole cache or none. Not flushed: a cache lost in a crash is rebuilt.
    func write<Value>(
        _ records: [String: Value], to file: String, bytesEach: Int, fingerprint: (Value) -> TodoCache.Fingerprint,
        record: (Value, inout CompactWriter) -> Void
    ) {
        var writer = CompactWriter()
        writer.reserve(records.count * bytesEach)
        writer.raw(magic)
        writer.integer(version)
        writer.string(schema)
        writer.integer(UInt32(records.count))
        for (path, value) in records {
            writer.string(path)
            fingerprint(value).write(to: &writer)
            record(value, &writer)
        }
        try? AtomicFile.write(Data(writer.bytes), to: file, durable: false)
    }
}
