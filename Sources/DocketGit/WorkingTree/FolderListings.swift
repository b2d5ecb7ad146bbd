import DocketSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

// NB: after the stat of each file, listing each folder was the largest part of
// a status's system time (ext4 reads, hashes and sorts a folder's names at every
// listing). As git's untracked cache does, a scan notes each folder it found
// holding nothing but tracked files, with the folder's stat data, in
// `.git/docket/folder-listings`. Adding, removing or renaming a name in a folder
// changes its modification time (and anything that sets that time back changes
// its change time), so while both are as noted, and the folder still holds as
// many of its tracked files as it held names, it holds the same names: its
// tracked files are stat'ed without listing it. A folder changed within the last
// tick of the file system's clock before it was listed is not noted, so a name
// added in that same tick cannot hide behind equal times.

/// The folders a scan found holding nothing but their tracked files and subfolders.
struct FolderListings: Equatable {
    /// What one folder held when it was listed.
    struct Listing: Equatable, Sendable {
        var device: UInt64, inode: UInt64
        var modified: Int64, modifiedNanos: Int64, changed: Int64, changedNanos: Int64
        /// The names that were not folders (every one a tracked file).
        var files: Int
        /// The names that were folders.
        var subfolders: [String]

        init(_ info: stat, files: Int, subfolders: [String]) {
            self.init(
                device: UInt64(info.st_dev), inode: UInt64(info.st_ino),
                modified: Int64(info.st_mtim.tv_sec), modifiedNanos: Int64(info.st_mtim.tv_nsec),
                changed: Int64(info.st_ctim.tv_sec), changedNanos: Int64(info.st_ctim.tv_nsec), files: files,
                subfolders: subfolders)
        }

        init(
            device: UInt64, inode: UInt64, modified: Int64, modifiedNanos: Int64, changed: Int64, changedNanos: Int64,
            files: Int, subfolders: [String]
        ) {
            (self.device, self.inode, self.files, self.subfolders) = (device, inode, files, subfolders)
            (self.modified, self.modifiedNanos, self.changed, self.changedNanos) = (
                modified, modifiedNanos, changed, changedNanos
            )
        }

        /// Whether a folder with this stat data is the one noted, unchanged.
        func isSame(_ info: stat) -> Bool {
            device == UInt64(info.st_dev) && inode == UInt64(info.st_ino)
                && modified == Int64(info.st_mtim.tv_sec) && modifiedNanos == Int64(info.st_mtim.tv_nsec)
                && changed == Int64(info.st_ctim.tv_sec) && changedNanos == Int64(info.st_ctim.tv_nsec)
        }

        /// Whether a folder with this stat data, listed after `start` (seconds
        /// since 1970), changed long enough before it that a later change gets
        /// later times. File systems with nanosecond times tick every few
        /// milliseconds; those with whole-second times every one or two seconds.
        static func isSettled(_ info: stat, listedAfter start: Double) -> Bool {
            let coarse = info.st_mtim.tv_nsec == 0 && info.st_ctim.tv_nsec == 0
            let latest = max(
                Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9,
                Double(info.st_ctim.tv_sec) + Double(info.st_ctim.tv_nsec) / 1e9)
            return latest < start - (coarse ? 2 : 0.1)
        }
    }

    static let header = "docket-folder-listings 1"

    /// Listings by folder path (relative to the working tree).
    var folders: [String: Listing] = [:]

    /// The listings in `file`; none when it is missing or does not read as `write` writes it.
    static func read(from file: String) -> FolderListings {
        guard let data = try? Folder.readFile(file, limit: 1 << 26) else { return FolderListings() }
        return data.withUnsafeBytes { raw in
            var fields = FieldReader(raw.bindMemory(to: UInt8.self))
            guard fields.text() == header else { return FolderListings() }
            var listings = FolderListings()
            while !fields.isAtEnd {
                guard let folder = fields.text(), let device = fields.number(), let inode = fields.number(),
                    let modified = fields.number(), let modifiedNanos = fields.number(), let changed = fields.number(),
                    let changedNanos = fields.number(), let files = fields.number(), let subfolders = fields.text(),
                    modifiedNanos < 1_000_000_000, changedNanos < 1_000_000_000, files <= Int.max
                else { return FolderListings() }
                // Times are written as their bits, so one before 1970 reads back.
                listings.folders[folder] = Listing(
                    device: device, inode: inode,
                    modified: Int64(bitPattern: modified), modifiedNanos: Int64(modifiedNanos),
                    changed: Int64(bitPattern: changed), changedNanos: Int64(changedNanos),
                    files: Int(files), subfolders: subfolders.split(separator: "/").map(String.init))
            }
            return listings
        }
    }

    /// Reads fields each ended by a NUL byte.
    private struct FieldReader {
        let bytes: UnsafeBufferPointer<UInt8>
        var offset = 0
        init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        var isAtEnd: Bool { offset == bytes.count }

        /// The next field's bytes; nil at the end or when it is not ended.
        mutating func field() -> UnsafeBufferPointer<UInt8>? {
            guard let end = bytes[offset...].firstIndex(of: 0) else { return nil }
            defer { offset = end + 1 }
            return UnsafeBufferPointer(rebasing: bytes[offset..<end])
        }

        mutating func text() -> String? { field().map { String(decoding: $0, as: UTF8.self) } }

        /// The next field as a decimal number of at most 19 digits.
        mutating func number() -> UInt64? {
            guard let digits = field(), (1...19).contains(digits.count) else { return nil }
            var value: UInt64 = 0
            for digit in digits {
                guard (48...57).contains(digit) else { return nil }
                value = value * 10 + UInt64(digit - 48)
            }
            return value
        }
    }

    /// Writes the listings to `file` in one step. Not flushed: listings lost in a crash are made again.
    func write(to file: String) {
        var text = FolderListings.header + "\0"
        for (folder, listing) in folders.sorted(by: { $0.key < $1.key }) {
            let record = [
                folder, "\(listing.device)", "\(listing.inode)", "\(UInt64(bitPattern: listing.modified))",
                "\(listing.modifiedNanos)", "\(UInt64(bitPattern: listing.changed))", "\(listing.changedNanos)",
                "\(listing.files)", listing.subfolders.joined(separator: "/"),
            ]
            text += record.joined(separator: "\0") + "\0"
        }
        try? AtomicFile.write(Data(text.utf8), to: file, durable: false)
    }
}
