import DocketCSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Watches folders and everything under them for files written, moved or
/// removed (through inotify), adding folders made under them as they appear.
/// Names starting with a dot (temporary files, editors' swap files) are not counted.
public final class FolderWatch {
    private let fd: Int32
    private var watched: [Int32: String] = [:]
    /// Folders that could not be watched (the inotify limit reached), for a warning.
    public private(set) var unwatched: [String] = []
    /// The paths of the files changed since `takeChanged()` last took them; nil when a change names no file that
    /// can be told (too many events, a folder moved in or gone).
    private var changed: Set<String>? = []

    private static let fileEvents = UInt32(
        IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CREATE | IN_DELETE_SELF)

    /// Watches `folders` and every folder under them; missing ones are skipped.
    public init(folders: [String]) throws {
        fd = try systemCall("inotify_init1") { inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK)) }
        for folder in folders { add(folder) }
    }

    deinit { close(fd) }

    /// Whether anything is watched.
    public var isWatching: Bool { !watched.isEmpty }

    /// Adds a watch on `folder` and the folders under it (not following links).
    private func add(_ folder: String) {
        let wd = inotify_add_watch(fd, folder, FolderWatch.fileEvents | UInt32(IN_ONLYDIR | IN_DONT_FOLLOW))
        guard wd >= 0 else {
            if errno == ENOSPC { unwatched.append(folder) }
            return
        }
        watched[wd] = folder
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for name in names where !name.hasPrefix(".") || name == ".docket" {
            var info = stat()
            if lstat(folder + "/" + name, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { add(folder + "/" + name) }
        }
    }

    /// Waits up to `timeout` seconds for a change (returning at once if one
    /// is waiting) and reads every change that has arrived; true when there was one.
    /// A signal ends the wait early.
    public func wait(timeout: TimeInterval) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&entry, 1, Int32(max(0, min(timeout, 3600)) * 1000))
        guard ready > 0 else { return false }
        return drain()
    }

    /// Reads the changes that have arrived without waiting; true when one counts.
    @discardableResult
    public func drain() -> Bool {
        var counted = false
        readInotifyEvents(fd) { wd, mask, name in
            if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                (counted, changed) = (true, nil)
                return
            }
            if mask & UInt32(IN_IGNORED) != 0 {
                watched[wd] = nil
                return
            }
            guard let folder = watched[wd] else { return }
            if mask & UInt32(IN_DELETE_SELF) != 0 {
                (counted, changed) = (true, nil)
                return
            }
            if name.hasPrefix(".") && name != ".docket" { return }
            if mask & UInt32(IN_ISDIR) != 0 && mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 {
                add(folder + "/" + name)
                // NB: a folder moved in brings files no event names.
                if mask & UInt32(IN_MOVED_TO) != 0 { changed = nil }
            }
            // NB: a file made but not yet written counts when it is closed.
            if mask & UInt32(IN_ISDIR) == 0 && mask & UInt32(IN_CREATE) != 0 { return }
            if mask & UInt32(IN_ISDIR) != 0 && mask & UInt32(IN_MOVED_FROM) != 0 { changed = nil }
            counted = true
            changed?.insert(folder + "/" + name)
        }
        return counted
    }

    /// The paths of the files written, moved or removed since the last call (a folder's own path when it went),
    /// or nil when the events since cannot name them all; starts counting afresh.
    public func takeChanged() -> Set<String>? {
        defer { changed = [] }
        return changed
    }
}

/// Reads every event waiting on the inotify descriptor `fd` without
/// blocking, and calls `body` with each one's watch, mask and name ("" for the watched folder itself).
func readInotifyEvents(_ fd: Int32, _ body: (_ wd: Int32, _ mask: UInt32, _ name: String) -> Void) {
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return }
        var offset = 0
        while offset + MemoryLayout<inotify_event>.size <= count {
            let (wd, mask, length) = buffer.withUnsafeBytes { bytes in
                let event = bytes.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                return (event.wd, event.mask, Int(event.len))
            }
            let nameStart = offset + MemoryLayout<inotify_event>.size
            let name = String(
                decoding: buffer[nameStart..<min(nameStart + length, count)].prefix { $0 != 0 }, as: UTF8.self)
            offset = nameStart + length
            body(wd, mask, name)
        }
    }
}

/// SIGINT, SIGTERM and SIGHUP as a request to stop: the first is noted (a
/// long-running command finishes what it is doing, then stops); a second ends the process.
public enum StopSignals {
    /// Starts catching them.
    public static func catchThem() { docket_catch_stop_signals() }
    /// Whether one arrived.
    public static var stopRequested: Bool { docket_stop_requested() != 0 }
}
