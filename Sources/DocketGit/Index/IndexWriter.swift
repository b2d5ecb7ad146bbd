import DocketCGit2
import DocketSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The index as Docket last wrote it, read by Docket (`IndexFile`), while it still holds HEAD's tree.
public final class NotedIndex: Sendable {
    let file: IndexFile
    /// HEAD's tree, which the index holds.
    let tree: ObjectID
    init(_ file: IndexFile, tree: ObjectID) {
        self.file = file
        self.tree = tree
    }
}

extension Repository {
    /// The index, read by Docket, when it is the one Docket noted as holding HEAD's tree; nil otherwise.
    public func notedIndexHoldingHead() throws -> NotedIndex? {
        guard let noted = indexTreeNoted(), let file = readNotedIndex(noted.checksum),
            try headTreeIfNoted(noted.tree) != nil
        else { return nil }
        return NotedIndex(file, tree: noted.tree)
    }

    /// The index file when its checksum is `checksum` (`IndexFile.read`); the
    /// one read last in this process while the file on disk is the same file,
    /// unchanged since (its inode, size, change and modification times, and checksum).
    func readNotedIndex(_ checksum: ObjectID) -> IndexFile? {
        let path = gitdir + "index"
        if let last = caches.lastIndexRead, last.checksum == checksum.bytes {
            var info = stat()
            if lstat(path, &info) == 0, last.isFile(info), Self.checksum(ofIndexAt: path) == last.checksum {
                return last
            }
        }
        caches.lastIndexRead = IndexFile.read(path, checksum: checksum)
        return caches.lastIndexRead
    }

    /// Sets each path's entry in `index` to its file as it is now and the
    /// given blob (nil removes it), writes the index under git's lock as git
    /// would, and notes it as holding `tree` when given. False, with nothing
    /// written, when Docket leaves it to libgit2: the index holds an extension
    /// Docket does not write, git's lock is taken, or the index changed since it was read.
    ///
    /// NB: libgit2 reads the whole index into a table of entries and writes it
    /// back from that table: at 100,000 items about 120 ms of a pull that
    /// changes 100 files. Here the entries are copied as they are, with the
    /// changed ones put in their place.
    public func writeIndex(
        _ index: NotedIndex, setting entries: [(path: String, id: ObjectID?)], noting tree: ObjectID?
    ) throws -> Bool {
        var changes: [(path: String, id: ObjectID?, info: stat?)] = []
        for (path, id) in entries {
            var info = stat()
            guard id == nil || lstat(workdir! + path, &info) == 0 else { continue }
            changes.append((path, id, id == nil ? nil : info))
        }
        return try writeIndex(index, changes: changes, noting: tree)
    }

