import DocketSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The git index file as Docket wrote it, read without libgit2, for a status
/// that only compares the working tree with it.
///
/// NB: libgit2 builds a hash table of every entry, copies every path and checks
/// each one's characters when it reads an index (SHA-1DC over the whole file
/// besides): about 120 of the 346 ms `docket status` took at 100,000 items. Only an
/// index in version 2 or 3 whose checksum is the one Docket noted (so Docket
/// wrote it) and whose bytes hash to that checksum is read here; anything else
/// is left to libgit2, which reads every version and names every fault.
final class IndexFile: @unchecked Sendable {
    /// One entry: where it starts in the file, and where its path starts and how long it is.
    struct Entry {
        let offset: Int
        let path: Int
        let pathLength: Int
    }

    /// The largest index read here (about 10,000,000 items); a larger one is left to libgit2.
    static let limit = 1 << 30

    private let bytes: UnsafeMutableRawBufferPointer
    /// The file's stat data when it was read.
    private let info: stat
    /// Whether a file or entry modified in `second` is racily clean against this index: git compares stat data in
    /// whole seconds (Debian's git is built without nanoseconds), so a change made in the second this index was
    /// written, or later, can leave them equal.
    func isRacy(modifiedIn second: Int64) -> Bool { second >= Int64(info.st_mtim.tv_sec) }
    /// The entries, in the file's order (sorted by path).
    private(set) var entries: [Entry] = []
    /// The index format version (2 or 3).
    private(set) var version: UInt32 = 2
    /// Where the entries end and the extensions (if any) begin.
    private var entriesEnd = 12
    /// Where the checksum begins.
    private var checksumStart = 12

    private init(bytes: UnsafeMutableRawBufferPointer, info: stat) {
        self.bytes = bytes
        self.info = info
    }

    deinit { bytes.deallocate() }

