import DocketCSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

// A change monitor, like git's fsmonitor: a process that watches a store's
// folders through inotify and tells a command which folders changed since a
// token it handed out before, so a status looks only there instead of
// stat'ing every file.
//
// NB: inotify does not see a change made through another mount of the same
// files, over a network file system, or by writing a file mapped into memory;
// the monitor refuses network and FUSE file systems, and a store whose files
// are changed those ways should not use it.

/// A moment in one monitor's life: what a command saw up to it, the monitor can say what changed after.
public struct MonitorToken: Equatable, Sendable, CustomStringConvertible {
    /// Which run of which monitor (a new one after a restart or a lost event).
    public let epoch: String
    /// How many changes it had counted by then.
    public let sequence: UInt64

    init(epoch: String, sequence: UInt64) {
        self.epoch = epoch
        self.sequence = sequence
    }

    /// The token as the monitor's protocol and the note write it: "<epoch> <sequence>".
    public var description: String { "\(epoch) \(sequence)" }

    /// A token as `description` writes it; nil for anything else.
    public init?(_ text: Substring) {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 2, ChangeMonitor.isEpoch(parts[0]), let sequence = UInt64(parts[1]) else { return nil }
        self.init(epoch: String(parts[0]), sequence: sequence)
    }
}

/// What a monitor said when asked what changed since a token.
public enum MonitorAnswer: Equatable, Sendable {
    /// Only these folders (relative to the store) may hold changes: in
    /// `folders` a file or a folder's entry changed; `subtrees` are folders
    /// made, moved or removed, whose whole content must be looked at.
    case changed(now: MonitorToken, folders: [String], subtrees: [String])
    /// The token is not one it can answer for (another run, a lost event): anything may have changed.
    case unknown(now: MonitorToken)
}

/// Asking a store's change monitor (a `ChangeMonitorRun` in another process) over its socket.
public enum ChangeMonitor {
    /// The socket's name in the monitor's folder (`.git/docket`).
    static let socketName = "monitor.socket"
    /// The lock a running monitor holds.
    static let lockName = "monitor.lock"
    /// The most a reply may hold; a larger one is not trusted.
    static let replyLimit = 1 << 26

    static func isEpoch<S: StringProtocol>(_ text: S) -> Bool {
        text.utf8.count == 16 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// Asks the monitor running for `folder` (a store's `.git/docket`) what changed since `token`
    /// (nil: none known yet); nil when none runs, it is another user's, or it does not answer within a second.
    public static func ask(in folder: String, since token: MonitorToken?) -> MonitorAnswer? {
        guard let reply = exchange(in: folder, "since " + (token?.description ?? "-") + "\n") else { return nil }
        guard let end = reply.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        let head = String(decoding: reply[..<end], as: UTF8.self)
        if head.hasPrefix("unknown "), let now = MonitorToken(head.dropFirst(8)) { return .unknown(now: now) }
        guard head.hasPrefix("changed "), let now = MonitorToken(head.dropFirst(8)) else { return nil }
        var folders: [String] = []
        var subtrees: [String] = []
        for record in reply[(end + 1)...].split(separator: 0) {
            guard record.count > 2, record[record.startIndex + 1] == UInt8(ascii: " ") else { return nil }
            let path = String(decoding: record.dropFirst(2), as: UTF8.self)
            switch record.first {
            case UInt8(ascii: "f"): folders.append(path)
            case UInt8(ascii: "t"): subtrees.append(path)
            default: return nil
            }
        }
        return .changed(now: now, folders: folders, subtrees: subtrees)
    }

    /// What the monitor running for `folder` says of itself (one line), or nil when none runs.
    public static func describe(in folder: String) -> String? {
        exchange(in: folder, "info\n").map { String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .newlines) }
    }

    /// Asks the monitor running for `folder` to stop, and waits up to 5 s for it to; false when none ran.
    @discardableResult
    public static func stop(in folder: String) -> Bool {
        guard exchange(in: folder, "stop\n") != nil else { return false }
        for _ in 0..<250 {
            guard FileLock.isHeld(folder + "/" + lockName) else { return true }
            usleep(20_000)
        }
        return true
    }

    /// Sends `request` to the monitor's socket and reads its reply whole.
    private static func exchange(in folder: String, _ request: String) -> [UInt8]? {
        guard let fd = withSocketPath(in: folder, { docket_unix_connect($0, 1000) }), fd >= 0 else { return nil }
        defer { close(fd) }
        // A socket another user made in its place is not asked.
        guard docket_peer_uid(fd) == Int(getuid()) else { return nil }
        guard
            (try? request.utf8CString.withUnsafeBytes {
                try writeAll(fd, UnsafeRawBufferPointer(rebasing: $0.dropLast()))
            }) != nil,
            shutdown(fd, Int32(SHUT_WR)) == 0
        else { return nil }
        guard let data = try? readAll(fd, limit: replyLimit), data.count < replyLimit else { return nil }
        return [UInt8](data)
    }

    /// Calls `body` with a path to the socket short enough for an address (through `/proc/self/fd` when the folder's is
    /// not).
    static func withSocketPath<T>(in folder: String, _ body: (String) -> T) -> T? {
        let path = folder + "/" + socketName
        if path.utf8.count < 100 { return body(path) }
        let fd = docket_open_folder_path(folder)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return body("/proc/self/fd/\(fd)/" + socketName)
    }
}
