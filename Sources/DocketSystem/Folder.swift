import DocketCSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Why a file or folder was not read or written.
public enum FileProblem: Error, Equatable, Sendable, CustomStringConvertible {
    /// Nothing is there.
    case missing
    /// It is a symbolic link, which is never followed.
    case link
    /// It is not a regular file (a folder, a device, a pipe…).
    case notRegular
    /// A folder on the way is a link or not a folder.
    case notAFolder(String)
    /// It is larger than the limit.
    case tooLarge(size: Int, limit: Int)
    /// The system refused.
    case system(SystemError)

    public var description: String {
        switch self {
        case .missing: "does not exist"
        case .link: "is a symbolic link, which Docket does not follow"
        case .notRegular: "is not a regular file"
        case let .notAFolder(name): "lies under \(name), which is a link or a file, not a folder"
        case let .tooLarge(size, limit):
            "is \(size) bytes, larger than the \(limit >= 1 << 20 ? "\(limit >> 20) MiB" : "\(limit) bytes") an item file may be"
        case let .system(error): error.reason
        }
    }
}

/// An open folder, reached from its root without following a symbolic link
/// at any step, through which files are read, written and removed in place.
/// A link, or a file where a folder should be, is refused wherever it is, so
/// nothing written by someone else can lead a read or a write out of the tree.
public final class Folder: Sendable {
    /// The folder's path, for messages.
    public let path: String
    /// The open folder.
    public let fd: Int32

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    deinit { close(fd) }

