import DocketModel
import DocketSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Decoded todos kept between commands in `.git/docket/todos.cache`, so that
/// listing 100,000 todos does not decode 100,000 JSON files each time.
///
/// The files stay the truth: each cached todo carries its file's stat data
/// (size, modification and change times, inode), and a todo is taken from the
/// cache only when its file's stat data is unchanged; any other file is read
/// through the store's reader as without a cache. A file changed within the
/// last tick of the file system's clock is never cached, so an edit in the
/// same clock tick as the cache write cannot hide behind equal times (git's
/// "racily clean" problem). A cache that is missing, damaged, or written for
/// another list of todo fields is ignored and rebuilt.
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

    struct Entry {
        let fingerprint: Fingerprint
        let todo: TodoItem
    }

    /// Cached todos by file path (relative to the store).
    var entries: [String: Entry] = [:]

    static let format = CacheFormat(
        magic: Array("DKTC".utf8), version: 4, schema: TodoItem.fields.map(\.key).joined(separator: ","))

    /// The cache in `file`; empty when there is none or it cannot be trusted.
    static func read(from file: String) -> TodoCache {
        TodoCache(
            entries: format.read(from: file) { fingerprint, reader in
                Entry(fingerprint: fingerprint, todo: try TodoItem.read(from: &reader))
            } ?? [:])
    }

    /// Writes the cache to `file` in one step (see `CacheFormat.write`).
    func write(to file: String) {
        TodoCache.format.write(entries, to: file, bytesEach: 200, fingerprint: \.fingerprint) { entry, writer in
            entry.todo.write(to: &writer)
        }
    }
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

extension Store {
    /// Where the todo cache lives: inside the git folder, never in the working tree.
    var todoCacheFile: String { gitdir + "docket/todos.cache" }

    /// Every todo, from the cache where a file is unchanged since it was
    /// cached and from the file otherwise, with the files that could not be
    /// read; the same todos and problems as `load()` gives, far faster for
    /// a large store. Refreshes the cache when anything differed.
    public func loadTodos() throws -> (todos: [TodoItem], problems: [StoreProblem]) {
        let old = TodoCache.read(from: todoCacheFile)
        var new = TodoCache()
        new.entries.reserveCapacity(old.entries.count)
        var todos: [TodoItem] = []
        todos.reserveCapacity(old.entries.count)
        let source = try workingTreeOrLastCommit
        var reader = StoreReader(source)
        var changed = false
        let now = Date()
        var found: [String] = []
        for path in try StoreError.gate(writing: false, { try reader.source.files(under: StoreLayout.todos) }) {
            if StoreLayout.item(at: path).todoID != nil { found.append(path) } else { reader.stray(path) }
        }
        let paths = found
        let root = UncheckedSendable(rootPath)
        let fingerprints = Parallel.map(paths.count) { i -> TodoCache.Fingerprint? in
            var info = stat()
            let found = lstat(root.value + "/" + paths[i], &info) == 0 && info.st_mode & S_IFMT == S_IFREG
            return found ? TodoCache.Fingerprint(info) : nil
        }
        // Files the cache does not hold are read and decoded on all cores, a batch at a time (the first list after
        // an import reads them all). One that does not read plainly (holding git's conflict markers, say) is read
        // again one by one, where the reader explains it or reads it from the last commit.
        let folder = try tree
        for batch in stride(from: 0, to: paths.count, by: 8192).map({ $0..<min(paths.count, $0 + 8192) }) {
            let cached = batch.map { i -> TodoCache.Entry? in
                guard let fingerprint = fingerprints[i], let entry = old.entries[paths[i]],
                    entry.fingerprint == fingerprint
                else { return nil }
                return entry
            }
            let uncached = zip(batch, cached).filter { $0.1 == nil }.map { paths[$0.0] }
            var decoded: [String: TodoItem] = [:]
            if uncached.count >= 64 {
                for (path, item) in zip(uncached, StoreReader.items(at: uncached, in: folder).items) {
                    if case let .todo(todo)? = item { decoded[path] = todo }
                }
            }
            for (i, entry) in zip(batch, cached) {
                let (path, fingerprint) = (paths[i], fingerprints[i])
                if let entry {
                    todos.append(entry.todo)
                    new.entries[path] = entry
                    continue
                }
                // Changed, new, or not a regular file: the reader reads it, or says why not.
                changed = true
                if let todo = decoded[path] ?? reader.todo(at: path) {
                    todos.append(todo)
                    if let fingerprint, !fingerprint.isFresh(now: now), source.shownAsCommitted.last != path {
                        new.entries[path] = TodoCache.Entry(fingerprint: fingerprint, todo: todo)
                    }
                }
            }
        }
        if changed || new.entries.count != old.entries.count { new.write(to: todoCacheFile) }
        return (AppState(todos: todos, projects: [], removed: []).todos, source.problems + reader.problems)
    }
}
