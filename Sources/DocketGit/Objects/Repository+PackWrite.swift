import DocketCGit2
import DocketCPackFile
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
    func writeBlobsAsPack(_ paths: [String], mayFilter known: Bool? = nil) throws -> [WrittenBlob?] {
        let filtered = try known ?? mayFilter(paths)
        let root = workdir!
        let rootFD = try systemCall("open", path: root) { Glibc.open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        defer { close(rootFD) }
        // Files are read a slice at a time, so memory holds one slice's entries however many there are.
        var pack = try PackFileWriter(folder: commonDir + "objects/pack/")
        var written: [WrittenBlob?] = Array(repeating: nil, count: paths.count)
        do {
            for slice in stride(from: 0, to: paths.count, by: 8_192) {
                let range = slice..<min(paths.count, slice + 8_192)
                // libgit2's attribute lookups are not for several threads at once.
                let plain = try range.map { try !filtered || !isFiltered(paths[$0]) }
                let read = Parallel.map(range.count) { i in
                    plain[i] ? Self.readForPack(paths[range.lowerBound + i], in: rootFD) : nil
                }
                for (i, file) in zip(range, read) {
                    guard let file else { continue }
                    try pack.append(id: file.id, entry: file.entry)
                    written[i] = WrittenBlob(id: file.id, info: file.info)
                }
            }
            try pack.finish()
        } catch {
            pack.abandon()
            throw error
        }
        try refreshObjects()
        return written
    }

    /// Those of `paths` that are in the working tree (as anything: a file, a link, a folder).
    func presentInWorkdir(_ paths: [String]) -> [String] {
        paths.filter { path in
            var info = stat()
            return lstat(workdir! + path, &info) == 0
        }
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
        if let autocrlf = try configString("core.autocrlf"),
            !["false", "no", "off", "0", ""].contains(autocrlf.lowercased())
        {
            return true
        }
        let environment = ProcessInfo.processInfo.environment
        let configHome =
            environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? Home.folder.path + "/.config"
        var files = [
            gitdir + "info/attributes", "/etc/gitattributes", configHome + "/git/attributes",
            workdir! + ".gitattributes",
        ]
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
        for file in files {
            guard access(file, F_OK) == 0 else { continue }
            // One that cannot be read might say anything.
            guard let data = try? Folder.readFile(file, limit: 1 << 20), !Self.attributesMayFilter(data) else {
                return true
            }
        }
        return false
    }

    /// Whether an attributes file's text names an attribute that can put a filter between a file and its blob
    /// (`text`, `eol`, `crlf`, `ident`, `filter`) or defines a macro (which might).
    static func attributesMayFilter(_ data: Data) -> Bool {
        let filtering = ["text", "eol", "crlf", "ident", "filter"]
        for line in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline) {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let pattern = words.first, !pattern.hasPrefix("#") else { continue }
            for word in words.dropFirst() {
                let name = word.drop { $0 == "-" || $0 == "!" }.prefix { $0 != "=" }
                if filtering.contains(String(name)) { return true }
            }
            if pattern.hasPrefix("[attr]") { return true }
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
        var id = git_oid()
        guard data.withUnsafeBytes({ git_odb_hash(&id, $0.baseAddress, data.count, GIT_OBJECT_BLOB) }) == 0,
            let entry = data.withUnsafeBytes({ PackFileWriter.entry(type: GIT_OBJECT_BLOB, $0) })
        else { return nil }
        return PackedFile(id: id, info: info, entry: entry)
    }

    /// The SHA-1 of `bytes` (a pack's or an index file's checksum).
    static func sha1(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        let sum = docket_sha1_new()!
        docket_sha1_update(sum, bytes.baseAddress, bytes.count)
        var digest = [UInt8](repeating: 0, count: 20)
        docket_sha1_finish(sum, &digest)
        return digest
    }
}

extension Array where Element == UInt8 {
    mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }
}
