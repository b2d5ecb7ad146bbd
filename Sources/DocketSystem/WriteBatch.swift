import DocketCSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Many files written atomically under one folder with one flush to disk
/// instead of one per file: each goes to a temporary file beside its place,
/// then all are flushed, then each is renamed into place. Folders on the way
/// are reached as `Folder` reaches them, never through a link.
///
/// NB: an fsync per file costs about 1 ms, so writing 100,000 items took
/// 140 s; past a few files, one `syncfs` of the file system is far cheaper
/// and just as durable. Files are kept by folder path, not by open folder,
/// so a batch of any size holds only one folder open at a time.
public final class WriteBatch {
    private let root: Folder
    private var pending: [(folder: String, temporary: String, name: String)] = []
    private var current: (path: String, folder: Folder)?

    /// An empty batch of files under `root`.
    public init(root: Folder) {
        self.root = root
    }

    /// Whether nothing was added.
    public var isEmpty: Bool { pending.isEmpty }

    /// Writes `data` to a temporary file beside `path` (relative to the root),
    /// making its folders when needed; `commit` puts it in place.
    public func add(_ data: Data, at path: String) throws {
        let (folderPath, name) = Folder.split(path)
        do {
            let folder = try self.folder(folderPath, making: true)!
            let file = try folder.prepare(data, for: name, durable: false)
            pending.append((folderPath, file.temporary, name))
        } catch {
            discard()
            throw error
        }
    }

    /// Flushes every temporary file to disk, then renames each into place.
    public func commit() throws {
        defer {
            pending = []
            current = nil
        }
        guard !pending.isEmpty else { return }
        do {
            if pending.count <= 8 {
                for file in pending {
                    guard let folder = try folder(file.folder, making: false) else { throw FileProblem.missing }
                    let fd = try systemCall("open", path: folder.child(file.temporary)) {
                        openat(folder.fd, file.temporary, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
                    }
                    defer { close(fd) }
                    try systemCall("fsync", path: folder.child(file.temporary)) { fsync(fd) }
                }
            } else {
                try root.flushFileSystem()
            }
        } catch {
            discard()
            throw error
        }
        for (index, file) in pending.enumerated() {
            do {
                guard let folder = try folder(file.folder, making: false) else { throw FileProblem.missing }
                try PendingFile(folder: folder, temporary: file.temporary, name: file.name).commit()
                if index == pending.count / 2 { Fault.point("mid-batch") }
            } catch {
                discard(from: index + 1)
                throw error
            }
        }
    }

    /// Removes the temporary files of a batch that will not be committed.
    public func discard() {
        discard(from: 0)
        pending = []
        current = nil
    }

    private func discard(from start: Int) {
        guard start < pending.count else { return }
        for file in pending[start...] {
            if let folder = try? folder(file.folder, making: false) { unlinkat(folder.fd, file.temporary, 0) }
        }
    }

    /// The folder at `path`, the last one used kept open.
    private func folder(_ path: String, making: Bool) throws -> Folder? {
        if let current, current.path == path { return current.folder }
        guard let folder = making ? try root.makeFolder(path) : try root.folder(path) else { return nil }
        current = (path, folder)
        return folder
    }

    deinit { discard() }
}
