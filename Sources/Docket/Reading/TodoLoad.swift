import DocketModel
import DocketSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension Store {
    /// Where the todo cache lives: inside the git folder, never in the working tree.
    var todoCacheFile: String { gitdir + "docket/todos.cache" }

    /// Every todo, from the cache where a file is unchanged since it was
    /// cached and from the file otherwise, with the files that could not be
    /// read; the same todos and problems as `load()` gives, far faster for
    /// a large store. Refreshes the cache when anything differed.
    public func loadTodos() throws -> (todos: [TodoItem], problems: [StoreProblem]) {
        try loadTodos(openOnly: false)
    }

    /// The todos, as `loadTodos()` gives them; with `openOnly`, only those not
    /// done, at a cost that follows the open todos and the files changed since
    /// the last load rather than the store's size: a done todo's record is
    /// not decoded while its file is as cached. Every file that does not read
    /// is a problem either way (it may hold an open todo).
    public func loadTodos(openOnly: Bool) throws -> (todos: [TodoItem], problems: [StoreProblem]) {
        let (todos, problems, _) = try loadTodosKnowingFiles(openOnly: openOnly, files: false)
        return (todos, problems)
    }

    /// The todos as `loadTodos(openOnly:)` gives them, with (when `files`) the stat data the cache now vouches for
    /// each todo's file by, by store path.
    func loadTodosKnowingFiles(openOnly: Bool, files: Bool = true) throws -> (
        todos: [TodoItem], problems: [StoreProblem], files: [String: TodoCache.Fingerprint?]
    ) {
        let folder = try tree
        let cached = TodoCacheFile.bytes(of: todoCacheFile)
        defer { cached.deallocate() }
        // A record that does not decode means a damaged cache: the load starts again without it, and rebuilds it.
        for raw in [UnsafeRawBufferPointer(cached), UnsafeRawBufferPointer(start: nil, count: 0)] {
            let source = try workingTreeOrLastCommit
            var reader = StoreReader(source)
            let old = TodoCacheFile(raw)
            // NB: asked before anything is looked at, so whatever changes from here on is in the next answer.
            let answer = ChangeMonitor.ask(in: monitorHome, since: old?.token)
            var load = TodoLoad(root: folder, cache: old, bytes: raw, openOnly: openOnly, answer: answer)
            load.notesFiles = files
            var damaged = false
            try StoreError.gate(writing: false) {
                do { try load.scan(reader: &reader) } catch is CompactReader.Damaged where old != nil { damaged = true }
            }
            if damaged { continue }
            load.readChanged(reader: &reader, in: folder, source: source)
            if load.changed { load.write(to: todoCacheFile) }
            let todos = AppState(todos: load.todos, projects: [], removed: []).todos
            return (todos, source.problems + reader.problems, files ? load.fingerprints : [:])
        }
        preconditionFailure("a load without a cache reads no cache record")
    }
}

extension TodoCacheFile {
    /// The bytes of the cache file at `path`, in memory for huge pages (`allocateLargeBuffer`: at 100,000 todos the
    /// cache is about 18 MB, and reading it into small pages was a fifth of the day's view with the monitor on); empty
    /// when there is none, or it is not a regular file or larger than 1 GiB. Free them with `deallocate()`.
    static func bytes(of path: String) -> UnsafeMutableRawBufferPointer {
        let none = UnsafeMutableRawBufferPointer.allocate(byteCount: 0, alignment: 16)
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return none }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size > 0, info.st_size <= 1 << 30
        else { return none }
        let buffer = allocateLargeBuffer(byteCount: Int(info.st_size))
        guard (try? readExactly(fd, into: buffer, path: path)) == true else {
            buffer.deallocate()
            return none
        }
        none.deallocate()
        return buffer
    }
}

/// A todo cache file as read: its monitor token and its shard folders' blocks, parsed no further.
struct TodoCacheFile {
    struct Shard {
        /// The folder's stat data when its names were all recorded and it had not just changed.
        let fingerprint: TodoCache.Fingerprint?
        /// Where its records lie in the file's bytes, and the whole block (for a copy).
        let records: Range<Int>
        let block: Range<Int>
    }

    /// The token of the change monitor the scan that wrote it began from; nil without one.
    let token: MonitorToken?
    let shards: [String: Shard]

