import DocketCGit2
import DocketSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension Repository {
    /// How many files a commit may stage without libgit2's index.
    static let ownStageLimit = 10_000

    /// A commit's staging without libgit2's index: each file read once (its
    /// stat data taken before it is read), its blob written (all in one pack
    /// from 100 files), the tree built from HEAD's, and the index written as a
    /// pull writes it. Nil, with the index unchanged, when it is not for this
    /// path: the index is not the one Docket noted as holding HEAD's tree, a
    /// filter (line endings, `ident`, a filter driver) could apply, or a file
    /// is not a plain one (or is over 64 MiB).
    ///
    /// NB: libgit2 reads the whole index to stage one file and writes it whole:
    /// at 100,000 items about 110 ms of a commit of 10. From `ownStageLimit`
    /// files on, most of the index is new anyway, and libgit2 holds each
    /// entry in less memory than the path, id and stat data kept here (a first
    /// commit of 100,000 peaked at 229 MiB this way, 175 through libgit2).
    func stageInOwnIndex(_ paths: [String], refreshing stale: [String]) throws -> ObjectID? {
        let staged = Set(paths)
        let refreshed = stale.filter { !staged.contains($0) }
        guard paths.count + refreshed.count < Self.ownStageLimit, let own = try notedIndexHoldingHead(),
            let head = try head(),
            !(try mayFilter(paths + refreshed))
        else { return nil }
        // Many files are read on all cores and written as one pack; a file it leaves out goes to libgit2 with the rest.
        var packed: [String: WrittenBlob] = [:]
        if paths.count >= Self.packLimit {
            let present = presentInWorkdir(paths)
            for (path, blob) in zip(present, try writeBlobsAsPack(present, mayFilter: false)) {
                guard let blob else { return nil }
                packed[path] = blob
            }
        }
        let baseline = try tree(ofCommit: head)
        var odb: OpaquePointer?
        try check(git_repository_odb(&odb, pointer), "git_repository_odb")
        defer { git_odb_free(odb) }
        let rootFD = try systemCall("open", path: workdir!) { Glibc.open(workdir!, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        defer { close(rootFD) }

        var changes: [(path: String, id: ObjectID?, info: stat?)] = []
        var updates: [TreeUpdate] = []
        let trustsMode = trustsFileMode
        for (path, isStale) in paths.map({ ($0, false) }) + refreshed.map({ ($0, true) }) {
            let old = own.file.entry(at: path).map(own.file.mode)
            if let blob = packed[path] {
                changes.append((path, ObjectID(blob.id), blob.info))
                updates.append(
                    TreeUpdate(
                        path: path, id: blob.id, mode: Self.recordedMode(blob.info, old: old, trustingMode: trustsMode))
                )
                continue
            }
            let data: Data
            let info: stat
            switch Self.readPlainFile(path, in: rootFD, limit: 1 << 26) {
            case let .read(bytes, status): (data, info) = (bytes, status)
            case .missing where !isStale:
                changes.append((path, nil, nil))
                updates.append(TreeUpdate(path: path, id: nil, mode: 0))
                continue
            case .missing, .unreadable: return nil
            }
            var id = git_oid()
            try data.withUnsafeBytes { bytes in
                _ = try check(git_odb_write(&id, odb, bytes.baseAddress, bytes.count, GIT_OBJECT_BLOB), "git_odb_write")
            }
            let mode = Self.recordedMode(info, old: old, trustingMode: trustsMode)
            changes.append((path, ObjectID(id), info))
            // A file refreshed for its stat data goes into the tree only when it changed since the status.
            if isStale, let entry = try entry(inTree: baseline, at: path), entry.id == ObjectID(id),
                entry.mode == (mode == 0o100755 ? .executable : .file)
            {
                continue
            }
            updates.append(TreeUpdate(path: path, id: id, mode: mode))
        }
        var tree = git_oid()
        try updateTree(baseline, with: updates, into: &tree)
        guard try writeIndex(own, changes: changes, noting: nil, holding: ObjectID(tree)) else { return nil }
        return ObjectID(tree)
    }
}
