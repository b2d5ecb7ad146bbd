import DocketGit
import DocketModel
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A Docket store: a git repository with a working tree holding one JSON file per item.
public final class Store {
    /// The store format this version reads and writes.
    public static let format = 1

    /// The store's folder (the repository's working tree).
    public let root: URL
    /// `root.path`, kept: URL computes it anew on each call.
    let rootPath: String
    /// The git folder, ending in "/".
    let gitdir: String
    private var opened: Repository?
    /// Positions of projects and tasks as last read or written: the order keys in their files.
    var positions: [UUID: Int] = [:]

    private init(root: URL, gitdir: String, repository: Repository?) {
        self.root = root
        self.rootPath = root.path
        self.gitdir = gitdir
        self.opened = repository
    }

    /// The store's repository, opened through libgit2 on first use.
    /// NB: starting libgit2 parses the system's certificate file (about 10 ms),
    /// a third of what `docket add` costs otherwise; commands that only read
    /// and write item files never pay it.
    var repository: Repository {
        get throws {
            if let opened { return opened }
            let repository = try git { try Repository.open(at: rootPath) }
            opened = repository
            return repository
        }
    }

    /// Opens the store in `folder`, refusing a folder that is not one.
    public static func open(at folder: URL) throws -> Store {
        let path = folder.standardizedFileURL.path
        // The common case, a folder with a .git folder, needs no libgit2.
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path + "/.git/HEAD"),
           FileManager.default.fileExists(atPath: path + "/.git/objects", isDirectory: &isFolder), isFolder.boolValue {
            try checkFormat(root: folder.standardizedFileURL, shownAs: path)
            return Store(root: folder.standardizedFileURL, gitdir: path + "/.git/", repository: nil)
        }
        guard Repository.exists(at: path) else { throw StoreError.notARepository(path: path) }
        let repository = try git { try Repository.open(at: path) }
        guard !repository.isBare, let workdir = repository.workdir else { throw StoreError.bareRepository(path: path) }
        let root = URL(fileURLWithPath: workdir)
        try checkFormat(root: root, shownAs: path)
        return Store(root: root, gitdir: repository.gitdir, repository: repository)
    }

    /// Makes `folder` a store: `git init` when it is not a repository yet,
    /// `.docket/format.json`, and a first commit. An existing store is opened as it is.
    public static func create(at folder: URL) throws -> Store {
        let path = folder.standardizedFileURL.path
        if Repository.exists(at: path) {
            let repository = try git { try Repository.open(at: path) }
            guard !repository.isBare, let workdir = repository.workdir else { throw StoreError.bareRepository(path: path) }
            if FileManager.default.fileExists(atPath: workdir + StoreLayout.format) { return try open(at: folder) }
        }
        let repository = try git { Repository.exists(at: path) ? try Repository.open(at: path) : try Repository.create(at: path) }
        let store = Store(root: URL(fileURLWithPath: repository.workdir!), gitdir: repository.gitdir, repository: repository)
        try store.withLock {
            try AtomicFile.write(try DocketJSON.encode(FormatFile(format: format)), to: store.path(StoreLayout.format))
            _ = try store.commitHoldingLock(message: "Start a Docket store")
        }
        return store
    }

    private static func checkFormat(root: URL, shownAs path: String) throws {
        let file = root.appendingPathComponent(StoreLayout.format).path
        guard let data = FileManager.default.contents(atPath: file) else { throw StoreError.notAStore(path: path) }
        let found: FormatFile
        do {
            found = try DocketJSON.decode(FormatFile.self, from: data)
        } catch {
            throw StoreError.unreadableFormat(path: path, reason: decodingReason(error))
        }
        guard found.format <= format else { throw StoreError.newerFormat(path: path, found: found.format) }
    }

    /// The absolute path of a store path.
    func path(_ relative: String) -> String { rootPath + "/" + relative }

    // MARK: One writer at a time

    /// The lock file that keeps a second process from changing the store at the same time.
    public var lockFile: String { gitdir + "docket.lock" }

    /// Runs `body` holding the store's lock: waits up to `timeout` seconds for
    /// another process to finish, takes over a lock whose process is dead.
    public func withLock<T>(timeout: TimeInterval = Store.lockTimeout, _ body: () throws -> T) throws -> T {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let fd = Glibc.open(lockFile, O_WRONLY | O_CREAT | O_EXCL, 0o644)
            if fd >= 0 {
                let pid = "\(getpid())\n"
                _ = pid.withCString { Glibc.write(fd, $0, strlen($0)) }
                close(fd)
                break
            }
            guard errno == EEXIST else { throw StoreError.io(path: lockFile, reason: String(cString: strerror(errno))) }
            let holder = (try? String(contentsOfFile: lockFile, encoding: .utf8)).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0
            if holder > 0, kill(holder, 0) != 0, errno == ESRCH {
                unlink(lockFile)  // its process is gone: take the lock over
                continue
            }
            if Date() >= deadline { throw StoreError.locked(lockFile: lockFile, pid: holder) }
            usleep(50_000)
        }
        defer { unlink(lockFile) }
        return try body()
    }

    /// How long a command waits for another docket process: `DOCKET_LOCK_TIMEOUT` seconds, else 3.
    public static var lockTimeout: TimeInterval {
        ProcessInfo.processInfo.environment["DOCKET_LOCK_TIMEOUT"].flatMap(TimeInterval.init) ?? 3
    }
}
