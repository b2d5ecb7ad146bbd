import DocketGit
import Foundation

/// Many writers, one remote, and no sync that gives up because another pushed first.
///
/// A sync pushes to the shared branch when it can. When another machine moved that branch in between, the sync does
/// not pull and try again: it publishes this machine's commits on a reference of its own on the remote,
/// `refs/docket/writers/<writer>`, which no other machine writes, so that push is always taken. Every pull and sync
/// fetches the writers' references and merges each it does not hold yet with Docket's rules (commutative and
/// symmetric, so every machine reaches the same files), and the next sync whose push to the shared branch wins
/// carries all of it there, for plain `git clone` and `git pull` users too. A writer's reference goes once the
/// shared branch holds it: its own machine removes it then; any machine removes one the shared branch holds whose
/// newest commit is more than a day old (a machine that stopped syncing).
extension Store {
    /// Where writers publish on a remote.
    static let writersPrefix = "refs/docket/writers/"

    /// Where this store keeps the writers' references it fetched from `remote`.
    static func seenWriters(_ remote: String) -> String { "refs/docket/seen/\(remote)/" }

    /// This store's writer name on its remotes: made once, kept in `.git/config` as `docket.writer`.
    func writerName() throws -> String {
        if let name = try git.configString("docket.writer"), Self.isWriterName(name) { return name }
        let name = String((0..<12).map { _ in "0123456789abcdef".randomElement()! })
        try git.setConfig("docket.writer", to: name)
        return name
    }