    /// The index at `path` when its checksum is `checksum` and it is whole; nil for any other file
    /// (another checksum or version, a link, a cut-short or changed file, a conflict entry, a path git would refuse).
    static func read(_ path: String, checksum: ObjectID) -> IndexFile? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size >= 32, info.st_size <= limit else {
            return nil
        }
        let size = Int(info.st_size)
        let file = IndexFile(bytes: allocateLargeBuffer(byteCount: size), info: info)
        guard (try? readExactly(fd, into: file.bytes, path: path)) == true else { return nil }
        // The trailer first (cheap), then the whole file against it.
        let trailer = UnsafeRawBufferPointer(rebasing: file.bytes[(size - 20)...])
        guard trailer.elementsEqual(checksum.bytes),
            trailer.elementsEqual(Repository.sha1(UnsafeRawBufferPointer(rebasing: file.bytes[..<(size - 20)])))
        else { return nil }
        return file.parse(end: size - 20) ? file : nil
    }

    /// An index with no entries, in version 2 (as libgit2 writes a new one), to add a first checkout's entries to.
    static func empty() -> IndexFile {
        let file = IndexFile(bytes: allocateLargeBuffer(byteCount: 32), info: stat())
        let header: [UInt8] = Array("DIRC".utf8) + [0, 0, 0, 2, 0, 0, 0, 0]
        file.bytes.copyBytes(from: header + header.withUnsafeBytes { Repository.sha1($0) })
        _ = file.parse(end: 12)
        return file
    }

    private func number(_ offset: Int) -> UInt32 {
        UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    /// Reads the header and every entry; false for anything not as libgit2 writes it.
    private func parse(end: Int) -> Bool {
        guard bytes.starts(with: "DIRC".utf8) else { return false }
        version = number(4)
        checksumStart = end
        let count = Int(number(8))
        guard version == 2 || version == 3, count <= (end - 12) / 64 else { return false }
        entries.reserveCapacity(count)
        var offset = 12
        for _ in 0..<count {
            guard offset + 64 <= end else { return false }
            let flags = Int(UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: offset + 60, as: UInt16.self)))
            // A conflict (a stage other than 0) is for libgit2 to report.
            guard flags & 0x3000 == 0 else { return false }
            let extended = flags & 0x4000 != 0
            // As git: extended flags only in version 3, and only those git knows.
            guard
                !extended
                    || version == 3 && offset + 64 <= end
                        && UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: offset + 62, as: UInt16.self))
                            & ~(Self.skipWorktree | Self.intentToAdd) == 0
            else { return false }
            let path = offset + (extended ? 64 : 62)
            guard let nul = memchr(bytes.baseAddress! + path, 0, end - path) else { return false }
            let length = UnsafeRawPointer(nul) - UnsafeRawPointer(bytes.baseAddress! + path)
            guard flags & 0xFFF == 0xFFF ? length >= 0xFFF : length == flags & 0xFFF, length > 0 else { return false }
            let size = ((path - offset) + length + 8) & ~7
            guard offset + size <= end else { return false }
            entries.append(Entry(offset: offset, path: path, pathLength: length))
            offset += size
        }
        entriesEnd = offset
        return true
    }

    /// The entry's path, NUL-terminated, valid while the file is.
    func path(_ entry: Entry) -> UnsafePointer<CChar> {
        UnsafeRawPointer(bytes.baseAddress! + entry.path).assumingMemoryBound(to: CChar.self)
    }

    /// The entry's path's bytes.
    func pathBytes(_ entry: Entry) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes[entry.path..<(entry.path + entry.pathLength)])
    }

    /// The entry's object id.
    func id(_ entry: Entry) -> ObjectID {
        ObjectID(raw: UnsafeRawBufferPointer(rebasing: bytes[(entry.offset + 40)..<(entry.offset + 60)]))
    }

    /// Whether the file `info` describes has the stat data the entry holds (as `git status` compares them; the
    /// executable bit only when `trustingMode`, as `core.filemode` says).
    func matches(_ entry: Entry, _ info: stat, trustingMode: Bool = true) -> Bool {
        let o = entry.offset
        let mode = number(o + 24)
        let sameKind =
            mode == Self.linkMode
            ? info.st_mode & S_IFMT == S_IFLNK
            : info.st_mode & S_IFMT == S_IFREG && (!trustingMode || (info.st_mode & 0o100 != 0) == (mode == 0o100755))
        return sameKind
            && number(o) == UInt32(truncatingIfNeeded: info.st_ctim.tv_sec)
            && number(o + 4) == UInt32(truncatingIfNeeded: info.st_ctim.tv_nsec)
            && number(o + 8) == UInt32(truncatingIfNeeded: info.st_mtim.tv_sec)
            && number(o + 12) == UInt32(truncatingIfNeeded: info.st_mtim.tv_nsec)
            && number(o + 20) == UInt32(truncatingIfNeeded: info.st_ino)
            && number(o + 36) == UInt32(truncatingIfNeeded: info.st_size)
    }

    /// The entry of `path` (stage 0), found by its place in git's order; nil when the index has none.
    func entry(at path: String) -> Entry? {
        var path = path
        return path.withUTF8 { wanted in
            let wanted = UnsafeRawBufferPointer(wanted)
            var low = 0
            var high = entries.count
            while low < high {
                let middle = (low + high) / 2
                let order = Self.compare(pathBytes(entries[middle]), wanted)
                if order == 0 { return entries[middle] }
                if order < 0 { low = middle + 1 } else { high = middle }
            }
            return nil
        }
    }

    /// The entry's flags: its assume-unchanged bit (`assumeUnchanged`), stage and path length.
    private func flags(_ entry: Entry) -> UInt16 {
        UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: entry.offset + 60, as: UInt16.self))
    }

    /// The entry's extended flags (index version 3): `skipWorktree`, `intentToAdd`; 0 when it has none.
    private func extendedFlags(_ entry: Entry) -> UInt16 {
        flags(entry) & 0x4000 == 0
            ? 0 : UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: entry.offset + 62, as: UInt16.self))
    }

    /// git's `update-index --assume-unchanged` bit (`CE_VALID`).
    static let assumeUnchanged: UInt16 = 0x8000
    /// git's skip-worktree bit, set by a sparse checkout and `update-index --skip-worktree`.
    static let skipWorktree: UInt16 = 0x4000
    /// git's intent-to-add bit (`git add -N`): the entry names a file to add, with the empty blob.
    static let intentToAdd: UInt16 = 0x2000

    /// Whether git is told not to look at the entry's file (assume-unchanged or skip-worktree): as git does, a scan
    /// takes it as unchanged, whether it changed or is gone (a sparse checkout leaves such files out).
    func isNotLookedAt(_ entry: Entry) -> Bool {
        flags(entry) & Self.assumeUnchanged != 0 || extendedFlags(entry) & Self.skipWorktree != 0
    }

    /// Whether the entry is marked skip-worktree (and not assume-unchanged).
    func onlySkipsWorktree(_ entry: Entry) -> Bool {
        flags(entry) & Self.assumeUnchanged == 0 && extendedFlags(entry) & Self.skipWorktree != 0
    }

    /// Whether the entry only says its file is to be added (`git add -N`).
    func isIntentToAdd(_ entry: Entry) -> Bool { extendedFlags(entry) & Self.intentToAdd != 0 }

    /// The entry's mode as git writes it: 0o100644 or 0o100755 for a file, `linkMode`, 0o160000 for a submodule.
    func mode(_ entry: Entry) -> UInt32 { number(entry.offset + 24) }

    /// The mode of a symbolic link's entry.
    static let linkMode: UInt32 = 0o120000

    /// The bytes an entry takes: its fixed part, its path and one to eight NULs.
    private func size(_ entry: Entry) -> Int { ((entry.path - entry.offset) + entry.pathLength + 8) & ~7 }

    /// One path to set in the index: the stat data of its file as written, its blob and the mode to record, or nothing
    /// to remove it.
    struct Change {
        let path: [UInt8]
        let id: ObjectID?
        let info: stat?
        var mode: UInt32 = 0o100644
    }

    /// This index with `changes` (sorted by path, each path once) made, as
    /// git would write it: a changed entry takes its file's stat data and blob,
    /// the other entries are kept, and a racy one (`isRacy`) whose file no
    /// longer `holdsBlob` is marked to be read again (its size set to 0), as
    /// git does. When the new entries are known to make `tree`, the
    /// tree cache is written for it (`CacheTree`), with what the old one knew
    /// of folders no change is in; otherwise it is left out (git builds it again).
    /// Nil when the index holds an extension other than the tree cache.
    func updated(_ changes: [Change], making tree: ObjectID? = nil, holdsBlob: (Entry) -> Bool) -> IndexBytes? {
        var offset = entriesEnd
        var oldTree: UnsafeRawBufferPointer?
        while offset + 8 <= checksumStart {
            let signature = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + 4)])
            guard signature.elementsEqual("TREE".utf8) else { return nil }
            let length = Int(number(offset + 4))
            guard offset + 8 + length <= checksumStart else { return nil }
            oldTree = UnsafeRawBufferPointer(rebasing: bytes[(offset + 8)..<(offset + 8 + length)])
            offset += 8 + length
        }
        guard offset == checksumStart else { return nil }
        // At most every entry kept and every change added (a path of at most 4,095 bytes takes at most 4,164), and the
        // checksum.
        let out = IndexBytes(capacity: entriesEnd + changes.reduce(0) { $0 + 70 + $1.path.count } + 20)
        out.append("DIRC".utf8)
        out.append(version)
        out.append(UInt32(0))
        var count: UInt32 = 0
        // Unchanged entries are copied a run at a time; racy ones whose file changed are marked in the copy.
        // NB: a file edited in place in its entry's second matches the entry for git once the index is newer than that
        // second.
        var run = entries.first?.offset ?? entriesEnd
        var smudged: [Int] = []
        // Where each new entry lies in `out`, for the tree cache; whether one has flags git's trees may leave out.
        var written: [Entry] = []
        var extended = false
        if tree != nil { written.reserveCapacity(entries.count + changes.count) }
        func keep(_ entry: Entry) {
            let at = out.count + (entry.offset - run)
            if !isNotLookedAt(entry) && isRacy(modifiedIn: Int64(number(entry.offset + 8))) && !holdsBlob(entry) {
                smudged.append(at + 36)
            }
            if tree != nil {
                written.append(Entry(offset: at, path: at + (entry.path - entry.offset), pathLength: entry.pathLength))
                extended =
                    extended
                    || UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: entry.offset + 60, as: UInt16.self))
                        & 0x4000 != 0
            }
            count += 1
        }
        func flush(to end: Int) {
            if end > run { out.append(UnsafeRawBufferPointer(rebasing: bytes[run..<end])) }
        }
        func add(_ change: Change) {
            guard let id = change.id, let info = change.info else { return }
            for value in [info.st_ctim.tv_sec, info.st_ctim.tv_nsec, info.st_mtim.tv_sec, info.st_mtim.tv_nsec] {
                out.append(UInt32(truncatingIfNeeded: value))
            }
            out.append(UInt32(truncatingIfNeeded: info.st_dev))
            out.append(UInt32(truncatingIfNeeded: info.st_ino))
            out.append(change.mode)
            out.append(UInt32(info.st_uid))
            out.append(UInt32(info.st_gid))
            out.append(UInt32(truncatingIfNeeded: info.st_size))
            if tree != nil {
                written.append(Entry(offset: out.count - 40, path: out.count + 22, pathLength: change.path.count))
            }
            id.withBytes { out.append($0) }
            withUnsafeBytes(of: UInt16(min(change.path.count, 0xFFF)).bigEndian) { out.append($0) }
            out.append(change.path)
            out.append(repeatElement(0, count: 8 - (62 + change.path.count) % 8))
            count += 1
        }
        var i = 0
        var j = 0
        while i < entries.count || j < changes.count {
            let order =
                j == changes.count
                ? -1
                : i == entries.count
                    ? 1
                    : changes[j].path.withUnsafeBytes { Self.compare(pathBytes(entries[i]), $0) }
            if order < 0 {
                keep(entries[i])
                i += 1
                continue
            }
            let next = i < entries.count ? entries[i].offset : entriesEnd
            flush(to: next)
            add(changes[j])
            if order == 0 { i += 1 }
            j += 1
            run = i < entries.count ? entries[i].offset : entriesEnd
        }
        flush(to: entriesEnd)
        out.store(count, at: 8)
        for offset in smudged { out.store(UInt32(0), at: offset) }
        if let tree, !extended {
            let old = oldTree.flatMap(CacheTree.read)
            let entries = WrittenEntries(bytes: out.bytes, entries: written)
            if let cache = CacheTree.build(entries, making: tree, old: old, changed: changes.map(\.path)) {
                var body: [UInt8] = []
                cache.write(into: &body)
                out.reserve(8 + body.count + 20)
                out.append("TREE".utf8)
                out.append(UInt32(body.count))
                body.withUnsafeBytes { out.append($0) }
            }
        }
        out.append(Repository.sha1(out.bytes))
        return out
    }

    /// The entries of an index being written, for its tree cache.
    private struct WrittenEntries: CacheTreeEntries {
        let bytes: UnsafeRawBufferPointer
        let entries: [Entry]
        var count: Int { entries.count }
        func path(_ i: Int) -> UnsafeRawBufferPointer {
            UnsafeRawBufferPointer(rebasing: bytes[entries[i].path..<(entries[i].path + entries[i].pathLength)])
        }
        func mode(_ i: Int) -> UInt32 {
            UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: entries[i].offset + 24, as: UInt32.self))
        }
        func id(_ i: Int) -> UnsafeRawBufferPointer {
            UnsafeRawBufferPointer(rebasing: bytes[(entries[i].offset + 40)..<(entries[i].offset + 60)])
        }
    }

    /// Paths in git's order: byte by byte, a path before any longer one it begins.
    static func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let common = min(a.count, b.count)
        if common > 0 {
            let order = memcmp(a.baseAddress!, b.baseAddress!, common)
            if order != 0 { return Int(order) }
        }
        return a.count - b.count
    }

    /// Whether `now` (a file's stat data) describes the file this was read from, unchanged since:
    /// the same inode, size, and change and modification times.
    func isFile(_ now: stat) -> Bool {
        now.st_mode & S_IFMT == S_IFREG && now.st_dev == info.st_dev && now.st_ino == info.st_ino
            && now.st_size == info.st_size
            && now.st_mtim.tv_sec == info.st_mtim.tv_sec && now.st_mtim.tv_nsec == info.st_mtim.tv_nsec
            && now.st_ctim.tv_sec == info.st_ctim.tv_sec && now.st_ctim.tv_nsec == info.st_ctim.tv_nsec
    }

    /// The checksum this index ends with.
    var checksum: [UInt8] { Array(bytes[checksumStart..<(checksumStart + 20)]) }
}

