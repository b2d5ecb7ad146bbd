import DocketCGit2
import DocketCPackFile
import DocketSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A pack file and its index written into a repository's `objects/pack/`
/// folder, one entry at a time; the repository sees neither until both are
/// whole (the pack is renamed into place first, then its index, as git does).
///
/// NB: git's pack and index version 2 formats, without deltas: what `git gc`
/// would make of the objects, minus deltas.
struct PackFileWriter {
    private let folder: String
    private let temporary: String
    private var file: Int32
    private var buffer: [UInt8] = Array("PACK".utf8) + [0, 0, 0, 2, 0, 0, 0, 0]
    private var position = 0
    private var ids: [git_oid] = [], crcs: [UInt32] = [], offsets: [Int] = []
    /// The ids written, so that each object is in the pack once: git reads a pack whose header counts an entry
    /// its index leaves out as damaged.
    private var written = Set<ObjectID>()

    /// Starts a pack in `folder` (a repository's `objects/pack/`), first
    /// removing the unfinished pack files of a docket that was killed there.
    init(folder: String) throws {
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        TemporaryFiles.removeStale(in: folder, prefix: Self.temporaryPrefix, namingWriter: true)
        self.folder = folder
        (file, temporary) = try TemporaryFiles.create(in: folder, prefix: Self.temporaryPrefix, suffix: ".pack")
        buffer.reserveCapacity(1 << 20)
    }

    /// How many objects the pack holds so far.
    var count: Int { ids.count }

    /// Adds an object's entry (from `entry(type:_:)`) under its id, unless the pack holds that id already.
    mutating func append(id: git_oid, entry: [UInt8]) throws {
        guard written.insert(ObjectID(id)).inserted else { return }
        ids.append(id)
        offsets.append(position + buffer.count)
        crcs.append(entry.withUnsafeBytes { docket_crc32(0, $0.baseAddress, $0.count) })
        buffer.append(contentsOf: entry)
        if buffer.count >= 1 << 20 { try flush() }
    }

    /// Ends the pack (its count, then the SHA-1 of it all), renames it into
    /// place and writes its index; a pack of no objects is removed instead.
    mutating func finish() throws {
        try flush()
        defer {
            close(file)
            file = -1
        }
        guard !ids.isEmpty else {
            unlink(temporary)
            TemporaryFiles.release(temporary)
            return
        }
        var count = UInt32(ids.count).bigEndian
        try systemCall("pwrite", path: temporary) { pwrite(file, &count, 4, 8) }
        let packSum = try Self.sha1(ofFile: file, length: position, path: temporary)
        try packSum.withUnsafeBytes { try writeAll(file, $0, path: temporary) }
        let name = folder + "pack-" + Hex.encode(packSum)
        try systemCall("rename", path: name + ".pack") { Glibc.rename(temporary, name + ".pack") }
        TemporaryFiles.release(temporary)
        try writeIndex(name + ".idx", packSum: packSum)
    }

    /// Removes an unfinished pack (after a failure).
    mutating func abandon() {
        if file >= 0 { close(file) }
        file = -1
        unlink(temporary)
        TemporaryFiles.release(temporary)
    }

    /// An object's entry: the type and size header (4 bits of size, then 7 per
    /// byte), then its bytes deflated; nil when deflating fails.
    static func entry(type: git_object_t, _ data: UnsafeRawBufferPointer) -> [UInt8]? {
        let size = data.count
        var entry: [UInt8] = []
        entry.reserveCapacity(docket_deflate_bound(size) + 10)
        var rest = size >> 4
        entry.append(UInt8(type.rawValue) << 4 | UInt8(size & 0x0f) | (rest > 0 ? 0x80 : 0))
        while rest > 0 {
            let byte = UInt8(rest & 0x7f)
            rest >>= 7
            entry.append(byte | (rest > 0 ? 0x80 : 0))
        }
        let header = entry.count
        entry.append(contentsOf: repeatElement(0, count: docket_deflate_bound(size)))
        let written = entry.withUnsafeMutableBytes {
            docket_deflate(data.baseAddress, size, $0.baseAddress! + header, $0.count - header)
        }
        guard written > 0 else { return nil }
        return Array(entry[..<(header + written)])
    }

    private mutating func flush() throws {
        try buffer.withUnsafeBytes { try writeAll(file, $0, path: temporary) }
        position += buffer.count
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes the index (version 2): the ids in order with a fan-out table by
    /// first byte, their CRC-32s, their offsets (large ones in a table of their
    /// own), the pack's sum, and the index's own sum; under a temporary name,
    /// renamed into place when whole.
    private func writeIndex(_ path: String, packSum: [UInt8]) throws {
        var order = Array(0..<ids.count)
        order.sort { a, b in
            withUnsafeBytes(of: ids[a]) { x in
                withUnsafeBytes(of: ids[b]) { y in memcmp(x.baseAddress!, y.baseAddress!, 20) < 0 }
            }
        }
        let unique = order
        var index: [UInt8] = [0xff, 0x74, 0x4f, 0x63]
        index.reserveCapacity(8 + 256 * 4 + unique.count * 28 + 40)
        index.appendBigEndian(UInt32(2))
        var fanout = [UInt32](repeating: 0, count: 256)
        for i in unique { fanout[Int(withUnsafeBytes(of: ids[i]) { $0[0] })] += 1 }
        var total: UInt32 = 0
        for byte in 0..<256 {
            total += fanout[byte]
            index.appendBigEndian(total)
        }
        for i in unique { withUnsafeBytes(of: ids[i]) { index.append(contentsOf: $0.prefix(20)) } }
        for i in unique { index.appendBigEndian(crcs[i]) }
        var large: [UInt64] = []
        for i in unique {
            if offsets[i] < 0x8000_0000 {
                index.appendBigEndian(UInt32(offsets[i]))
            } else {
                index.appendBigEndian(UInt32(0x8000_0000) | UInt32(large.count))
                large.append(UInt64(offsets[i]))
            }
        }
        for offset in large { index.appendBigEndian(offset) }
        index.append(contentsOf: packSum)
        index.append(contentsOf: index.withUnsafeBytes { Repository.sha1($0) })

        let (file, temporary) = try TemporaryFiles.create(in: folder, prefix: Self.temporaryPrefix, suffix: ".idx")
        defer { TemporaryFiles.release(temporary) }
        do {
            defer { close(file) }
            try index.withUnsafeBytes { try writeAll(file, $0, path: temporary) }
            try systemCall("rename", path: path) { Glibc.rename(temporary, path) }
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// The start of the names of Docket's unfinished pack files (`tmp_docket_<pid>_<random>.pack`).
    static let temporaryPrefix = "tmp_docket_"

    /// The SHA-1 of the first `length` bytes of an open file.
    private static func sha1(ofFile fd: Int32, length: Int, path: String) throws -> [UInt8] {
        let sum = docket_sha1_new()!
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var offset = 0
        var failure: Error?
        while offset < length && failure == nil {
            let n = chunk.withUnsafeMutableBytes {
                pread(fd, $0.baseAddress, min($0.count, length - offset), off_t(offset))
            }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 {
                failure = SystemError("read", path: path, code: n < 0 ? errno : EIO)
                break
            }
            chunk.withUnsafeBytes { docket_sha1_update(sum, $0.baseAddress, n) }
            offset += n
        }
        var digest = [UInt8](repeating: 0, count: 20)
        docket_sha1_finish(sum, &digest)
        if let failure { throw failure }
        return digest
    }
}
