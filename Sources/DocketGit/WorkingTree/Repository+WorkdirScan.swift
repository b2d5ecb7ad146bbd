import DocketCGit2
import DocketSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension Repository {
    /// The working tree's changes against `index` under `folders` (as
    /// `git_diff_index_to_workdir` finds them, untracked files included), one
    /// folder at a time on all cores; nil when the working tree holds
    /// something only libgit2's full status judges (a link where a folder of
    /// tracked files was, an index path git would refuse).
    ///
    /// NB: libgit2's diff stats every file twice on one thread and builds a
    /// string per path; at 100,000 items that was most of `docket status`.
    /// Like git, a file whose stat data matches its index entry is unchanged
    /// unless it changed in the same second as the index was written
    /// ("racily clean"); such a file, and one whose stat data differs, is
    /// hashed and compared. Each folder is listed once: its tracked files are
    /// stat'ed through it, and it holds an untracked file only when it lists
    /// more files than it has tracked ones; only then are names compared. A new
    /// file `alwaysTracked` accepts is listed without asking git's ignore rules.
    ///
    /// NB: libgit2's ignore check of one path looks for ignore files in each
    /// of its folders: about 11 system calls a file, most of the scan of a
    /// first commit of 100,000 items.
    ///
    /// With a `scope` (from a change monitor), only the folders it names are
    /// listed, and every other file is taken as its index entry says.
    func scanWorkdir(
        _ index: IndexFile, under folders: [String], alwaysTracked: (String) -> Bool,
        scope: ScanScope? = nil
    ) throws -> WorkdirScan? {
        let root = workdir!
        let rootFD = try systemCall("open", path: root) { Glibc.open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        defer { close(rootFD) }

        // The index entries under the folders, by the folder each is in (entries of one folder mostly follow each
        // other).
        let prefixes = folders.map { Array($0.utf8) + [UInt8(ascii: "/")] }
        var tracked: [IndexFile.Entry] = []
        tracked.reserveCapacity(index.entries.count)
        var groups: [[Int]] = []
        var groupOf: [String: Int] = [:]
        var current = -1
        var currentFolder: UnsafeRawBufferPointer?
        for entry in index.entries {
            let path = index.pathBytes(entry)
            guard prefixes.contains(where: { path.count > $0.count && memcmp(path.baseAddress!, $0, $0.count) == 0 })
            else { continue }
            // A submodule is for libgit2 to judge.
            guard let slash = Self.lastSlashOfPlainPath(path), index.mode(entry) != 0o160000 else { return nil }
            let parent = UnsafeRawBufferPointer(rebasing: path[..<slash])
            if currentFolder.map({
                $0.count != parent.count || memcmp($0.baseAddress!, parent.baseAddress!, parent.count) != 0
            }) ?? true {
                let name = String(decoding: parent, as: UTF8.self)
                current = groupOf[name] ?? groups.count
                if current == groups.count {
                    groupOf[name] = current
                    groups.append([])
                }
                currentFolder = parent
            }
            groups[current].append(tracked.count)
            tracked.append(entry)
        }
        let byFolder = groupOf.mapValues { groups[$0] }
        // Every folder under `folders`, a level at a time, each listed (or known unchanged) and its tracked files
        // stat'ed on all cores. A monitored scan lists only the folders the monitor names, and notes no listings.
        let seen = UnsafeMutableBufferPointer<Seen>.allocate(capacity: tracked.count)
        seen.initialize(repeating: .gone)
        defer { seen.deallocate() }
        let noted = scope == nil ? FolderListings.read(from: folderListingsPath) : FolderListings()
        let trustsMode = trustsFileMode
        let work = ScanWork(
            rootFD: rootFD, index: index, trustsMode: trustsMode, files: tracked, byFolder: byFolder,
            seen: UncheckedSendable(seen), listings: noted.folders, start: Date().timeIntervalSince1970)
        var visited = Set<String>()
        var untracked: [String] = []
        func isUnder(_ folder: String) -> Bool { folders.contains { folder == $0 || folder.hasPrefix($0 + "/") } }
        var listings = noted
        listings.folders = listings.folders.filter { !isUnder($0.key) }
        var queued = Set(scope.map { Array($0.folders) + $0.subtrees }?.filter(isUnder) ?? folders)
        var level = queued.sorted()
        while !level.isEmpty {
            let current = level
            let results = Parallel.map(current.count) { work.visit(current[$0]) }
            level = []
            for (folder, result) in zip(current, results) {
                guard let result else { continue }
                visited.insert(folder)
                listings.folders[folder] = result.listing
                // Within a scope, a folder's subfolders are listed only when it is new or moved.
                if scope?.coversWhole(folder) ?? true {
                    for name in result.subfolders where queued.insert(folder + "/" + name).inserted {
                        level.append(folder + "/" + name)
                    }
                }
                untracked += result.untracked.map { folder + "/" + $0 }
            }
        }
        // A folder of tracked files that was not listed is gone, unless something else (a link) stands in its place.
        for folder in byFolder.keys where !visited.contains(folder) {
            guard scope?.covers(folder) ?? true else {
                for i in byFolder[folder]! { seen[i] = .same }
                continue
            }
            var info = stat()
            if fstatat(rootFD, folder, &info, AT_SYMLINK_NOFOLLOW) == 0 { return nil }
        }

        if scope == nil && listings != noted { listings.write(to: folderListingsPath) }

        // A file git is told not to look at (assume-unchanged, skip-worktree: a sparse checkout leaves such files
        // out) is unchanged to git, whatever is in its place; so it is here, and it is never a removal.
        // In a sparse checkout git looks at a skip-worktree file that is there (git 2.37 and later).
        let looksAtPresent = looksAtPresentSkippedFiles
        for i in 0..<tracked.count where seen[i] != .same && index.isNotLookedAt(tracked[i]) {
            if looksAtPresent && seen[i] != .gone && index.onlySkipsWorktree(tracked[i]) { continue }
            seen[i] = .same
        }
        var changes: [StatusEntry] = []
        var stale: [String] = []
        let suspects = (0..<tracked.count).filter { seen[$0] != .same }
        // The folders a monitored status must list again next time: those holding a file that is not as its index entry
        // says.
        var dirty = Set(untracked.map(Self.folder(of:)))
        for i in suspects { dirty.insert(Self.folder(of: String(cString: index.path(tracked[i])))) }
        // NB: hashing through libgit2's filters looks up attributes, which reads libgit2's whole index
        // (about 70 ms at 100,000 items); when no filter can apply, the bytes are hashed as they are.
        let raw = try !suspects.isEmpty && !mayFilter(suspects.map { String(cString: index.path(tracked[$0])) })
        for i in suspects {
            let path = String(cString: index.path(tracked[i]))
            var info = stat()
            let present = seen[i] != .gone && fstatat(rootFD, path, &info, AT_SYMLINK_NOFOLLOW) == 0
            // An entry `git add -N` made is a new file while it is there, and nothing to commit once it is gone.
            if index.isIntentToAdd(tracked[i]) {
                if present { changes.append(StatusEntry(path: path, kind: .new)) }
                continue
            }
            if !present {
                changes.append(StatusEntry(path: path, kind: .deleted))
                continue
            }
            var id = git_oid()
            var expected = index.id(tracked[i]).oid
            // A link git tracks (Docket never follows one) is unchanged while it is a link to the same target.
            if index.mode(tracked[i]) == IndexFile.linkMode {
                if info.st_mode & S_IFMT != S_IFLNK || !Self.hashLink(path, in: rootFD, into: &id)
                    || git_oid_equal(&id, &expected) == 0
                {
                    changes.append(StatusEntry(path: path, kind: .modified))
                }
                continue
            }
            // A file too large to read whole is left to libgit2, which reads it a piece at a time.
            let hashed =
                raw && info.st_size <= 1 << 26
                ? Self.hashPlainFile(path, in: rootFD, into: &id)
                : info.st_mode & S_IFMT == S_IFREG
                    && git_repository_hashfile(&id, pointer, path, GIT_OBJECT_BLOB, nil) == 0
            let modeChanged =
                trustsMode && Self.recordedMode(info, old: nil, trustingMode: true) != index.mode(tracked[i])
            if info.st_mode & S_IFMT != S_IFREG || !hashed || git_oid_equal(&id, &expected) == 0 || modeChanged {
                changes.append(StatusEntry(path: path, kind: .modified))
            } else {
                stale.append(path)
            }
        }
        // Untracked files, unless ignored.
        for path in untracked {
            var ignored: Int32 = 0
            if !alwaysTracked(path), git_ignore_path_is_ignored(&ignored, pointer, path) == 0, ignored == 1 { continue }
            changes.append(StatusEntry(path: path, kind: .new))
        }
        return WorkdirScan(changes: changes.sorted { $0.path < $1.path }, stale: stale, dirtyFolders: dirty)
    }

    /// Where scans note the folders they found holding only tracked files (see `FolderListings`).
    var folderListingsPath: String { gitdir + "docket/folder-listings" }

    /// The folder part of a path ("" for one at the top).
    static func folder(of path: String) -> String {
        path.lastIndex(of: "/").map { String(path[..<$0]) } ?? ""
    }

    /// What reading a working-tree file whole found.
    enum PlainFileRead {
        /// Its bytes, and its stat data as taken before they were read.
        case read(Data, stat)
        /// Nothing there (or a file where a folder on its path should be).
        case missing
        /// Something else: a link, a folder, a file larger than the limit or one that changed size while read.
        case unreadable
    }

    /// The regular file at `path` under `rootFD`, read whole without following a link.
    static func readPlainFile(_ path: String, in rootFD: Int32, limit: Int = Int.max / 2) -> PlainFileRead {
        let fd = openat(rootFD, path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return errno == ENOENT || errno == ENOTDIR ? .missing : .unreadable }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size <= limit else { return .unreadable }
        let size = Int(info.st_size)
        guard let data = try? readAll(fd, limit: size, expected: size, path: path), data.count == size else {
            return .unreadable
        }
        return .read(data, info)
    }

    /// The blob id of the regular file at `path` (never through a link), its bytes as they are; false when it cannot be
    /// read.
    static func hashPlainFile(_ path: String, in rootFD: Int32, into id: inout git_oid) -> Bool {
        guard case let .read(data, _) = readPlainFile(path, in: rootFD) else { return false }
        return data.withUnsafeBytes { git_odb_hash(&id, $0.baseAddress, $0.count, GIT_OBJECT_BLOB) } == 0
    }

    /// The blob id of the target of the link at `path` under `rootFD`, as git stores a link; false when it is no link.
    static func hashLink(_ path: String, in rootFD: Int32, into id: inout git_oid) -> Bool {
        var target = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlinkat(rootFD, path, &target, target.count)
        guard length >= 0, length < target.count else { return false }
        return git_odb_hash(&id, target, length, GIT_OBJECT_BLOB) == 0
    }

    /// Where the last `/` of an index path is, when the path is one git writes in
    /// a working tree (no empty, `.`, `..` or `.git` part); nil for any other.
    static func lastSlashOfPlainPath(_ path: UnsafeRawBufferPointer) -> Int? {
        guard let base = path.baseAddress else { return nil }
        var start = 0
        var last: Int?
        // One part at a time, from slash to slash (memchr: this runs for every index entry).
        while true {
            let end =
                memchr(base + start, Int32(UInt8(ascii: "/")), path.count - start).map { UnsafeRawPointer($0) - base }
                ?? path.count
            let length = end - start
            let part = base + start
            let dot = UInt8(ascii: ".")
            func byte(_ i: Int) -> UInt8 { part.load(fromByteOffset: i, as: UInt8.self) }
            if length == 0 || (length == 1 && byte(0) == dot) || (length == 2 && byte(0) == dot && byte(1) == dot) {
                return nil
            }
            if length == 4, byte(0) == dot, byte(1) | 0x20 == UInt8(ascii: "g"), byte(2) | 0x20 == UInt8(ascii: "i"),
                byte(3) | 0x20 == UInt8(ascii: "t")
            {
                return nil
            }
            if end == path.count { return last }
            last = end
            start = end + 1
        }
    }
}

/// What a scan of the working tree found.
struct WorkdirScan {
    /// The changes against the index.
    var changes: [StatusEntry]
    /// The files found unchanged although their stat data no longer matches their entries (`StatusReport.stale`).
    var stale: [String] = []
    /// The folders holding a file not as its index entry says (changed, gone, racily clean, untracked or ignored).
    var dirtyFolders: Set<String>
}

/// Where a scan looks, when a change monitor has said where changes can be.
struct ScanScope {
    /// Folders whose own entries are listed.
    var folders: Set<String>
    /// Folders listed with everything under them (made, moved or removed since).
    var subtrees: [String]

    /// Whether `folder` is listed whole, with its subfolders.
    func coversWhole(_ folder: String) -> Bool { subtrees.contains { folder == $0 || folder.hasPrefix($0 + "/") } }
    /// Whether `folder`'s entries are listed.
    func covers(_ folder: String) -> Bool { folders.contains(folder) || coversWhole(folder) }
}

/// What a file's stat data says against its index entry.
enum Seen: Sendable { case same, differs, gone }

/// What one scan's threads share: read only, but for `seen`, of which each thread writes the slots of its own folders'
/// files.
struct ScanWork: @unchecked Sendable {
    let rootFD: Int32
    let index: IndexFile
    /// `core.filemode`: whether a changed executable bit is a change.
    let trustsMode: Bool
    let files: [IndexFile.Entry]
    /// The positions in `files` of each folder's tracked files.
    let byFolder: [String: [Int]]
    let seen: UncheckedSendable<UnsafeMutableBufferPointer<Seen>>
    /// The folders noted by an earlier scan as holding only their tracked files.
    let listings: [String: FolderListings.Listing]
    /// When this scan started, in seconds since 1970.
    let start: Double

    /// What listing one folder found.
    struct Visit {
        var subfolders: [String] = []
        var untracked: [String] = []
        /// What to note of the folder for the next scan: nil when it is not to be trusted unlisted.
        var listing: FolderListings.Listing?
    }

    /// Lists `folder` (unless noted unchanged since an earlier listing),
    /// judges its tracked files by their stat data, and names its untracked
    /// files; nil when it cannot be opened as a folder.
    func visit(_ folder: String) -> Visit? {
        let fd = openat(rootFD, folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        // The folder's own stat data, taken before its names are read: a name added after the listing changes it.
        var own = stat()
        guard fstat(fd, &own) == 0 else {
            close(fd)
            return nil
        }
        let listed = byFolder[folder] ?? []
        // Unchanged since it was listed holding only tracked files, and holding as many of them: the same names.
        if let known = listings[folder], known.isSame(own), statTracked(listed, in: fd) == known.files {
            close(fd)
            return Visit(subfolders: known.subfolders, listing: known)
        }
        guard let stream = fdopendir(fd) else {
            close(fd)
            return nil
        }
        defer { closedir(stream) }
        var visit = Visit()
        var listedFiles = 0
        forEachName(stream) { name, isFolder in
            if isFolder { visit.subfolders.append(String(cString: name)) } else { listedFiles += 1 }
        }
        let present = statTracked(listed, in: fd)
        // Every file here is a tracked one: nothing untracked. Else compare names.
        guard listedFiles > present else {
            if FolderListings.Listing.isSettled(own, listedAfter: start) {
                visit.listing = FolderListings.Listing(own, files: listedFiles, subfolders: visit.subfolders)
            }
            return visit
        }
        let known = Set(
            listed.map { i in
                let path = String(cString: index.path(files[i]))
                return String(path[path.index(after: path.lastIndex(of: "/")!)...])
            })
        rewinddir(stream)
        forEachName(stream) { name, isFolder in
            let name = String(cString: name)
            if !isFolder && !known.contains(name) { visit.untracked.append(name) }
        }
        return visit
    }

    /// Judges the tracked files at these positions, all in the folder open
    /// as `fd`, by their stat data; how many of them are there and not folders.
    private func statTracked(_ positions: [Int], in fd: Int32) -> Int {
        var present = 0
        for i in positions {
            let entry = files[i]
            let name = index.path(entry) + index.pathBytes(entry).lastIndex(of: UInt8(ascii: "/"))! + 1
            var info = stat()
            guard fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
                seen.value[i] = .gone
                continue
            }
            if info.st_mode & S_IFMT != S_IFDIR { present += 1 }
            // Racy in whole seconds, as git judges: an entry Docket trusts here, git must be able to trust too.
            seen.value[i] =
                index.matches(entry, info, trustingMode: trustsMode)
                    && !index.isRacy(modifiedIn: Int64(info.st_mtim.tv_sec)) ? .same : .differs
        }
        return present
    }

    /// Calls `body` with each name in a folder's listing but `.` and `..`, and whether it is a folder (not a link to
    /// one).
    private func forEachName(_ stream: OpaquePointer, _ body: (UnsafePointer<CChar>, Bool) -> Void) {
        let fd = dirfd(stream)
        while let item = readdir(stream) {
            withUnsafeBytes(of: item.pointee.d_name) { raw in
                let name = raw.bindMemory(to: CChar.self).baseAddress!
                if name[0] == 46 && (name[1] == 0 || (name[1] == 46 && name[2] == 0)) { return }
                var isFolder = item.pointee.d_type == DT_DIR
                if item.pointee.d_type == DT_UNKNOWN {
                    var info = stat()
                    isFolder = fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 && info.st_mode & S_IFMT == S_IFDIR
                }
                body(name, isFolder)
            }
        }
    }
}
