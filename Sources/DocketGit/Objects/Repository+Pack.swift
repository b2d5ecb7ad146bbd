import DocketCGit2
import DocketCPackFile
import DocketSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension Repository {
    /// About how many loose objects the repository holds, estimated from one
    /// of its 256 object folders as `git gc --auto` does.
    public func estimatedLooseObjects() -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: commonDir + "objects/17")) ?? []
        return names.filter { $0.count == 38 }.count * 256
    }

    /// Packs every loose object into one new pack file and removes the loose
    /// copies (`git repack -d` of loose objects, then `git prune-packed`);
    /// returns how many objects it packed. Temporary object files that a
    /// killed writer left (`tmp_obj_*`, git's or docket's) go too, once stale.
    ///
    /// NB: libgit2 never packs by itself. Each commit leaves a few loose
    /// files per changed item, and a folder of tens of thousands of them
    /// slows every object lookup and makes clones and backups crawl.
    @discardableResult
    public func packLooseObjects() throws -> Int {
        let objects = commonDir + "objects/"
        let folders = (0..<256).map { String(format: "%02x", $0) }
        var loose: [(id: ObjectID, path: String)] = []
        let temporaryPrefix = DOCKET_UNFLUSHED_TEMPORARY_PREFIX
        TemporaryFiles.removeStale(in: objects, prefix: temporaryPrefix, namingWriter: false)
        for folder in folders {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: objects + folder)) ?? []
            for name in names where name.count == 38 {
                if let id = ObjectID(hex: folder + name) { loose.append((id, objects + folder + "/" + name)) }
            }
            // NB: where git, and docket before it wrote them in the objects folder, make them.
            if names.contains(where: { $0.hasPrefix(temporaryPrefix) }) {
                TemporaryFiles.removeStale(in: objects + folder + "/", prefix: temporaryPrefix, namingWriter: false)
            }
        }
        guard !loose.isEmpty else { return 0 }
        var builder: OpaquePointer?
        try check(git_packbuilder_new(&builder, pointer), "git_packbuilder_new")
        defer { git_packbuilder_free(builder) }
        _ = git_packbuilder_set_threads(builder, 0)
        for object in loose {
            var oid = object.id.oid
            try check(git_packbuilder_insert(builder, &oid, nil), "git_packbuilder_insert")
        }
        // The pack and its index are complete (and synced) before any loose copy goes.
        try check(git_packbuilder_write(builder, nil, 0, nil, nil), "git_packbuilder_write")
        for object in loose { unlink(object.path) }
        for folder in folders { rmdir(objects + folder) } // only when emptied, as git leaves it
        return loose.count
    }
}