/// The bytes of an index being written, in one buffer of a size known up front
/// (`allocateLargeBuffer`: at 100,000 items, 12 MB; a growing array of small pages took 8 ms to fill, this 3).
final class IndexBytes {
    private var buffer: UnsafeMutableRawBufferPointer
    /// How many bytes are written.
    private(set) var count = 0

    init(capacity: Int) { buffer = allocateLargeBuffer(byteCount: capacity) }
    deinit { buffer.deallocate() }

    /// The bytes written so far.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: buffer[..<count]) }

    /// Makes room for `extra` more bytes (what could not be reckoned up front: the tree cache).
    func reserve(_ extra: Int) {
        guard count + extra > buffer.count else { return }
        let larger = allocateLargeBuffer(byteCount: count + extra)
        if count > 0 { larger.baseAddress!.copyMemory(from: buffer.baseAddress!, byteCount: count) }
        buffer.deallocate()
        buffer = larger
    }

    func append(_ raw: UnsafeRawBufferPointer) {
        precondition(count + raw.count <= buffer.count, "an index's size was reckoned short")
        guard let base = raw.baseAddress, raw.count > 0 else { return }
        (buffer.baseAddress! + count).copyMemory(from: base, byteCount: raw.count)
        count += raw.count
    }

    func append<S: Sequence>(_ values: S) where S.Element == UInt8 {
        for value in values { append(value) }
    }

