import DocketCGit2
import DocketSystem
import Foundation

/// What a push to a repository on this machine did itself.
enum FolderPush {
    /// The remote branch now names the commit.
    case pushed
    /// The branch already named it.
    case upToDate
    /// Not a case it takes: a new branch, a branch that does not fast-forward,
    /// a remote that is not bare or is shallow, or one where `git receive-pack`
    /// would do more (run a hook, check objects…). The push goes on as before:
    /// through `git receive-pack`, else libgit2, which say why when they cannot.
    case leftToGit
}

extension Repository {
    /// Pushes `local` to the branch `remoteReference` of the bare repository
    /// at `folder`, when that branch exists and the push fast-forwards it:
    /// writes the objects the remote lacks, flushes them to disk, then moves
    /// the branch only if it still names what it named when the push began.
    ///
    /// NB: libgit2's local transport pushes to a folder as to a server: it
    /// searches all new objects for deltas (a third of a push at 100,000
    /// items, among folder trees that share nothing), deflates them, and its
    /// indexer then inflates and hashes each again into the remote. What the
    /// remote lacks is known without a search (`objectsMissing`: what the new
    /// commits hold that the remote branch's tree does not, at the same
    /// path). They are read once and written as they are: one pack without
    /// deltas, as a commit's pack is, or loose files for fewer than 100, as
    /// `git receive-pack` does. That trusts the remote to hold its branch
    /// whole, as git does: checked once (`makeWhole`), then only what is new.
    ///
    /// Afterwards, as `git receive-pack` does (`receive.autogc`), `git gc
    /// --auto` tidies the remote when it holds many loose objects or packs.
    func pushToFolder(
        _ folder: String, local: ObjectID, remoteReference: String, git: String?, repairOnly: Bool = false,
        progress: @escaping (TransferProgress) -> Void = { _ in }, notice: (String) -> Void = { _ in }
    ) throws -> FolderPush {
        guard folder.hasPrefix("/"), !FileManager.default.fileExists(atPath: folder + "/shallow") else {
            return .leftToGit
        }
        var remotePointer: OpaquePointer?
        guard git_repository_open_ext(&remotePointer, folder, GIT_REPOSITORY_OPEN_NO_SEARCH.rawValue, nil) == 0,
            let remotePointer
        else { return .leftToGit }
        let remote = Repository(owning: remotePointer)
        guard git_repository_is_bare(remote.pointer) == 1, git_repository_is_shallow(remote.pointer) == 0,
            let receiving = ReceiveSettings(remote)
        else { return .leftToGit }
        var reference: OpaquePointer?
        guard git_reference_lookup(&reference, remote.pointer, remoteReference) == 0 else { return .leftToGit }
        defer { git_reference_free(reference) }
        guard git_reference_type(reference) == GIT_REFERENCE_DIRECT, let tip = ObjectID(git_reference_target(reference))
        else {
            return .leftToGit
        }
        guard exists(tip) else { return .leftToGit }
        // The branch is taken as whole on the remote, as git takes it: checked once, and repaired from here where it is
        // not.
        try remote.makeWhole(under: [tip], from: self, notedIn: self, as: remote.commonDir) { count in
            notice(
                "repaired \(folder): copied \(count) object\(count == 1 ? "" : "s") it lacked under its branches from this store"
            )
        }
        if tip == local || repairOnly { return .upToDate }
        var localOID = local.oid
        var tipOID = tip.oid
        guard git_graph_descendant_of(pointer, &localOID, &tipOID) == 1 else { return .leftToGit }
        try copyObjects(to: remote, upTo: [local], known: [tip], unpackLimit: receiving.unpackLimit) {
            done, total, bytes in
            progress(TransferProgress(stage: .sending, objectsDone: done, objectsTotal: total, bytes: bytes))
        }
        Fault.point("after-push-objects")
        var moved: OpaquePointer?
        defer { git_reference_free(moved) }
        try check(
            git_reference_create_matching(&moved, remote.pointer, remoteReference, &localOID, 1, &tipOID, "push"),
            "git_reference_create_matching")
        noteWhole([local], of: remote.commonDir)
        if let git, receiving.autoGC, remote.wantsGC() {
            _ = try? Spawn.run(
                [git, "gc", "--auto", "--quiet"], environment: ["GIT_DIR": nil, "GIT_WORK_TREE": nil],
                folder: remote.commonDir)
        }
        return .pushed
    }

    /// Whether `git gc --auto` would act: more loose objects than `gc.auto`
    /// (counted in one of the 256 folders, as git estimates them) or more packs
    /// than `gc.autoPackLimit`.
    private func wantsGC() -> Bool {
        let objects = commonDir + "objects/"
        let auto = (try? configInt("gc.auto")).flatMap { $0 } ?? 6_700
        if auto > 0 {
            let sample = ((try? FileManager.default.contentsOfDirectory(atPath: objects + "17")) ?? []).filter {
                $0.count == 38
            }
            if sample.count > (auto + 255) / 256 { return true }
        }
        let packLimit = (try? configInt("gc.autoPackLimit")).flatMap { $0 } ?? 50
        let packs = (try? FileManager.default.contentsOfDirectory(atPath: objects + "pack")) ?? []
        return packLimit > 0 && packs.filter { $0.hasSuffix(".pack") }.count > packLimit
    }
}

/// What `git receive-pack` would do at a remote beyond storing objects and
/// moving a branch; nil when it would do more than a folder push does.
private struct ReceiveSettings {
    /// Fewer objects than this are stored loose (`receive.unpackLimit`, `transfer.unpackLimit`, 100).
    let unpackLimit: Int
    /// Whether `git gc --auto` runs after a push (`receive.autogc`).
    let autoGC: Bool

    /// The hooks `git receive-pack` runs.
    private static let hooks = [
        "pre-receive", "update", "proc-receive", "post-receive", "post-update", "reference-transaction",
        "push-to-checkout",
    ]

    init?(_ remote: Repository) {
        do {
            if try remote.configBool("receive.fsckObjects") ?? remote.configBool("transfer.fsckObjects") ?? false {
                return nil
            }
            if try remote.configBool("receive.updateServerInfo") ?? false { return nil }
            // A size limit, or branches hidden from pushes, are receive-pack's to enforce.
            for name in ["receive.maxInputSize", "receive.hideRefs", "transfer.hideRefs"]
            where try remote.configString(name) != nil { return nil }
            if let shared = try remote.configString("core.sharedRepository"),
                !["false", "umask", "no", "off", "0"].contains(shared.lowercased())
            {
                return nil
            }
            let hooks =
                try remote.configString("core.hooksPath").map { path in
                    Home.expand(path).hasPrefix("/") ? Home.expand(path) : remote.commonDir + path
                } ?? remote.commonDir + "hooks"
            if Self.hooks.contains(where: { access(hooks + "/" + $0, X_OK) == 0 }) { return nil }
            unpackLimit = try remote.configInt("receive.unpackLimit") ?? remote.configInt("transfer.unpackLimit") ?? 100
            autoGC = try remote.configBool("receive.autogc") ?? true
        } catch {
            // A setting git would read differently, or fail on: git says what it makes of it.
            return nil
        }
    }
}
