import CGit2
import CPackFile
import DocketSystem
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A working-tree file read for a pack: its blob's id, the stat data it was
/// read with, and its entry in the pack (header and deflated bytes).
struct PackedFile: @unchecked Sendable {
    let id: git_oid
    let info: stat
    let entry: [UInt8]
}

/// A blob written to a pack from a working-tree file, with the stat data it was read with.
struct WrittenBlob {
    let id: git_oid
    let info: stat
}

extension Repository {
    /// How many new blobs make a commit write them as one pack rather than
    /// one loose file each (git's `transfer.unpackLimit` is 100).
    static let packLimit = 100

    /// Reads these working-tree files (on all cores) and writes their blobs
    /// as one new pack with its index, made visible to the repository only
    /// once both are whole; returns each file read, by path. A path that is
    /// not a plain file, or that git's attributes filter, is left out for the
    /// caller to add as git would.
    ///
    /// NB: libgit2 writes each new object as a loose file (a folder entry, a
    /// temporary file and a rename): most of a first commit's time, and a
    /// folder of 100,000 files every later command has to look through. A
    /// pack without deltas is simple to write (git's pack and index version 2
    /// formats) and is what `git gc` would make of them anyway, minus deltas.
    func writeBlobsAsPack(_ paths: [String]) throws -> [WrittenBlob?] {
        let filtered = try mayFilter(paths)
        let root = workdir!
        let rootFD = try systemCall("open", path: root) { Glibc.open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        defer { close(rootFD) }
        let folder = commonDir + "objects/pack/"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        Self.removeAbandonedPackFiles(in: folder)

        // The pack: "PACK", version 2, the count, the entries, and the SHA-1
        // of all that. Files are read a slice at a time, so memory holds one
        // slice's entries however many there are; the count is filled in last.
        let temporary = folder + Self.temporaryPrefix + "\(getpid()).pack"
        let pack = try Self.createReadOnly(temporary)
        var written: [WrittenBlob?] = Array(repeating: nil, count: paths.count)
        var ids: [git_oid] = [], crcs: [UInt32] = [], offsets: [Int] = []
        var packSum = [UInt8](repeating: 0, count: 20)
        do {
            defer { close(pack) }
            var buffer: [UInt8] = Array("PACK".utf8) + [0, 0, 0, 2, 0, 0, 0, 0]
            buffer.reserveCapacity(1 << 20)
            var position = 0
            func flush() throws {
                try buffer.withUnsafeBytes { try writeAll(pack, $0, path: temporary) }
                position += buffer.count
                buffer.removeAll(keepingCapacity: true)
            }
            for slice in stride(from: 0, to: paths.count, by: 8_192) {
                let range = slice..<min(paths.count, slice + 8_192)
                // libgit2's attribute lookups are not for several threads at once.
                let plain = try range.map { try !filtered || !isFiltered(paths[$0]) }
                let read = Parallel.map(range.count) { i in plain[i] ? Self.readForPack(paths[range.lowerBound + i], in: rootFD) : nil }
                for (i, file) in zip(range, read) {
                    guard let file else { continue }
                    ids.append(file.id)
                    offsets.append(position + buffer.count)
                    crcs.append(file.entry.withUnsafeBytes { docket_crc32(0, $0.baseAddress, $0.count) })
                    buffer.append(contentsOf: file.entry)
                    written[i] = WrittenBlob(id: file.id, info: file.info)
                    if buffer.count >= 1 << 20 { try flush() }
                }
            }
            try flush()
            guard !ids.isEmpty else {
                unlink(temporary)
                return written
            }
            var count = UInt32(ids.count).bigEndian
            try systemCall("pwrite", path: temporary) { pwrite(pack, &count, 4, 8) }
            packSum = try Self.sha1(ofFile: pack, length: position, path: temporary)
            try packSum.withUnsafeBytes { try writeAll(pack, $0, path: temporary) }
        } catch {
            unlink(temporary)
            throw error
        }
        let name = folder + "pack-" + packSum.map { String(format: "%02x", $0) }.joined()
        try systemCall("rename", path: name + ".pack") { Glibc.rename(temporary, name + ".pack") }
        try writeIndex(name + ".idx", ids: ids, crcs: crcs, offsets: offsets, packSum: packSum)

        var odb: OpaquePointer?
        try check(git_repository_odb(&odb, pointer), "git_repository_odb")
        defer { git_odb_free(odb) }
        try check(git_odb_refresh(odb), "git_odb_refresh")
        return written
    }

    /// The start of the names of Docket's unfinished pack files.
    private static let temporaryPrefix = "tmp_docket_"

    /// Removes the unfinished pack files of a docket that was killed while
    /// writing them (its process is gone); nothing named them yet.
    private static func removeAbandonedPackFiles(in folder: String) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasPrefix(temporaryPrefix) {
            let pid = name.dropFirst(temporaryPrefix.count).prefix { $0.isNumber }
            if let pid = Int32(pid), !Spawn.isAlive(pid) { unlink(folder + name) }
        }
    }