    func append(_ value: UInt8) {
        precondition(count < buffer.count, "an index's size was reckoned short")
        buffer[count] = value
        count += 1
    }

    /// A number, big-endian, as the index holds them.
    func append(_ value: UInt32) { withUnsafeBytes(of: value.bigEndian) { append($0) } }

    /// A number, big-endian, over the four bytes at `offset`.
    func store(_ value: UInt32, at offset: Int) {
        buffer.storeBytes(of: value.bigEndian, toByteOffset: offset, as: UInt32.self)
    }
}

/// Why git's index is one Docket (and libgit2 1.5) cannot read.
public enum UnreadableIndex: Equatable, Sendable {
    /// A split index (`core.splitIndex`, `git update-index --split-index`): its `link` extension.
    case split
    /// A sparse index (`index.sparse`): its `sdir` extension.
    case sparse
    /// Another extension git marks as needed to read the index, or a version after 4.
    case unknown(String)
}

extension Repository {
    /// Why the index in `gitdir` cannot be read by libgit2 1.5, if it cannot (`IndexFile.unreadableReason`).
    public static func unreadableIndexReason(gitdir: String) -> UnreadableIndex? {
        IndexFile.unreadableReason(atPath: gitdir + "index")
    }
}

extension IndexFile {
    /// Why the index at `path` cannot be read by libgit2 1.5, if it cannot:
    /// an extension it must understand (lowercase signature) and does not, or
    /// a version other than 2, 3 or 4. Nil for a readable index, a missing
    /// one, and one cut short (which libgit2 itself names as damaged).
    ///
    /// NB: libgit2 only says "unsupported mandatory extension"; the entries are
    /// walked here (in version 4 each path is stored as the previous one's
    /// prefix and a suffix) to find the extensions, whose signatures name the setting.
    static func unreadableReason(atPath path: String) -> UnreadableIndex? {
        guard let data = try? Folder.readFile(path, limit: limit), data.count >= 32 else { return nil }
        return data.withUnsafeBytes { bytes -> UnreadableIndex? in
            func number(_ at: Int) -> Int {
                Int(UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self)))
            }
            guard bytes.starts(with: "DIRC".utf8) else { return nil }
            let version = number(4)
            let count = number(8)
            let end = bytes.count - 20
            guard (2...4).contains(version) else { return .unknown("version \(version)") }
            var offset = 12
            for _ in 0..<count {
                guard offset + 62 <= end else { return nil }
                let flags = Int(UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: offset + 60, as: UInt16.self)))
                var at = offset + (flags & 0x4000 != 0 ? 64 : 62)
                if version == 4 {
                    // The number of bytes to drop from the previous path, as a variable-length number.
                    while at < end && bytes[at] & 0x80 != 0 { at += 1 }
                    at += 1
                }
                guard at < end, let nul = memchr(bytes.baseAddress! + at, 0, end - at) else { return nil }
                let pathEnd = UnsafeRawPointer(nul) - bytes.baseAddress!
                offset = version == 4 ? pathEnd + 1 : offset + ((pathEnd - offset + 8) & ~7)
            }
            while offset + 8 <= end {
                let signature = String(
                    decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + 4)]), as: UTF8.self)
                switch signature {
                case "link": return .split
                case "sdir": return .sparse
                // As git reads them: a signature not starting with a capital letter must be understood.
                case _ where !(UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(bytes[offset]):
                    return .unknown("extension '\(signature)'")
                default: offset += 8 + number(offset + 4)
                }
            }
            return nil
        }
    }
}