    /// Takes the stat data of the files at `paths` into their index entries
    /// when their bytes and mode are still the entries' (files copied,
    /// restored or touched without a change), as `git status` refreshes its
    /// index, so that the next status need not hash them again. Each file is
    /// read once more, its stat data taken before it is read; one that changed
    /// keeps its entry. False, with nothing written, when the index is not the
    /// one Docket noted as holding HEAD's tree, a filter could apply, no file
    /// is unchanged, or git's lock is taken.
    public func refreshStatData(_ paths: [String]) throws -> Bool {
        guard !paths.isEmpty, let own = try notedIndexHoldingHead(), !(try mayFilter(paths)) else { return false }
        let rootFD = try systemCall("open", path: workdir!) { Glibc.open(workdir!, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        defer { close(rootFD) }
        var changes: [(path: String, id: ObjectID?, info: stat?)] = []
        let trustsMode = trustsFileMode
        for path in paths {
            guard let entry = own.file.entry(at: path), own.file.mode(entry) != IndexFile.linkMode,
                case let .read(data, info) = Self.readPlainFile(path, in: rootFD, limit: 1 << 26),
                Self.recordedMode(info, old: own.file.mode(entry), trustingMode: trustsMode) == own.file.mode(entry),
                let id = try? Self.blobID(of: data), id == own.file.id(entry)
            else { continue }
            changes.append((path, id, info))
        }
        return try !changes.isEmpty && writeIndex(own, changes: changes, noting: own.tree)
    }

    /// `writeIndex(_:setting:noting:)` with each file's stat data given, as taken before the file was read;
    /// `holding` names the tree the new index holds when it is known but not to be noted yet (it goes into git's tree
    /// cache).
    func writeIndex(
        _ index: NotedIndex, changes entries: [(path: String, id: ObjectID?, info: stat?)], noting tree: ObjectID?,
        holding: ObjectID? = nil
    ) throws -> Bool {
        let file = index.file
        let root = workdir!
        let trustsMode = trustsFileMode
        var changes = entries.map { change in
            IndexFile.Change(
                path: Array(change.path.utf8), id: change.id, info: change.info,
                mode: change.info.map {
                    Self.recordedMode($0, old: file.entry(at: change.path).map(file.mode), trustingMode: trustsMode)
                } ?? 0)
        }
        changes.sort { a, b in a.path.withUnsafeBytes { x in b.path.withUnsafeBytes { IndexFile.compare(x, $0) < 0 } } }
        changes = changes.enumerated().filter {
            $0.offset == changes.count - 1 || changes[$0.offset + 1].path != $0.element.path
        }.map(\.element)
        // The working tree is opened only for a racy entry's file; one that cannot be read is marked to be read again.
        var rootFD: Int32 = -1
        defer { if rootFD >= 0 { close(rootFD) } }
        let bytes = file.updated(changes, making: tree ?? holding) { entry in
            if rootFD < 0 { rootFD = Glibc.open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
            return rootFD >= 0 && Self.holdsBlob(file, entry, in: rootFD)
        }
        guard let bytes, try placeIndex(bytes, replacing: file.checksum) else { return false }
        if monitorsChanges {
            carryMonitorNote(from: index.file.checksum, to: caches.writtenIndex!, changing: entries.map(\.path))
        }
        if let tree { note(checksum: ObjectID(bytes: Array(bytes.bytes.suffix(20))), tree: tree) }
        return true
    }

    /// Whether the working-tree file of `entry` (a link's target, for a link) hashes to its blob, its bytes as they
    /// are; false for a file over 64 MiB, which is not read (its entry is only marked to be read again).
    static func holdsBlob(_ file: IndexFile, _ entry: IndexFile.Entry, in rootFD: Int32) -> Bool {
        let path = String(cString: file.path(entry))
        if file.mode(entry) == IndexFile.linkMode {
            var id = git_oid()
            return hashLink(path, in: rootFD, into: &id) && ObjectID(id) == file.id(entry)
        }
        guard case let .read(data, _) = readPlainFile(path, in: rootFD, limit: 1 << 26) else { return false }
        return (try? blobID(of: data)) == file.id(entry)
    }

    /// Writes `bytes` as the index under git's lock, as git would, while the
    /// index on disk is still the one whose checksum is `expected` (nil: while
    /// there is none); false, with nothing written, when the lock is taken or the index changed.
    func placeIndex(_ bytes: IndexBytes, replacing expected: [UInt8]?) throws -> Bool {
        let path = gitdir + "index"
        let lock = gitdir + "index.lock"
        let fd = Glibc.open(lock, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return false }
        var placed = false
        defer { if !placed { unlink(lock) } }
        do {
            try writeAll(fd, bytes.bytes, path: lock)
            close(fd)
        } catch {
            close(fd)
            throw error
        }
        guard Self.checksum(ofIndexAt: path) == expected else { return false }
        try systemCall("rename", path: path) { rename(lock, path) }
        placed = true
        caches.lastIndexRead = nil
        caches.writtenIndex = Array(bytes.bytes.suffix(20))
        return true
    }

    /// The last 20 bytes of the index file (its checksum), read without following a link.
    static func checksum(ofIndexAt path: String) -> [UInt8]? {
        let fd = Glibc.open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size >= 32 else { return nil }
        var tail = [UInt8](repeating: 0, count: 20)
        guard tail.withUnsafeMutableBytes({ pread(fd, $0.baseAddress, 20, info.st_size - 20) }) == 20 else {
            return nil
        }
        return tail
    }
}
