import DocketCGit2
import DocketSystem
import Foundation

/// References a fetch takes beside a branch: every one under `prefix` on the remote (`refs/docket/writers/`), kept
/// under the same names under `local` here, which first loses what it held, so one the remote no longer has goes
/// here too.
public struct MirroredReferences: Hashable, Sendable {
    /// Where the references are on the remote, ending in '/'.
    public let prefix: String
    /// Where this repository keeps them, ending in '/'.
    public let local: String

    /// References under `prefix` on the remote, kept under `local`.
    public init(prefix: String, local: String) {
        self.prefix = prefix
        self.local = local
    }

    /// The forced refspec that fetches them.
    var refspec: String { "+\(prefix)*:\(local)*" }
}

extension Repository {
    /// Deletes the references a mirror keeps, before a fetch brings back those the remote still has.
    func emptyMirror(_ mirror: MirroredReferences) throws {
        for (reference, _) in try references(startingWith: mirror.local) { try deleteReference(reference) }
    }

    /// Fetches a mirror's references alone, through libgit2 whatever the remote (Docket's folder copier takes
    /// branches only), leaving FETCH_HEAD to name what the branch's fetch brought.
    func fetch(_ mirror: MirroredReferences, from remote: OpaquePointer, context: TransferContext) throws {
        // NB: libgit2 empties FETCH_HEAD even when told not to write it, so it is put back.
        let fetchHead = URL(fileURLWithPath: gitdir + "FETCH_HEAD")
        let kept = try? Data(contentsOf: fetchHead)
        defer {
            if let kept, (try? Data(contentsOf: fetchHead)) != kept { try? kept.write(to: fetchHead, options: .atomic) }
        }
        try fetch(
            [mirror.refspec], from: remote, tags: false, fetchHead: false, context: context,
            message: "docket: fetch writers")
    }

    /// Takes a mirror's references out of FETCH_HEAD after a fetch that brought them beside the branch, which
    /// FETCH_HEAD names alone, as `git pull` would have it.
    func dropFromFetchHead(_ mirror: MirroredReferences) throws {
        let path = gitdir + "FETCH_HEAD"
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path)) else { return }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true)
        let kept = lines.filter { !$0.contains("\t'\(mirror.prefix)") }
        guard kept.count != lines.count else { return }
        try AtomicFile.write(Data(kept.map { $0 + "\n" }.joined().utf8), to: path, durable: false)
    }

    /// Pushes one refspec through libgit2 (a writer's own reference, or `:<reference>` to delete it), failing as a
    /// branch's push fails.
    public func pushReference(remote name: String, refspec: String, reference: String, options: TransferOptions)
        throws
    {
        try push(remote: name, refspec: refspec, reference: reference, options: options)
    }

    /// Deletes a reference; nothing when there is none.
    public func deleteReference(_ name: String) throws {
        var found: OpaquePointer?
        let code = git_reference_lookup(&found, pointer, name)
        if code == GIT_ENOTFOUND.rawValue { return }
        try check(code, "git_reference_lookup")
        defer { git_reference_free(found) }
        try check(git_reference_delete(found), "git_reference_delete")
    }
}