    /// The cache in `bytes`; nil when it is empty, damaged, or written for another version or other fields.
    init?(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return nil }
        var reader = CompactReader(bytes)
        do {
            guard Array(try reader.raw(TodoCache.magic.count)) == TodoCache.magic,
                try reader.integer(UInt32.self) == TodoCache.version, try reader.string() == TodoCache.schema
            else { return nil }
            token = MonitorToken(Substring(try reader.string()))
            let count = Int(try reader.integer(UInt32.self))
            var shards: [String: Shard] = [:]
            shards.reserveCapacity(count)
            for _ in 0..<count {
                let start = reader.offset
                let name = try reader.string()
                let fingerprint =
                    try reader.integer(UInt8.self) == 1 ? try TodoCache.Fingerprint(reading: &reader) : nil
                let length = Int(try reader.integer(UInt64.self))
                let records = reader.offset..<(reader.offset + length)
                _ = try reader.raw(length)
                shards[name] = Shard(fingerprint: fingerprint, records: records, block: start..<reader.offset)
            }
            guard reader.isAtEnd else { return nil }
            self.shards = shards
        } catch {
            return nil
        }
    }

    /// A record of a shard's block: a cached todo (open or done), or a name whose file is read every time.
    enum Record {
        case todo(UUID, TodoCache.Fingerprint, done: Bool, encoded: Range<Int>)
        case name(String)
    }

    /// The records of a shard's block, in order.
    static func records(_ range: Range<Int>, in bytes: UnsafeRawBufferPointer) throws -> [Record] {
        var reader = CompactReader(UnsafeRawBufferPointer(rebasing: bytes[range]))
        let count = Int(try reader.integer(UInt32.self))
        var records: [Record] = []
        records.reserveCapacity(count)
        for _ in 0..<count {
            switch try reader.integer(UInt8.self) {
            case let kind where kind <= 1:
                let id = UUID(uuid: try reader.raw(16).loadUnaligned(as: uuid_t.self))
                let fingerprint = try TodoCache.Fingerprint(reading: &reader)
                let length = Int(try reader.integer(UInt32.self))
                let start = range.lowerBound + reader.offset
                _ = try reader.raw(length)
                records.append(.todo(id, fingerprint, done: kind == 1, encoded: start..<(start + length)))
            case 2:
                records.append(.name(try reader.string()))
            default:
                throw CompactReader.Damaged()
            }
        }
        guard reader.isAtEnd else { throw CompactReader.Damaged() }
        return records
    }
}

/// One load of the store's todos through the cache: each shard folder of
/// `todos/` looked at (on all cores), then the files the cache could not
/// vouch for read, then the cache written again when anything differed.
struct TodoLoad {
    let root: Folder
    let cache: TodoCacheFile?
    let bytes: UnsafeRawBufferPointer
    let openOnly: Bool
    let answer: MonitorAnswer?
    let now = Date()

    /// The todos loaded (with `openOnly`, the open ones).
    private(set) var todos: [TodoItem] = []
    /// Whether the cache must be written again.
    private(set) var changed = false
    private var scans: [(name: String, scan: ShardScan)] = []

    init(root: Folder, cache: TodoCacheFile?, bytes: UnsafeRawBufferPointer, openOnly: Bool, answer: MonitorAnswer?) {
        self.root = root
        self.cache = cache
        self.bytes = bytes
        self.openOnly = openOnly
        self.answer = answer
    }

    /// What a look at one shard folder found.
    struct ShardScan {
        /// The todos taken from the cache.
        var todos: [TodoItem] = []
        /// Records carried over as they are: those taken from the cache, and names read every time.
        var kept: [TodoCacheFile.Record] = []
        /// The todo files to read, with their stat data (nil: not a regular file).
        var toRead: [(name: String, fingerprint: TodoCache.Fingerprint?)] = []
        /// The cache record of each file read, where it is to be kept (in `toRead`'s order; filled by `readChanged`).
        var records: [[UInt8]?] = []
        /// Store paths in the folder that name no todo (in a folder inside it, too).
        var strays: [String] = []
        /// Whether a cached file is gone or the folder's names differ from the cache's.
        var differs = false
        /// The folder's stat data, when its names can be vouched for next time.
        var fingerprint: TodoCache.Fingerprint?
        /// Whether the cache's block for the folder stays as it is.
        var unchanged = false
        /// Whether the folder is gone.
        var missing = false
        var failure: Error?
    }

    /// The monitor's word on a shard folder: nothing changed there since the cache's scan began.
    private func monitorVouches(for path: String) -> Bool {
        guard case let .changed(_, folders, subtrees) = answer, cache?.token != nil else { return false }
        for changed in folders where changed == path || changed.hasPrefix(path + "/") { return false }
        for subtree in subtrees
        where subtree == path || subtree.hasPrefix(path + "/") || subtree.isEmpty || path.hasPrefix(subtree + "/") {
            return false
        }
        return true
    }