    /// Opens a folder by its absolute path (which may itself lie under links the user made).
    public static func open(_ path: String) throws -> Folder {
        let fd = try systemCall("open", path: path) { Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        return Folder(path: path, fd: fd)
    }

    /// The folder at a relative path below this one; nil when some part is
    /// missing. Throws `.notAFolder` (naming the part, relative to this folder)
    /// when a part is a link or a file.
    public func folder(_ relative: String) throws -> Folder? {
        var current = self
        var walked = ""
        for name in relative.split(separator: "/") where !name.isEmpty && name != "." {
            walked += (walked.isEmpty ? "" : "/") + name
            guard name != ".." else { throw FileProblem.notAFolder(walked) }
            let fd = Glibc.openat(current.fd, String(name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if fd < 0 {
                let code = errno
                if code == ENOENT { return nil }
                if code == ELOOP || code == ENOTDIR { throw FileProblem.notAFolder(walked) }
                throw FileProblem.system(SystemError("open", path: current.child(String(name)), code: code))
            }
            current = Folder(path: current.child(String(name)), fd: fd)
        }
        return current
    }

    /// The folder at a relative path, made (with its parents) when missing.
    public func makeFolder(_ relative: String) throws -> Folder {
        var current = self
        for name in relative.split(separator: "/") where !name.isEmpty {
            if let next = try current.folder(String(name)) {
                current = next
                continue
            }
            if mkdirat(current.fd, String(name), 0o755) != 0 && errno != EEXIST {
                throw FileProblem.system(SystemError("mkdir", path: current.child(String(name)), code: errno))
            }
            guard let made = try current.folder(String(name)) else { throw FileProblem.missing }
            current = made
        }
        return current
    }

    /// What is in the folder: each entry's name and whether it is a folder
    /// (a link is never a folder). Dot files are left out.
    public func entries() throws -> [(name: String, isFolder: Bool)] {
        var found: [(String, Bool)] = []
        try eachEntry { name, type in
            if name.hasPrefix(".") { return }
            var isFolder = type == DT_DIR
            if type == DT_UNKNOWN, let info = status(name) { isFolder = info.st_mode & S_IFMT == S_IFDIR }
            found.append((name, isFolder))
        }
        return found
    }

    /// Every name in the folder, dot files included.
    public func allEntries() throws -> [String] {
        var names: [String] = []
        try eachEntry { name, _ in
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Each entry's name and type as `readdir` gives them, "." and ".." included.
    private func eachEntry(_ body: (String, UInt8) -> Void) throws {
        let copy = try systemCall("dup", path: path) { dup(fd) }
        guard let stream = fdopendir(copy) else {
            close(copy)
            throw FileProblem.system(SystemError("opendir", path: path, code: errno))
        }
        defer { closedir(stream) }
        rewinddir(stream)
        while let entry = readdir(stream) {
            body(
                withUnsafeBytes(of: entry.pointee.d_name) {
                    String(cString: $0.bindMemory(to: CChar.self).baseAddress!)
                }, entry.pointee.d_type)
        }
    }

    /// The stat data of an entry, not following a link; nil when it is missing.
    public func status(_ name: String) -> stat? {
        var info = stat()
        return fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 ? info : nil
    }

    /// The bytes of the regular file at `path`, at most `limit`
    /// of them, as `read(_:limit:)` reads them: its last part is never a link.
    /// For Docket's own files outside the item folders (in `.git`, or a file git hands over).
    public static func readFile(_ path: String, limit: Int) throws -> Data {
        let (folder, name) = split(path)
        do {
            return try open(folder.isEmpty ? (path.hasPrefix("/") ? "/" : ".") : folder).read(name, limit: limit)
        } catch let error as SystemError where error.code == ENOENT || error.code == ENOTDIR {
            throw FileProblem.missing
        }
    }

    /// The bytes of the regular file `name`, at most `limit` of them.
    public func read(_ name: String, limit: Int) throws -> Data {
        let fd = Glibc.openat(self.fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 {
            switch errno {
            case ENOENT: throw FileProblem.missing
            case ELOOP: throw FileProblem.link
            default: throw FileProblem.system(SystemError("open", path: child(name), code: errno))
            }
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw FileProblem.system(SystemError("stat", path: child(name), code: errno))
        }
        guard info.st_mode & S_IFMT == S_IFREG else { throw FileProblem.notRegular }
        guard Int(info.st_size) <= limit else { throw FileProblem.tooLarge(size: Int(info.st_size), limit: limit) }
        do {
            guard let data = try readAll(fd, limit: limit, expected: Int(info.st_size), path: child(name)) else {
                throw FileProblem.tooLarge(size: limit + 1, limit: limit)
            }
            return data
        } catch let error as SystemError {
            throw FileProblem.system(error)
        }
    }

    /// Writes `name` atomically in this folder: a temporary file, flushed
    /// when `durable`, renamed over it. A link at `name` is replaced, never followed.
    public func write(_ data: Data, to name: String, durable: Bool = true) throws {
        let pending = try prepare(data, for: name, durable: durable)
        try pending.commit()
    }

    /// Writes a temporary file for `name` that `commit` puts in place.
    public func prepare(_ data: Data, for name: String, durable: Bool) throws -> PendingFile {
        let temporary = AtomicFile.temporaryPrefix + "\(getpid())-" + name
        let fd = try systemCall("open", path: child(temporary)) {
            Glibc.openat(self.fd, temporary, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o644)
        }
        do {
            try data.withUnsafeBytes { try writeAll(fd, $0, path: child(temporary)) }
            if durable { try systemCall("fsync", path: child(temporary)) { fsync(fd) } }
            close(fd)
        } catch {
            close(fd)
            unlinkat(self.fd, temporary, 0)
            throw error
        }
        return PendingFile(folder: self, temporary: temporary, name: name)
    }

    /// Removes the file (or link) `name`; nothing when it is missing.
    public func remove(_ name: String) throws {
        if unlinkat(fd, name, 0) != 0 && errno != ENOENT {
            if errno == EISDIR { return try removeTree(name) }
            throw SystemError("unlink", path: child(name), code: errno)
        }
    }

    /// Removes the folder `name` with everything in it (links are removed, never followed).
    public func removeTree(_ name: String) throws {
        if let inner = try? folder(name) {
            let copy = try systemCall("dup", path: inner.path) { dup(inner.fd) }
            if let stream = fdopendir(copy) {
                defer { closedir(stream) }
                var names: [String] = []
                while let entry = readdir(stream) {
                    let child = withUnsafeBytes(of: entry.pointee.d_name) {
                        String(cString: $0.bindMemory(to: CChar.self).baseAddress!)
                    }
                    if child != "." && child != ".." { names.append(child) }
                }
                for child in names {
                    if unlinkat(inner.fd, child, 0) != 0 && (errno == EISDIR || errno == EPERM) {
                        try inner.removeTree(child)
                    }
                }
            } else {
                close(copy)
            }
        }
        if unlinkat(fd, name, AT_REMOVEDIR) != 0 && errno != ENOENT {
            if errno == ENOTDIR {
                unlinkat(fd, name, 0)
                return
            }
            throw SystemError("rmdir", path: child(name), code: errno)
        }
    }

    /// Removes the folder `name` if it is empty.
    public func removeIfEmpty(_ name: String) {
        unlinkat(fd, name, AT_REMOVEDIR)
    }

    /// Flushes every file written to this folder's file system to disk.
    public func flushFileSystem() throws {
        try systemCall("syncfs", path: path) { docket_syncfs(fd) }
    }

    /// The path of an entry of this folder, for messages.
    public func child(_ name: String) -> String { path.hasSuffix("/") ? path + name : path + "/" + name }

    /// A relative path as its folder ("" for none) and its last name.
    public static func split(_ path: String) -> (folder: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return ("", path) }
        return (String(path[..<slash]), String(path[path.index(after: slash)...]))
    }
}

/// A temporary file written in a folder, not yet in place.
public struct PendingFile: Sendable {
    let folder: Folder
    let temporary: String
    /// The file's name in its folder.
    public let name: String

    /// Renames the temporary file into place.
    public func commit() throws {
        Fault.point("before-rename")
        if renameat(folder.fd, temporary, folder.fd, name) != 0 {
            let code = errno
            discard()
            throw SystemError("rename", path: folder.child(name), code: code)
        }
    }

    /// Removes the temporary file.
    public func discard() { unlinkat(folder.fd, temporary, 0) }
}
