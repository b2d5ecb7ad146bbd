import DocketCGit2
import DocketSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

// A clone's first checkout, written by Docket on all cores.
//
// NB: libgit2's checkout reads each blob again (the clone's check has just
// read the store's files), streams it through its filter machinery, adds the
// file to an index table and writes that table: at 10,000 items a third of a
// clone, on one core. Into an empty working tree, with no filter to apply,
// a checkout is only this: make the folders, write each file as its blob
// holds it, and write an index of the files' stat data.
extension Repository {
    /// Writes every file of `commit` into the working tree, which must hold
    /// nothing but `.git`, and an index holding its tree (with git's tree
    /// cache), noted as the one Docket wrote; `contents` are blobs already
    /// read, by id (the others are read here, on all cores). False, with nothing written, when libgit2 is to do it:
    /// the tree holds a link, a submodule or an executable file, an attribute
    /// or a setting may ask for a filter, or something is already in the working tree.
    public func checkoutIntoEmpty(
        _ commit: ObjectID, contents known: [ObjectID: Data] = [:], progress: ProgressThrottle? = nil
    ) throws -> Bool {
        guard let workdir else { return false }
        let tree = try tree(ofCommit: commit)
        var files: [(path: [UInt8], id: ObjectID)]
        do {
            let entries = try entries(inTree: tree)
            guard entries.values.allSatisfy({ $0.mode == .file }), try !mayFilter([]),
                try !attributesMayFilter(inTree: tree)
            else { return false }
            files = entries.map { (Array($0.key.utf8), $0.value.id) }
        }
        let root = try Folder.open(workdir)
        guard try root.allEntries() == [".git"] else { return false }
        // In the index's order: by the bytes of each path.
        files.sort { a, b in a.path.withUnsafeBytes { x in b.path.withUnsafeBytes { IndexFile.compare(x, $0) < 0 } } }
        var folders = Set<Substring>()
        for file in files {
            var folder = Folder.split(String(decoding: file.path, as: UTF8.self)).folder[...]
            while !folder.isEmpty, folders.insert(folder).inserted {
                folder = folder[..<(folder.lastIndex(of: "/") ?? folder.startIndex)]
            }
        }
        for folder in folders.sorted() { _ = try root.makeFolder(String(folder)) }

        let count = files.count
        let parts = Parallel.parts
        let size = (count + parts - 1) / parts
        let done = SharedCount()
        let gitdir = self.gitdir
        let shared = UncheckedSendable((files, known, progress))
        let written = Parallel.map(parts) { part -> UncheckedSendable<Result<[IndexFile.Change], Error>> in
            let (files, known, progress) = shared.value
            let range = min(count, part * size)..<min(count, (part + 1) * size)
            return UncheckedSendable(
                Result {
                    guard !range.isEmpty else { return [] }
                    // One libgit2 repository must not be read from two threads at once: a part reads what is not given
                    // through its own.
                    var own: Repository?
                    func blob(_ id: ObjectID) throws -> Data {
                        if let data = known[id] { return data }
                        if own == nil { own = try Repository.open(at: gitdir) }
                        return try own!.blob(id)
                    }
                    var changes: [IndexFile.Change] = []
                    changes.reserveCapacity(range.count)
                    var open: (name: String, folder: Folder)?
                    for i in range {
                        let (folderName, name) = Folder.split(String(decoding: files[i].path, as: UTF8.self))
                        if open?.name != folderName {
                            guard let folder = try root.folder(folderName) else { throw FileProblem.missing }
                            open = (folderName, folder)
                        }
                        let info = try Self.writeNewFile(name, in: open!.folder, try blob(files[i].id))
                        if i == range.lowerBound { Fault.point("mid-checkout") }
                        changes.append(IndexFile.Change(path: files[i].path, id: files[i].id, info: info))
                        let seen = i - range.lowerBound + 1
                        if let progress, progress.isListening, seen % 256 == 0 || i == range.upperBound - 1 {
                            progress.report(
                                TransferProgress(
                                    stage: .writing, objectsDone: done.add(seen % 256 == 0 ? 256 : seen % 256),
                                    objectsTotal: count))
                        }
                    }
                    return changes
                })
        }
        files = []
        var changes: [IndexFile.Change] = []
        changes.reserveCapacity(count)
        for part in written { changes += try part.value.get() }

        // An empty index holds no extension `updated` would refuse.
        let index = IndexFile.empty().updated(changes, making: tree, holdsBlob: { _ in false })!
        // Nothing but this clone knows the repository yet: a lock or an index can only be a fault.
        guard try placeIndex(index, replacing: nil) else {
            throw SystemError("open", path: gitdir + "index.lock", code: EEXIST)
        }
        note(checksum: ObjectID(bytes: Array(index.bytes.suffix(20))), tree: tree)
        return true
    }

    /// Makes the file `name` in `folder` (it must not be there) holding `data`, as git makes it; returns its stat data.
    private static func writeNewFile(_ name: String, in folder: Folder, _ data: Data) throws -> stat {
        let fd = try systemCall("open", path: folder.child(name)) {
            Glibc.openat(folder.fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
        }
        defer { close(fd) }
        try data.withUnsafeBytes { try writeAll(fd, $0, path: folder.child(name)) }
        var info = stat()
        try systemCall("stat", path: folder.child(name)) { fstat(fd, &info) }
        return info
    }
}