    /// Looks at every folder of `todos/`: files directly in it are strays, each folder a shard.
    mutating func scan(reader: inout StoreReader) throws {
        guard let top = try root.folder(StoreLayout.todos) else {
            changed = cache.map { !$0.shards.isEmpty } ?? true
            return
        }
        var names: [String] = []
        for entry in try top.entries() {
            if entry.isFolder { names.append(entry.name) } else { reader.stray(StoreLayout.todos + "/" + entry.name) }
        }
        // NB: a shard folder replaced or renamed shows as a change of `todos` itself: then its own stat data decides.
        let topChanged: Bool = {
            guard case let .changed(_, folders, _) = answer else { return true }
            return folders.contains(StoreLayout.todos)
        }()
        let vouched = names.map { monitorVouches(for: StoreLayout.todos + "/" + $0) }
        let context = UncheckedSendable(self)
        let list = names
        let found = Parallel.map(list.count) { i -> UncheckedSendable<ShardScan> in
            UncheckedSendable(context.value.scanShard(list[i], vouched: vouched[i], checkFolder: topChanged))
        }
        for (name, result) in zip(names, found) {
            if let failure = result.value.failure { throw failure }
            scans.append((name, result.value))
            if !result.value.unchanged { changed = true }
        }
        let listed = Set(names)
        if let cache, cache.shards.keys.contains(where: { !listed.contains($0) }) { changed = true }
        if cache == nil { changed = true }
        // A new token is noted when the scan looked at everything, or when the monitor named many folders.
        if case let .changed(_, folders, _) = answer, folders.count >= 8 { changed = true }
        if case .unknown = answer { changed = true }
        if answer != nil, cache?.token == nil { changed = true }
        for (_, scan) in scans {
            todos += scan.todos
            for path in scan.strays { reader.stray(path) }
        }
    }

    /// Looks at one shard folder.
    func scanShard(_ name: String, vouched: Bool, checkFolder: Bool) -> ShardScan {
        var scan = ShardScan()
        let path = StoreLayout.todos + "/" + name
        let old = cache?.shards[name]
        do {
            if vouched, !checkFolder, let old, let fingerprint = old.fingerprint {
                scan.fingerprint = fingerprint
                // NB: for the views of open work, a block holding only cached todos is read in place: its open todos
                // decoded, its done ones skipped, and nothing kept but the block itself.
                if openOnly, !notesFiles, let todos = try Self.openTodos(old.records, in: bytes) {
                    scan.todos = todos
                    scan.unchanged = true
                    return scan
                }
                try takeVouched(try TodoCacheFile.records(old.records, in: bytes), into: &scan, folder: nil, path: path)
                scan.unchanged = scan.toRead.isEmpty && !scan.differs
                return scan
            }
            guard let folder = try root.folder(path) else {
                scan.missing = true
                return scan
            }
            var info = stat()
            guard fstat(folder.fd, &info) == 0 else {
                throw FileProblem.system(SystemError("fstat", path: path, code: errno))
            }
            let fingerprint = TodoCache.Fingerprint(info)
            if let old, old.fingerprint == fingerprint {
                // No name was added, removed or renamed here since the cache was written.
                let records = try TodoCacheFile.records(old.records, in: bytes)
                if vouched {
                    try takeVouched(records, into: &scan, folder: folder, path: path)
                } else {
                    try take(records, into: &scan, folder: folder, path: path)
                }
                scan.fingerprint = fingerprint
                scan.unchanged = scan.toRead.isEmpty && !scan.differs
                return scan
            }
            var cached: [UUID: TodoCacheFile.Record] = [:]
            if let old {
                for record in try TodoCacheFile.records(old.records, in: bytes) {
                    if case let .todo(id, _, _, _) = record { cached[id] = record }
                }
            }
            var nested = false
            for entry in try folder.entries() {
                let file = path + "/" + entry.name
                if entry.isFolder {
                    nested = true
                    scan.strays += try WorkingTreeSource(root: root).files(under: file)
                    continue
                }
                guard case let .todo(id) = StoreLayout.item(at: file) else {
                    scan.strays.append(file)
                    scan.kept.append(.name(entry.name))
                    continue
                }
                let now = folder.status(entry.name).flatMap {
                    $0.st_mode & S_IFMT == S_IFREG ? TodoCache.Fingerprint($0) : nil
                }
                if let now, case let .todo(_, fingerprint, done, encoded)? = cached[id], fingerprint == now {
                    try keep(id, fingerprint, done: done, encoded: encoded, into: &scan)
                } else {
                    scan.toRead.append((entry.name, now))
                }
            }
            scan.fingerprint = nested || fingerprint.isFresh(now: now) ? nil : fingerprint
        } catch {
            scan.failure = error
        }
        return scan
    }

