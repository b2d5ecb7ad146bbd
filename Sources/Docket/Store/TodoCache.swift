import DocketModel
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
/// and decoded as without a cache. A file changed within the last tick of the
/// file system's clock is never cached, so an edit in the same clock tick as the cache write
/// cannot hide behind equal times (git's "racily clean" problem). A cache that
/// is missing, damaged or from another version is ignored and rebuilt.
struct TodoCache {
    /// The stat data that stands for a file's contents.
    struct Fingerprint: Equatable {
        var size: Int64, modified: Int64, modifiedNanos: Int64, changed: Int64, changedNanos: Int64, inode: UInt64

        init(_ info: stat) {
            size = Int64(info.st_size)
            modified = Int64(info.st_mtim.tv_sec)
            modifiedNanos = Int64(info.st_mtim.tv_nsec)
            changed = Int64(info.st_ctim.tv_sec)
            changedNanos = Int64(info.st_ctim.tv_nsec)
            inode = UInt64(info.st_ino)
        }

        init(size: Int64, modified: Int64, modifiedNanos: Int64, changed: Int64, changedNanos: Int64, inode: UInt64) {
            (self.size, self.modified, self.modifiedNanos) = (size, modified, modifiedNanos)
            (self.changed, self.changedNanos, self.inode) = (changed, changedNanos, inode)
        }

        /// Whether the file changed so recently that a second change in the same clock tick could go unseen.
        /// File systems with nanosecond times tick every few milliseconds; those
        /// with whole-second times (no nanoseconds at all) tick every one or two seconds.
        func isFresh(now: Date) -> Bool {
            let coarse = modifiedNanos == 0 && changedNanos == 0
            let latest = max(Double(modified) + Double(modifiedNanos) / 1e9, Double(changed) + Double(changedNanos) / 1e9)
            return latest >= now.timeIntervalSince1970 - (coarse ? 2 : 0.1)
        }
    }

    struct Entry {
        let fingerprint: Fingerprint
        let todo: TodoItem
    }

    static let magic: [UInt8] = Array("DKTC".utf8)
    static let version: UInt32 = 1

    /// Cached todos by file path (relative to the store).
    var entries: [String: Entry] = [:]

    // MARK: Reading

    /// The cache in `file`; empty when there is none or it cannot be trusted.
    static func read(from file: String) -> TodoCache {
        guard let data = FileManager.default.contents(atPath: file) else { return TodoCache() }
        return data.withUnsafeBytes { raw in
            var reader = Reader(bytes: raw)
            return (try? reader.cache()) ?? TodoCache()
        }
    }

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        struct Damaged: Error {}