    /// The SHA-1 of the first `length` bytes of an open file.
    private static func sha1(ofFile fd: Int32, length: Int, path: String) throws -> [UInt8] {
        let sum = docket_sha1_new()!
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var offset = 0
        var failure: Error?
        while offset < length && failure == nil {
            let n = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, min($0.count, length - offset), off_t(offset)) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { failure = SystemError("read", path: path, code: n < 0 ? errno : EIO); break }
            chunk.withUnsafeBytes { docket_sha1_update(sum, $0.baseAddress, n) }
            offset += n
        }
        var digest = [UInt8](repeating: 0, count: 20)
        docket_sha1_finish(sum, &digest)
        if let failure { throw failure }
        return digest
    }

    /// Writes the index (version 2) of a pack: the ids in order with a
    /// fan-out table by first byte, their CRC-32s, their offsets (large ones
    /// in a table of their own), the pack's sum, and the index's own sum;
    /// under a temporary name, renamed into place when whole.
    private func writeIndex(_ path: String, ids: [git_oid], crcs: [UInt32], offsets: [Int], packSum: [UInt8]) throws {
        var order = Array(0..<ids.count)
        order.sort { a, b in withUnsafeBytes(of: ids[a]) { x in withUnsafeBytes(of: ids[b]) { y in memcmp(x.baseAddress!, y.baseAddress!, 20) < 0 } } }
        var unique: [Int] = []
        unique.reserveCapacity(order.count)
        for i in order where unique.last.map({ !Self.same(ids[$0], ids[i]) }) ?? true { unique.append(i) }
        var index: [UInt8] = [0xff, 0x74, 0x4f, 0x63]
        index.reserveCapacity(8 + 256 * 4 + unique.count * 28 + 40)
        index.appendBigEndian(UInt32(2))
        var fanout = [UInt32](repeating: 0, count: 256)
        for i in unique { fanout[Int(withUnsafeBytes(of: ids[i]) { $0[0] })] += 1 }
        var total: UInt32 = 0
        for byte in 0..<256 { total += fanout[byte]; index.appendBigEndian(total) }
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
        index.append(contentsOf: Self.sha1(index))

        let temporary = (path as NSString).deletingLastPathComponent + "/" + Self.temporaryPrefix + "\(getpid()).idx"
        let file = try Self.createReadOnly(temporary)
        do {
            defer { close(file) }
            try index.withUnsafeBytes { try writeAll(file, $0, path: temporary) }
        } catch {
            unlink(temporary)
            throw error
        }
        try systemCall("rename", path: path) { Glibc.rename(temporary, path) }
    }

    /// Whether any of git's filters could apply to these paths: libgit2 has
    /// only the line-ending filter (`core.autocrlf`, or the `text`, `eol` and
    /// `crlf` attributes) and `ident`, so when neither the configuration nor
    /// any attributes file that could reach the paths mentions them, none does.
    ///
    /// NB: asking libgit2 path by path resolves each path's real location and
    /// looks for attributes files beside it: 30 system calls a file, more than
    /// reading, hashing and packing it.
    func mayFilter(_ paths: [String]) throws -> Bool {
        if let autocrlf = try configString("core.autocrlf"), !["false", "no", "off", "0", ""].contains(autocrlf.lowercased()) { return true }
        let environment = ProcessInfo.processInfo.environment
        let configHome = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? Home.folder.path + "/.config"
        var files = [gitdir + "info/attributes", "/etc/gitattributes", configHome + "/git/attributes", workdir! + ".gitattributes"]
        if let global = try configString("core.attributesFile") { files.append(Home.expand(global)) }
        var folders = Set<Substring>()
        for path in paths {
            var end = path.endIndex
            while let slash = path[..<end].lastIndex(of: "/") {
                guard folders.insert(path[..<slash]).inserted else { break }
                end = slash
            }
        }
        files += folders.map { workdir! + $0 + "/.gitattributes" }
        let filtering = ["text", "eol", "crlf", "ident", "filter"]
        for file in files {
            guard access(file, F_OK) == 0 else { continue }
            // One that cannot be read might say anything.
            guard let data = try? Folder.readFile(file, limit: 1 << 20) else { return true }
            for line in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline) {
                let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
                guard let pattern = words.first, !pattern.hasPrefix("#") else { continue }
                for word in words.dropFirst() {
                    let name = word.drop { $0 == "-" || $0 == "!" }.prefix { $0 != "=" }
                    if filtering.contains(String(name)) { return true }
                }
                if pattern.hasPrefix("[attr]") { return true }
            }
        }
        return false
    }

    /// Whether git's attributes put a filter (line endings, an external
    /// filter) between this file and its blob; such files go through libgit2.
    private func isFiltered(_ path: String) throws -> Bool {
        var filters: OpaquePointer?
        try check(git_filter_list_load(&filters, pointer, nil, path, GIT_FILTER_TO_ODB, 0), "git_filter_list_load")
        defer { git_filter_list_free(filters) }
        return filters != nil
    }

    /// One file read, hashed and deflated; nil when it is not a plain file or cannot be read.
    private static func readForPack(_ path: String, in rootFD: Int32) -> PackedFile? {
        // A file that grew or shrank while being read is left to libgit2, which reads it again.
        guard case let .read(data, info) = readPlainFile(path, in: rootFD) else { return nil }
        let size = data.count
        var id = git_oid()
        guard data.withUnsafeBytes({ git_odb_hash(&id, $0.baseAddress, size, GIT_OBJECT_BLOB) }) == 0 else { return nil }

        // The entry: the type and size header (4 bits of size, then 7 per byte), then the zlib stream.
        var entry: [UInt8] = []
        entry.reserveCapacity(docket_deflate_bound(size) + 10)
        var rest = size >> 4
        entry.append(UInt8(GIT_OBJECT_BLOB.rawValue) << 4 | UInt8(size & 0x0f) | (rest > 0 ? 0x80 : 0))
        while rest > 0 {
            let byte = UInt8(rest & 0x7f)
            rest >>= 7
            entry.append(byte | (rest > 0 ? 0x80 : 0))
        }
        let header = entry.count
        entry.append(contentsOf: repeatElement(0, count: docket_deflate_bound(size)))
        let written = data.withUnsafeBytes { input in
            entry.withUnsafeMutableBytes { docket_deflate(input.baseAddress, size, $0.baseAddress! + header, $0.count - header) }
        }
        guard written > 0 else { return nil }
        return PackedFile(id: id, info: info, entry: Array(entry[..<(header + written)]))
    }

    private static func same(_ a: git_oid, _ b: git_oid) -> Bool {
        withUnsafeBytes(of: a) { x in withUnsafeBytes(of: b) { y in memcmp(x.baseAddress!, y.baseAddress!, 20) == 0 } }
    }

    private static func sha1(_ bytes: [UInt8]) -> [UInt8] { bytes.withUnsafeBytes { sha1($0) } }

    /// The SHA-1 of `bytes` (a pack's or an index file's checksum).
    static func sha1(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        let sum = docket_sha1_new()!
        docket_sha1_update(sum, bytes.baseAddress, bytes.count)
        var digest = [UInt8](repeating: 0, count: 20)
        docket_sha1_finish(sum, &digest)
        return digest
    }

    /// A new file open for writing (and reading back), read-only once closed (as git keeps packs).
    private static func createReadOnly(_ path: String) throws -> Int32 {
        try systemCall("open", path: path) { Glibc.open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o444) }
    }
}

extension Array where Element == UInt8 {
    mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }
}
