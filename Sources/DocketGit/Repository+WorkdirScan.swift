import CGit2
import DocketSystem
import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension Repository {
    /// The working tree's changes against the index under `folders` (as
    /// `git_diff_index_to_workdir` finds them, untracked files included),
    /// checking each tracked file's stat data on several threads.
    ///
    /// NB: libgit2's diff stats every file twice on one thread and builds a
    /// string per path; at 100,000 items that was most of `docket status`.
    /// Like git, a file whose stat data matches its index entry is unchanged
    /// unless it changed in the same clock tick as the index was written
    /// ("racily clean"); such a file, and one whose stat data differs, is
    /// hashed and compared. A folder holding as many files as the index lists
    /// in it, all of them present, has no untracked file; only other folders'
    /// names are compared. A new file `alwaysTracked` accepts is listed
    /// without asking git's ignore rules.
    ///
    /// NB: libgit2's ignore check of one path looks for ignore files in each
    /// of its folders: about 11 system calls a file, most of the scan of a
    /// first commit of 100,000 items.
    func scanWorkdir(_ index: OpaquePointer, under folders: [String], alwaysTracked: (String) -> Bool) throws -> [StatusEntry] {
        let root = workdir!
        let rootFD = try systemCall("open", path: root) { Glibc.open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        defer { close(rootFD) }
        var indexInfo = stat()
        let indexTime = lstat(gitdir + "index", &indexInfo) == 0
            ? (Int64(indexInfo.st_mtim.tv_sec), Int64(indexInfo.st_mtim.tv_nsec)) : (Int64.max, Int64.max)

        // The index entries under the folders, and which folder each is in.
        let prefixes = folders.map { Array(($0 + "/").utf8CString.dropLast()) }
        var tracked: [git_index_entry] = []
        var byFolder: [String: [Int]] = [:]
        for i in 0..<git_index_entrycount(index) {
            guard let entry = git_index_get_byindex(index, i)?.pointee, let path = entry.path else { continue }
            guard prefixes.contains(where: { strncmp(path, $0, $0.count) == 0 }) else { continue }
            let slash = strrchr(path, Int32(UInt8(ascii: "/")))!
            let folder = String(decoding: UnsafeRawBufferPointer(start: path, count: path.distance(to: slash)), as: UTF8.self)
            byFolder[folder, default: []].append(tracked.count)
            tracked.append(entry)
        }

        // Stat every tracked file, on all cores.
        let work = ScanWork(rootFD: rootFD, files: tracked, indexTime: indexTime)
        let seen = Parallel.map(tracked.count) { work.check($0) }

        var changes: [StatusEntry] = []
        var gone = Set<String>()
        for i in 0..<tracked.count where seen[i] != .same {
            let path = String(cString: tracked[i].path)
            var info = stat()
            if seen[i] == .gone || fstatat(rootFD, tracked[i].path, &info, AT_SYMLINK_NOFOLLOW) != 0 {
                changes.append(StatusEntry(path: path, kind: .deleted))
                gone.insert(String(path[..<path.lastIndex(of: "/")!]))
                continue
            }
            var id = git_oid(), expected = tracked[i].id
            if info.st_mode & S_IFMT != S_IFREG || git_repository_hashfile(&id, pointer, path, GIT_OBJECT_BLOB, nil) != 0
                || git_oid_equal(&id, &expected) == 0 {
                changes.append(StatusEntry(path: path, kind: .modified))
            }
        }

        // Untracked files, unless ignored.
        func walk(_ relative: String) {
            guard let folder = opendir(root + relative) else { return }
            defer { closedir(folder) }
            var files = 0
            let listed = byFolder[relative] ?? []
            var candidates: [String] = []
            while let item = readdir(folder) {
                let isDot = withUnsafeBytes(of: item.pointee.d_name) { name in
                    name[0] == UInt8(ascii: ".") && (name[1] == 0 || (name[1] == UInt8(ascii: ".") && name[2] == 0))
                }
                if isDot { continue }
                var isFolder = item.pointee.d_type == DT_DIR
                let name = withUnsafeBytes(of: item.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
                if item.pointee.d_type == DT_UNKNOWN {
                    var info = stat()
                    isFolder = lstat(root + relative + "/" + name, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
                }
                if isFolder {
                    walk(relative + "/" + name)
                } else {
                    files += 1
                    candidates.append(name)
                }
            }
            // Every listed file is present and there are no others: nothing untracked here.
            if files == listed.count && !gone.contains(relative) { return }
            let known = Set(listed.map { i in
                let path = String(cString: tracked[i].path)
                return String(path[path.index(after: path.lastIndex(of: "/")!)...])
            })
            for name in candidates where !known.contains(name) {
                let path = relative + "/" + name
                var ignored: Int32 = 0
                if !alwaysTracked(path), git_ignore_path_is_ignored(&ignored, pointer, path) == 0, ignored == 1 { continue }
                changes.append(StatusEntry(path: path, kind: .new))
            }
        }
        for folder in folders { walk(folder) }
        return changes.sorted { $0.path < $1.path }
    }
}

/// What a file's stat data says against its index entry.
enum Seen: Sendable { case same, differs, gone }

/// What one scan's threads share, read only: the index entries hold C pointers into the index, which outlives the scan.
struct ScanWork: @unchecked Sendable {
    let rootFD: Int32
    let files: [git_index_entry]
    let indexTime: (Int64, Int64)

    func check(_ i: Int) -> Seen {
        let entry = files[i]
        var info = stat()
        guard fstatat(rootFD, entry.path, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return .gone }
        let mtime = (Int64(info.st_mtim.tv_sec), Int64(info.st_mtim.tv_nsec))
        let racy = mtime.0 > indexTime.0 || (mtime.0 == indexTime.0 && mtime.1 >= indexTime.1)
        let same = info.st_mode & S_IFMT == S_IFREG
            && (info.st_mode & 0o100 != 0) == (entry.mode == UInt32(GIT_FILEMODE_BLOB_EXECUTABLE.rawValue))
            && Int64(entry.mtime.seconds) == mtime.0 && Int64(entry.mtime.nanoseconds) == mtime.1
            && Int64(entry.ctime.seconds) == Int64(info.st_ctim.tv_sec)
            && Int64(entry.ctime.nanoseconds) == Int64(info.st_ctim.tv_nsec)
            && entry.ino == UInt32(truncatingIfNeeded: info.st_ino)
            && entry.file_size == UInt32(truncatingIfNeeded: info.st_size)
        return same && !racy ? .same : .differs
    }
}