        mutating func take(_ count: Int) throws -> UnsafeRawBufferPointer {
            guard count >= 0, offset + count <= bytes.count else { throw Damaged() }
            defer { offset += count }
            return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)])
        }

        mutating func integer<T: FixedWidthInteger>(_: T.Type) throws -> T {
            let slice = try take(MemoryLayout<T>.size)
            return T(littleEndian: slice.loadUnaligned(as: T.self))
        }

        mutating func string() throws -> String {
            let count = Int(try integer(UInt32.self))
            let slice = try take(count)
            return String(decoding: slice, as: UTF8.self)
        }

        mutating func uuid() throws -> UUID {
            let slice = try take(16)
            var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &value) { $0.copyMemory(from: slice) }
            return UUID(uuid: value)
        }

        mutating func date() throws -> Date? {
            let milliseconds = try integer(Int64.self)
            return milliseconds == Int64.min ? nil : Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        }

        mutating func cache() throws -> TodoCache {
            guard Array(try take(4)) == TodoCache.magic, try integer(UInt32.self) == TodoCache.version else { throw Damaged() }
            let count = Int(try integer(UInt32.self))
            var cache = TodoCache()
            cache.entries.reserveCapacity(count)
            for _ in 0..<count {
                let path = try string()
                let fingerprint = Fingerprint(size: try integer(Int64.self), modified: try integer(Int64.self),
                                              modifiedNanos: try integer(Int64.self), changed: try integer(Int64.self),
                                              changedNanos: try integer(Int64.self), inode: try integer(UInt64.self))
                let id = try uuid()
                let text = try string()
                guard let creationDate = try date() else { throw Damaged() }
                let completed = try integer(UInt8.self) != 0
                let dueDate = try date(), alterDate = try date()
                cache.entries[path] = Entry(fingerprint: fingerprint, todo: TodoItem(id: id, text: text, creationDate: creationDate,
                                                                                    completed: completed, dueDate: dueDate, alterDate: alterDate))
            }
            guard offset == bytes.count else { throw Damaged() }
            return cache
        }
    }

    // MARK: Writing

    /// Writes the cache to `file` through a temporary file and a rename, so a
    /// reader sees a whole cache or none. Not synced: a cache lost in a crash is rebuilt.
    func write(to file: String) {
        var out: [UInt8] = TodoCache.magic
        out.reserveCapacity(entries.count * 200)
        func integer<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) } }
        func string(_ value: String) {
            var value = value
            value.withUTF8 { utf8 in
                integer(UInt32(utf8.count))
                out.append(contentsOf: utf8)
            }
        }
        func date(_ value: Date?) { integer(value.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) } ?? Int64.min) }
        integer(TodoCache.version)
        integer(UInt32(entries.count))
        for (path, entry) in entries {
            string(path)
            let f = entry.fingerprint
            for value in [f.size, f.modified, f.modifiedNanos, f.changed, f.changedNanos] { integer(value) }
            integer(f.inode)
            withUnsafeBytes(of: entry.todo.id.uuid) { out.append(contentsOf: $0) }
            string(entry.todo.text)
            date(entry.todo.creationDate)
            integer(UInt8(entry.todo.completed ? 1 : 0))
            date(entry.todo.dueDate)
            date(entry.todo.alterDate)
        }
        let folder = (file as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let temporary = file + ".\(getpid()).tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(out)) else { return }
        if rename(temporary, file) != 0 { unlink(temporary) }
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
        var problems: [StoreProblem] = []
        var changed = false
        let now = Date()
        var paths: [String] = []
        paths.reserveCapacity(old.entries.count)
        for folder in try listing("todos") where folder.count == 2 {
            for file in try listing("todos/" + folder) where isItemFile(file) { paths.append("todos/\(folder)/\(file)") }
        }
        let fingerprints = fingerprintsInParallel(paths)
        for (relative, fingerprint) in zip(paths, fingerprints) {
            if let fingerprint {
                if let entry = old.entries[relative], entry.fingerprint == fingerprint {
                    todos.append(entry.todo)
                    new.entries[relative] = entry
                    continue
                }
                changed = true
                if let todo = read(TodoItem.self, at: relative, problems: &problems) {
                    todos.append(todo)
                    if !fingerprint.isFresh(now: now) { new.entries[relative] = TodoCache.Entry(fingerprint: fingerprint, todo: todo) }
                }
            } else {
                // Not a regular file (or gone): read reports why, as load does.
                changed = true
                if let todo = read(TodoItem.self, at: relative, problems: &problems) { todos.append(todo) }
            }
        }
        if changed || new.entries.count != old.entries.count { new.write(to: todoCacheFile) }
        return (AppState(todos: todos, projects: [], removed: []).todos, problems)
    }
}

extension Store {
    /// The fingerprint of each store path that is a regular file (nil for
    /// anything else, or nothing), from stat calls on all cores.
    /// NB: at 100,000 todos the stat calls were a third of `docket list`.
    func fingerprintsInParallel(_ paths: [String]) -> [TodoCache.Fingerprint?] {
        let results = UnsafeMutableBufferPointer<TodoCache.Fingerprint?>.allocate(capacity: paths.count)
        results.initialize(repeating: nil)
        defer { results.deallocate() }
        let work = StatWork(root: rootPath, paths: paths, results: results)
        let parts = 8, size = (paths.count + parts - 1) / parts
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            for i in min(paths.count, part * size)..<min(paths.count, (part + 1) * size) { work.stat(i) }
        }
        return Array(results)
    }
}

/// One parallel stat's shared state: each thread writes only its own slots.
private struct StatWork: @unchecked Sendable {
    let root: String
    let paths: [String]
    let results: UnsafeMutableBufferPointer<TodoCache.Fingerprint?>

    func stat(_ i: Int) {
        var info = Glibc.stat()
        let found = lstat(root + "/" + paths[i], &info) == 0 && info.st_mode & S_IFMT == S_IFREG
        results[i] = found ? TodoCache.Fingerprint(info) : nil
    }
}
