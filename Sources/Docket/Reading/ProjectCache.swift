import DocketModel
import DocketSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Decoded project and task files kept between commands in
/// `.git/docket/projects.cache`, so that the day's view does not decode every
/// task's JSON (with its time slips) each time.
///
/// A source for the store's reader: the files stay the truth, as with
/// `TodoCache`. A file's item is taken from the cache only while its stat data
/// is as it was cached; any other file is read through the source it wraps,
/// which reads it (or says why not) as without a cache. A file changed within
/// the last tick of the file system's clock is not cached, nor one shown as
/// last committed. A cache that is missing, damaged, or written for other
/// fields is ignored and rebuilt.
final class ProjectCache: ItemSource {
    struct Entry {
        let fingerprint: TodoCache.Fingerprint
        let item: StoredItem
    }

    static let format = CacheFormat(
        magic: Array("DKPC".utf8), version: 2,
        schema: [
            Project.fields.map(\.key), ProjectTask.fields.map(\.key), TimeSlip.fields.map(\.key),
            Note.fields.map(\.key),
        ]
        .map { $0.joined(separator: ",") }.joined(separator: ";"))

    let source: LastCommittedWhenConflicted
    private let root: String
    private let file: String
    private let old: [String: Entry]
    private var kept: [String: Entry] = [:]
    private var changed = false
    private let now = Date()

    /// Reads the cache in `file`, for the working tree at `root` that `source` reads.
    init(_ source: LastCommittedWhenConflicted, root: String, file: String) {
        self.source = source
        self.root = root
        self.file = file
        old = ProjectCache.read(from: file)
    }

    func files(under folder: String) throws -> [String] { try source.files(under: folder) }

    func read(_ path: String) throws -> Data { try source.read(path) }

    func decoded(_ path: String, as item: StoreLayout.Item) throws -> StoredItem {
        var info = stat()
        let fingerprint =
            lstat(root + "/" + path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG ? TodoCache.Fingerprint(info) : nil
        if let fingerprint, let entry = old[path], entry.fingerprint == fingerprint {
            kept[path] = entry
            return entry.item
        }
        changed = true
        let stored = try source.decoded(path, as: item)
        if let fingerprint, !fingerprint.isFresh(now: now), source.shownAsCommitted.last != path {
            switch stored {
            case .project, .task: kept[path] = Entry(fingerprint: fingerprint, item: stored)
            default: break
            }
        }
        return stored
    }

    /// The stat data of each project and task file whose item this cache now holds, by store path.
    var fingerprints: [String: TodoCache.Fingerprint] { kept.mapValues(\.fingerprint) }

    /// Writes the cache again when anything read differed from it.
    func save() {
        guard changed || kept.count != old.count else { return }
        ProjectCache.format.write(kept, to: file, bytesEach: 400, fingerprint: \.fingerprint) { entry, writer in
            switch entry.item {
            case let .project(project, position):
                writer.integer(UInt8(0))
                project.write(to: &writer)
                position.write(to: &writer)
            case let .task(task, project, position):
                writer.integer(UInt8(1))
                task.write(to: &writer)
                project.write(to: &writer)
                position.write(to: &writer)
            default:
                // Only projects and tasks are kept (`decoded`).
                preconditionFailure("a project cache holds projects and tasks only")
            }
        }
    }

    /// The entries in `file`; none when there is none or it cannot be trusted.
    private static func read(from file: String) -> [String: Entry] {
        format.read(from: file) { fingerprint, reader in
            switch try reader.integer(UInt8.self) {
            case 0:
                Entry(
                    fingerprint: fingerprint,
                    item: .project(try Project.read(from: &reader), position: try Int?.read(from: &reader)))
            case 1:
                Entry(
                    fingerprint: fingerprint,
                    item: .task(
                        try ProjectTask.read(from: &reader), project: try UUID.read(from: &reader),
                        position: try Int?.read(from: &reader)))
            default:
                throw StoredItem.Unreadable(reason: "not a project or a task")
            }
        } ?? [:]
    }
}

extension Store {
    /// Where the project cache lives: inside the git folder, never in the working tree.
    var projectCacheFile: String { gitdir + "docket/projects.cache" }
}