    /// The open todos of a shard's block, read in place; nil when the block holds a name to read every time.
    static func openTodos(_ range: Range<Int>, in bytes: UnsafeRawBufferPointer) throws -> [TodoItem]? {
        var reader = CompactReader(UnsafeRawBufferPointer(rebasing: bytes[range]))
        let count = Int(try reader.integer(UInt32.self))
        var todos: [TodoItem] = []
        for _ in 0..<count {
            let kind = try reader.integer(UInt8.self)
            guard kind <= 1 else { return nil }
            _ = try reader.raw(16 + 48)
            let length = Int(try reader.integer(UInt32.self))
            if kind == 1 {
                _ = try reader.raw(length)
                continue
            }
            var todo = CompactReader(try reader.raw(length))
            todos.append(try TodoItem.read(from: &todo))
        }
        guard reader.isAtEnd else { throw CompactReader.Damaged() }
        return todos
    }

    /// Takes records from a folder whose names are as cached: each todo while its file's stat data is.
    private func take(
        _ records: [TodoCacheFile.Record], into scan: inout ShardScan, folder: Folder, path: String
    ) throws {
        var name = [CChar](repeating: 0, count: 48)
        for record in records {
            switch record {
            case let .todo(id, fingerprint, done, encoded):
                var info = stat()
                StoreLayout.writeFileName(of: id, into: &name)
                let found = fstatat(folder.fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0
                let now = found && info.st_mode & S_IFMT == S_IFREG ? TodoCache.Fingerprint(info) : nil
                if now == fingerprint {
                    try keep(id, fingerprint, done: done, encoded: encoded, into: &scan)
                } else if found {
                    scan.toRead.append((StoreLayout.name(id) + ".json", now))
                } else {
                    scan.differs = true
                }
            case let .name(name):
                try takeName(name, into: &scan, folder: folder, path: path)
            }
        }
    }

    /// Takes records from a folder the monitor vouches for: every cached todo as it is.
    private func takeVouched(
        _ records: [TodoCacheFile.Record], into scan: inout ShardScan, folder: Folder?, path: String
    ) throws {
        for record in records {
            switch record {
            case let .todo(id, fingerprint, done, encoded):
                try keep(id, fingerprint, done: done, encoded: encoded, into: &scan)
            case let .name(name):
                guard let folder = try folder ?? root.folder(path) else { continue }
                try takeName(name, into: &scan, folder: folder, path: path)
            }
        }
    }

    /// A name kept as a name: a todo's file (read every time), or a stray.
    private func takeName(_ name: String, into scan: inout ShardScan, folder: Folder, path: String) throws {
        let file = path + "/" + name
        if case .todo = StoreLayout.item(at: file) {
            if let info = folder.status(name) {
                scan.toRead.append((name, info.st_mode & S_IFMT == S_IFREG ? TodoCache.Fingerprint(info) : nil))
            } else {
                scan.differs = true
            }
        } else {
            scan.strays.append(file)
            scan.kept.append(.name(name))
        }
    }

    private func keep(
        _ id: UUID, _ fingerprint: TodoCache.Fingerprint, done: Bool, encoded: Range<Int>, into scan: inout ShardScan
    ) throws {
        scan.kept.append(.todo(id, fingerprint, done: done, encoded: encoded))
        guard !done || !openOnly else { return }
        var reader = CompactReader(UnsafeRawBufferPointer(rebasing: bytes[encoded]))
        scan.todos.append(try TodoItem.read(from: &reader))
    }

    // MARK: Files the cache could not vouch for

    /// Whether to note each file a todo was read from (`fingerprints`).
    var notesFiles = false
    /// The files read in this load that held a todo, with the stat data the cache will hold them by, when noted.
    private var read: [String: TodoCache.Fingerprint?] = [:]

    /// Reads the files the cache did not vouch for; one that does not read
    /// plainly (holding git's conflict markers, say) is read again one by
    /// one, where the reader explains it or reads it from the last commit.
    mutating func readChanged(reader: inout StoreReader, in folder: Folder, source: LastCommittedWhenConflicted) {
        let paths = scans.flatMap { shard in
            shard.scan.toRead.map { StoreLayout.todos + "/" + shard.name + "/" + $0.name }
        }
        guard !paths.isEmpty else { return }
        changed = true
        var decoded: [String: TodoItem] = [:]
        if paths.count >= 64 {
            for (path, item) in zip(paths, StoreReader.items(at: paths, in: folder).items) {
                if case let .todo(todo)? = item { decoded[path] = todo }
            }
        }
        // NB: each todo to keep is encoded as its cache record here, so no second copy of 100,000 todos waits for
        // the write (the first list after an import reads them all).
        for s in scans.indices {
            scans[s].scan.records = Array(repeating: nil, count: scans[s].scan.toRead.count)
            for (j, (name, fingerprint)) in scans[s].scan.toRead.enumerated() {
                let path = StoreLayout.todos + "/" + scans[s].name + "/" + name
                guard let todo = decoded.removeValue(forKey: path) ?? reader.todo(at: path) else { continue }
                if !openOnly || !todo.completed { todos.append(todo) }
                var kept: TodoCache.Fingerprint?
                if let fingerprint, !fingerprint.isFresh(now: now), source.shownAsCommitted.last != path {
                    kept = fingerprint
                    var record = CompactWriter()
                    record.integer(UInt8(todo.completed ? 1 : 0))
                    withUnsafeBytes(of: todo.id.uuid) { record.raw($0) }
                    fingerprint.write(to: &record)
                    var encoded = CompactWriter()
                    todo.write(to: &encoded)
                    record.integer(UInt32(encoded.bytes.count))
                    record.raw(encoded.bytes)
                    scans[s].scan.records[j] = record.bytes
                }
                if notesFiles { read[path] = .some(kept) }
            }
        }
    }

    /// Each todo file a todo was loaded from, by store path, with the stat data the cache now holds it by (nil for
    /// one it does not hold: changed in this clock tick, or read from the last commit).
    var fingerprints: [String: TodoCache.Fingerprint?] {
        var found: [String: TodoCache.Fingerprint?] = [:]
        found.reserveCapacity(todos.count + read.count)
        for (_, scan) in scans {
            for case let .todo(id, fingerprint, _, _) in scan.kept { found[StoreLayout.todo(id)] = fingerprint }
        }
        for (path, fingerprint) in read { found[path] = .some(fingerprint) }
        return found
    }

    // MARK: Writing

    /// Writes the cache in one step (temporary file and rename); not flushed: a cache lost in a crash is rebuilt.
    func write(to file: String) {
        var writer = CompactWriter()
        // NB: about what a todo's record takes, so 100,000 new ones do not make the buffer grow and copy itself.
        writer.reserve(max(bytes.count, todos.count * 240) + 4096)
        writer.raw(TodoCache.magic)
        writer.integer(TodoCache.version)
        writer.string(TodoCache.schema)
        let token: MonitorToken? =
            switch answer {
            case let .changed(now, _, _)?, let .unknown(now)?: now
            case nil: nil
            }
        writer.string(token?.description ?? "")
        let shards = scans.filter { !$0.scan.missing }
        writer.integer(UInt32(shards.count))
        for (name, scan) in shards {
            if scan.unchanged, let old = cache?.shards[name] {
                writer.raw(UnsafeRawBufferPointer(rebasing: bytes[old.block]))
                continue
            }
            var records = CompactWriter()
            var count: UInt32 = 0
            for record in scan.kept {
                count += 1
                switch record {
                case let .todo(id, fingerprint, done, encoded):
                    records.integer(UInt8(done ? 1 : 0))
                    withUnsafeBytes(of: id.uuid) { records.raw($0) }
                    fingerprint.write(to: &records)
                    records.integer(UInt32(encoded.count))
                    records.raw(UnsafeRawBufferPointer(rebasing: bytes[encoded]))
                case let .name(name):
                    records.integer(UInt8(2))
                    records.string(name)
                }
            }
            for (j, (file, _)) in scan.toRead.enumerated() {
                count += 1
                if let record = scan.records[j] {
                    records.raw(record)
                } else {
                    records.integer(UInt8(2))
                    records.string(file)
                }
            }
            writer.string(name)
            if let fingerprint = scan.fingerprint {
                writer.integer(UInt8(1))
                fingerprint.write(to: &writer)
            } else {
                writer.integer(UInt8(0))
            }
            writer.integer(UInt64(4 + records.bytes.count))
            writer.integer(count)
            writer.raw(records.bytes)
        }
        var bytes = writer.bytes
        bytes.withUnsafeMutableBytes { raw in
            try? AtomicFile.write(
                Data(bytesNoCopy: raw.baseAddress!, count: raw.count, deallocator: .none), to: file, durable: false)
        }
    }
}