    /// A writer's name: 1 to 64 letters, digits, '-' and '_'.
    static func isWriterName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64
            && name.unicodeScalars.allSatisfy {
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_")
            }
    }

    /// The writers' references on `remote`, as a fetch keeps them here.
    static func writersMirror(_ remote: String) -> MirroredReferences {
        MirroredReferences(prefix: writersPrefix, local: seenWriters(remote))
    }

    /// Takes in, one by one, each of the writers' references a fetch from `remote` brought (`writers`, by their
    /// names here) that the branch does not hold yet.
    func takeWritersHoldingLock(_ writers: [String: ObjectID], remote: String, options: TransferOptions) throws
        -> [PullOutcome]
    {
        let seen = Self.seenWriters(remote)
        let own = seen + (try writerName())
        guard let start = try git.head() else { return [] }
        // NB: the newest first: it often holds the others, which then cost nothing. The merges are made one on top
        // of another in the object database and the working tree is moved once, at the end: at 16 writers, a
        // checkout per writer made a sync's median 9 s.
        let dated = try writers.filter { $0.key != own && Self.isWriterName(String($0.key.dropFirst(seen.count))) }
            .map {
                (name: String($0.key.dropFirst(seen.count)), tip: $0.value, date: try git.commitInfo($0.value).date)
            }
            .sorted { ($0.date, $0.name) > ($1.date, $1.name) }
        var current = start
        var outcomes: [PullOutcome] = []
        var setAside: [SetAsideFile] = []
        var merges: [(label: String, ours: ObjectID, theirs: ObjectID, merged: ObjectID, report: MergeReport)] = []
        let intake = IntakeCheck(git: try git, progress: ProgressThrottle(options.progress))
        for writer in dated {
            let base = try withinHistory { try git.mergeBase(current, writer.tip) }
            if current == writer.tip || base == writer.tip { continue }
            // NB: a writer published before a rewrite of the branch holds the history the rewrite dropped: taken in,
            // it would bring it back. Its own machine carries its work over with `sync --accept-rewrite`.
            if try writerPredatesRewrite(writer.tip, remote: remote) { continue }
            let label = "\(remote) writer \(writer.name)"
            let incoming = try takingIn(writer.tip, onto: current, since: base, from: label, intake: intake)
            let theirs = incoming.commit
            setAside += incoming.files
            if base == current {
                current = theirs
                outcomes.append(.fastForwarded(to: theirs.description))
                continue
            }
            let (commit, report) = try git.writingObjectsTogether {
                try MergeCommitBuilder(git: git, base: base, ours: current, theirs: theirs).build(remoteBranch: label)
            }
            merges.append((label, current, theirs, commit, report))
            outcomes.append(.merged(commit: commit.description, report: report))
            current = commit
        }
        guard current != start else { return [] }
        try moveBranch(
            to: current, from: start, message: merges.isEmpty ? "docket: pull (fast-forward)" : "docket: pull (merge)")
        noteSetAside(setAside)
        for merge in merges {
            recordMergeForUndo(
                merge.label, ours: merge.ours, theirs: merge.theirs, merged: merge.merged, report: merge.report)
        }
        runPostMerge()
        return outcomes
    }

    /// Whether a writer's reference holds history `remote`'s branch was rewritten away from: a tip the branch had
    /// (found as `rewrite(of:)` finds one, in the remote-tracking branch's log) that is in the writer's history and
    /// not in the branch's.
    func writerPredatesRewrite(_ tip: ObjectID, remote: String) throws -> Bool {
        guard let branch = try configuredUpstream(remote: remote),
            let current = try git.reference("refs/remotes/\(remote)/\(branch)"), current != tip
        else { return false }
        return try rewrite(of: remote, branch: branch, before: nil, tip: current, ours: tip) != nil
    }

    /// Publishes the branch on this store's own writer reference on `remote`: a push no other machine can win.
    func pushWriterHoldingLock(remote: String, options: TransferOptions) throws -> Pushed {
        let (ref, _) = try localBranch()
        let name = try writerName()
        try retryingAbandonedLock {
            try StoreError.gate(writing: true) {
                try git.repository.pushReference(
                    remote: remote, refspec: "+\(ref):\(Self.writersPrefix)\(name)",
                    reference: Self.writersPrefix + name, options: options)
            }
        }
        if let head = try git.head() {
            try? git.setReference(Self.seenWriters(remote) + name, to: head, message: "docket: push writer")
        }
        return Pushed(remote: remote, branch: Self.writersPrefix + name, remoteHeadNamesMissing: nil, asWriter: name)
    }

    /// After the shared branch took this store's branch: removes the writers' references it holds that are done
    /// with: this store's own, and any whose newest commit is more than a day old. A removal that fails is left for
    /// the next sync.
    func retireWritersHoldingLock(remote: String, options: TransferOptions) {
        guard let head = try? git.head(), let own = try? writerName() else { return }
        let seen = Self.seenWriters(remote)
        let writers = (try? git.references(startingWith: seen)) ?? [:]
        for (reference, tip) in writers {
            let name = String(reference.dropFirst(seen.count))
            guard Self.isWriterName(name) else { continue }
            // This store's own, from before a rewrite it took with --accept-rewrite (which carried its work), goes too.
            guard
                (try? git.mergeBase(head, tip)) == tip
                    || (name == own && (try? writerPredatesRewrite(tip, remote: remote)) == true)
            else { continue }
            let stale =
                (try? git.repository.commitInfo(tip)).map { $0.date < Date().addingTimeInterval(-86_400) } ?? false
            guard name == own || stale else { continue }
            do {
                try git.repository.pushReference(
                    remote: remote, refspec: ":\(Self.writersPrefix)\(name)", reference: Self.writersPrefix + name,
                    options: options)
                try? git.repository.deleteReference(reference)
            } catch {
                continue
            }
        }
    }

    /// The writers this store heard from on `remote` at its last pull or sync whose commits the shared branch does
    /// not hold yet, with how many such commits each has (up to 1,000), by name.
    public func writersAhead(remote: String? = nil) throws -> [(writer: String, commits: Int)] {
        let name = try remoteName(remote)
        let seen = Self.seenWriters(name)
        let branch = try configuredUpstream(remote: name).flatMap { try git.reference("refs/remotes/\(name)/\($0)") }
        return try git.references(startingWith: seen).sorted { $0.key < $1.key }.compactMap { reference, tip in
            let ahead = try git.commits(from: tip, excluding: branch.map { [$0] } ?? [], limit: 1_000).count
            return ahead == 0 ? nil : (String(reference.dropFirst(seen.count)), ahead)
        }
    }
}
