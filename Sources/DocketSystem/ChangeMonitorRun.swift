import DocketCSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The monitor itself: watches `folders` under `root` (and `root`'s own
/// entries) and answers on a socket in `home` until asked to stop, stopped by
/// a signal, or the store, its `.git` or its socket goes away.
public final class ChangeMonitorRun {
    /// Why a monitor cannot start.
    public enum Failure: Error, CustomStringConvertible {
        /// Another monitor holds the store's monitor lock.
        case running
        /// The store is on a file system of this kind, whose changes inotify may not see.
        case remoteFileSystem(String)
        /// This many folders could not be watched.
        case tooManyFolders(Int)

        /// The reason, as a message shows it.
        public var description: String {
            switch self {
            case .running: "a change monitor already runs for this store"
            case let .remoteFileSystem(kind):
                "the store is on a \(kind) file system, whose changes inotify does not see"
            case let .tooManyFolders(count):
                "\(count) folders cannot be watched: the system's limit (fs.inotify.max_user_watches) is reached"
            }
        }
    }

    private let root: String
    private let folders: Set<String>
    private let home: String
    private let inotify: Int32
    private var listener: Int32 = -1
    private var socketIdentity: (dev_t, ino_t)?
    private var watched: [Int32: String] = [:]
    private var unwatched = 0
    private var epoch = ""
    private var sequence: UInt64 = 0
    private var changed: [String: (sequence: UInt64, subtree: Bool)] = [:]
    private var ended = false
    private let lock: FileLock

    private static let rootEvents = UInt32(
        IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ATTRIB)
    private static let folderEvents = UInt32(
        IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM
            | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF)

    /// Takes the monitor's lock, starts watching and listens; throws when
    /// another monitor runs, the store is on a network file system, or a folder cannot be watched.
    public init(root: String, folders: [String], home: String) throws {
        self.root = root
        self.folders = Set(folders)
        self.home = home
        guard let lock = try FileLock.attempt(home + "/" + ChangeMonitor.lockName) else { throw Failure.running }
        self.lock = lock
        if let kind = Self.remoteKinds[UInt(truncatingIfNeeded: docket_filesystem_type(root))] {
            throw Failure.remoteFileSystem(kind)
        }
        inotify = try systemCall("inotify_init1") { inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK)) }
        try watchAll()
        guard unwatched == 0 else { throw Failure.tooManyFolders(unwatched) }
        let socket =
            ChangeMonitor.withSocketPath(in: home) { path -> Int32 in
                unlink(path)
                return docket_unix_listen(path)
            } ?? -1
        guard socket >= 0 else { throw SystemError("listen", path: home + "/" + ChangeMonitor.socketName, code: errno) }
        listener = socket
        var named = stat()
        if lstat(home + "/" + ChangeMonitor.socketName, &named) == 0 { socketIdentity = (named.st_dev, named.st_ino) }
    }

    deinit {
        if listener >= 0 {
            // The socket is removed only while it is still this run's.
            if let socketIdentity, ownsSocket(socketIdentity) { unlink(home + "/" + ChangeMonitor.socketName) }
            close(listener)
        }
        close(inotify)
        lock.release()
    }

    /// File systems whose changes may be made where this machine's inotify cannot see them.
    private static let remoteKinds: [UInt: String] = [
        0x6969: "NFS", 0x517B: "SMB", 0xFF53_4D42: "CIFS", 0xFE53_4D42: "SMB2", 0x6573_5546: "FUSE",
        0x0102_1997: "9P", 0x00C3_6400: "Ceph", 0x5346_414F: "AFS",
    ]

    /// Answers until stopped.
    public func run() {
        StopSignals.catchThem()
        // A command that goes away before reading its answer must not end the monitor; nor may it hold the folder it
        // started in.
        signal(SIGPIPE, SIG_IGN)
        _ = chdir("/")
        while !ended && !StopSignals.stopRequested {
            var polled = [
                pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
                pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&polled, 2, 30_000)
            if ready < 0 && errno != EINTR { break }
            drain()
            if polled[1].revents & Int16(POLLIN) != 0 { answer() }
            // Another monitor took the socket's name, or the store went away.
            if ready == 0, let socketIdentity, !ownsSocket(socketIdentity) { break }
            if access(home, F_OK) != 0 { break }
        }
    }

    private func ownsSocket(_ identity: (dev_t, ino_t)) -> Bool {
        var info = stat()
        return lstat(home + "/" + ChangeMonitor.socketName, &info) == 0 && info.st_dev == identity.0
            && info.st_ino == identity.1
    }

    /// Answers one connection.
    private func answer() {
        let client = docket_unix_accept(listener)
        guard client >= 0 else { return }
        defer { close(client) }
        _ = docket_socket_timeout(client, 1000)
        guard docket_peer_uid(client) == Int(getuid()) else { return }
        var request = [UInt8](repeating: 0, count: 128)
        var count = 0
        while count < request.count, !request[..<count].contains(UInt8(ascii: "\n")) {
            let read = request.withUnsafeMutableBytes { Glibc.read(client, $0.baseAddress! + count, $0.count - count) }
            guard read > 0 else { break }
            count += read
        }
        guard let end = request[..<count].firstIndex(of: UInt8(ascii: "\n")) else { return }
        let line = String(decoding: request[..<end], as: UTF8.self)
        // Every change made before this request was made is in inotify's queue: read it all first.
        drain()
        var reply: [UInt8]
        switch line {
        case "stop":
            ended = true
            reply = Array("stopping\n".utf8)
        case "info":
            let missing = unwatched == 0 ? "" : ", \(unwatched) it cannot watch (fs.inotify.max_user_watches)"
            reply = Array("pid \(getpid()), watching \(watched.count) folders\(missing)\n".utf8)
        case _ where line.hasPrefix("since "):
            let now = MonitorToken(epoch: epoch, sequence: sequence)
            guard let since = MonitorToken(line.dropFirst(6)), since.epoch == epoch, since.sequence <= sequence,
                unwatched == 0
            else {
                reply = Array("unknown \(now)\n".utf8)
                break
            }
            reply = Array("changed \(now)\n".utf8)
            for (folder, change) in changed where change.sequence > since.sequence {
                reply += Array((change.subtree ? "t " : "f ").utf8) + Array(folder.utf8) + [0]
            }
        default:
            return
        }
        _ = try? reply.withUnsafeBytes { try writeAll(client, $0) }
    }

    /// Starts a new epoch: every token handed out before is unknown.
    private func restart() {
        let number = String(UInt64.random(in: .min ... .max), radix: 16)
        epoch = String(repeating: "0", count: 16 - number.count) + number
        sequence = 0
        changed = [:]
    }

    /// Watches the root and every folder under the store's folders, from a new epoch.
    private func watchAll() throws {
        restart()
        let wd = inotify_add_watch(inotify, root, Self.rootEvents | UInt32(IN_ONLYDIR))
        guard wd >= 0 else { throw SystemError("inotify_add_watch", path: root, code: errno) }
        watched[wd] = ""
        for folder in folders { watchTree(folder) }
    }

    /// Watches `folder` (relative to the root) and every folder under it, not following links.
    private func watchTree(_ folder: String) {
        let path = root + "/" + folder
        let wd = inotify_add_watch(inotify, path, Self.folderEvents | UInt32(IN_ONLYDIR | IN_DONT_FOLLOW))
        guard wd >= 0 else {
            if errno == ENOSPC { unwatched += 1 }
            return
        }
        watched[wd] = folder
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0, let stream = fdopendir(fd) else {
            if fd >= 0 { close(fd) }
            return
        }
        defer { closedir(stream) }
        var subfolders: [String] = []
        while let item = readdir(stream) {
            let name = withUnsafeBytes(of: item.pointee.d_name) {
                String(cString: $0.bindMemory(to: CChar.self).baseAddress!)
            }
            if name == "." || name == ".." { continue }
            var isFolder = item.pointee.d_type == DT_DIR
            if item.pointee.d_type == DT_UNKNOWN {
                var info = stat()
                isFolder = fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 && info.st_mode & S_IFMT == S_IFDIR
            }
            if isFolder { subfolders.append(folder + "/" + name) }
        }
        for subfolder in subfolders { watchTree(subfolder) }
    }

    /// Stops watching `folder` and the folders under it (moved out of the store).
    private func unwatchTree(_ folder: String) {
        for (wd, path) in watched where path == folder || path.hasPrefix(folder + "/") {
            inotify_rm_watch(inotify, wd)
            watched[wd] = nil
        }
    }

    private func mark(_ folder: String, subtree: Bool) {
        sequence += 1
        changed[folder] = (sequence, subtree || changed[folder]?.subtree == true)
    }

    /// Reads every event that has arrived, without waiting.
    private func drain() {
        readInotifyEvents(inotify) { handle(wd: $0, mask: $1, name: $2) }
    }

    private func handle(wd: Int32, mask: UInt32, name: String) {
        func any(_ flags: Int32) -> Bool { mask & UInt32(flags) != 0 }
        // Events were lost: watch everything again, and answer nothing from before.
        if any(IN_Q_OVERFLOW) {
            try? watchAll()
            return
        }
        if any(IN_IGNORED) {
            watched[wd] = nil
            return
        }
        guard let folder = watched[wd] else { return }
        if folder.isEmpty {
            if any(IN_DELETE_SELF | IN_MOVE_SELF) || (name == ".git" && any(IN_DELETE | IN_MOVED_FROM)) {
                ended = true
                return
            }
            guard folders.contains(name) else { return }
            mark(name, subtree: true)
            if any(IN_DELETE | IN_MOVED_FROM) { unwatchTree(name) }
            if any(IN_ISDIR) && any(IN_CREATE | IN_MOVED_TO) { watchTree(name) }
            return
        }
        if any(IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT) {
            mark(folder, subtree: true)
            return
        }
        mark(folder, subtree: false)
        guard any(IN_ISDIR), !name.isEmpty else { return }
        let child = folder + "/" + name
        mark(child, subtree: true)
        if any(IN_DELETE | IN_MOVED_FROM) { unwatchTree(child) }
        if any(IN_CREATE | IN_MOVED_TO) { watchTree(child) }
    }
}
