import DocketGit
import DocketMerge
import Foundation

/// Merges as recorded in their commits: the message a merge commit gets, and reading the reports back.
enum MergeHistory {
    /// The trailer that carries a merge's full report in its commit message.
    static let reportTrailer = "Docket-Merge-Report: "

    /// "Merge origin/main: 3 items merged; …", one line per decision, and the full report as a trailer.
    static func message(_ report: MergeReport, remoteBranch: String) -> String {
        var lines = ["Merge \(remoteBranch): \(report.summary)", ""]
        lines += (report.items.flatMap(\.lines) + report.noteLines).map { "- " + $0 }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = (try? encoder.encode(report)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        if report.isEmpty { lines.removeLast() }
        lines += ["", reportTrailer + json, ""]
        return lines.joined(separator: "\n")
    }

    /// The trailer naming the two sides of a replay Docket finished (a cherry-pick, revert or stash): ours, then
    /// the commit the other side's values come from.
    static let sidesTrailer = "Docket-Merge-Sides: "

    /// The trailers a commit that finished a replay carries: the report, and its sides.
    static func replayTrailers(_ report: MergeReport, ours: ObjectID, theirs: ObjectID) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = (try? encoder.encode(report)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return reportTrailer + json + "\n" + sidesTrailer + "\(ours) \(theirs)\n"
    }

    /// The sides a replay's commit names (`replayTrailers`), if any.
    static func sides(in message: String) -> (ours: ObjectID, theirs: ObjectID)? {
        guard let line = message.split(separator: "\n").last(where: { $0.hasPrefix(sidesTrailer) }) else { return nil }
        let ids = line.dropFirst(sidesTrailer.count).split(separator: " ").compactMap { ObjectID(hex: String($0)) }
        return ids.count == 2 ? (ids[0], ids[1]) : nil
    }

    /// Whether a commit records a merge: a merge commit, or a replay Docket finished.
    static func isRecord(_ commit: CommitInfo) -> Bool {
        commit.parents.count > 1 || sides(in: commit.message) != nil || SetAsideHistory.files(in: commit.message) != nil
    }

    /// The report a merge commit's message carries, if it is a Docket merge.
    static func report(in message: String) -> MergeReport? {
        guard let line = message.split(separator: "\n").last(where: { $0.hasPrefix(reportTrailer) }) else { return nil }
        return try? JSONDecoder().decode(MergeReport.self, from: Data(line.dropFirst(reportTrailer.count).utf8))
    }
}

extension Store {
    /// The merges in the history, newest first, with what each decided. A
    /// merge made by git (with the merge driver, or finished by hand) carries
    /// no report; its decisions are worked out again from its parents, by the
    /// rules the driver follows.
    public func merges(limit: Int, scanning: Int = 10_000) throws -> [MergeRecord] {
        guard let head = try git.head() else { return [] }
        // The walk stops at the limit-th merge: its cost follows how far back the merges asked for lie.
        return try git.log(from: head, limit: limit, scanning: scanning, where: MergeHistory.isRecord).map(record)
    }

    /// What the merge (or the replay Docket finished) `commit` decided.
    func record(_ commit: CommitInfo) throws -> MergeRecord {
        if let files = SetAsideHistory.files(in: commit.message) {
            return MergeRecord(
                commit: commit.id.description, date: commit.date, summary: commit.summary,
                report: MergeReport(items: []),
                madeByGit: false, setAside: files)
        }
        if let report = MergeHistory.report(in: commit.message) {
            return MergeRecord(
                commit: commit.id.description, date: commit.date, summary: commit.summary, report: report,
                madeByGit: false)
        }
        // A merge git made is worked out again from its sides' files, which a partial clone may lack.
        try refusePartialClone()
        let (ours, theirs) = (commit.parents[0], commit.parents[1])
        let base = try? git.mergeBase(ours, theirs)
        let report =
            (try? MergeCommitBuilder(git: git, base: base, ours: ours, theirs: theirs).mergeStore(writingBlobs: false)
                .report)
            ?? MergeReport(items: [])
        return MergeRecord(
            commit: commit.id.description, date: commit.date, summary: commit.summary, report: report, madeByGit: true)
    }
}

extension Store {
    /// `theirs`, or a commit on top of it in which each store file a peer
    /// without Docket's merge driver (jgit, a git without docket installed)
    /// committed with git's conflict markers is merged again, with Docket's
    /// rules, from the two sides of the merge commit that brought the
    /// markers; the commit's message records the decisions, as a merge's
    /// does. A file whose markers no merge commit explains is left as it is,
    /// for the intake check to refuse.
    func resolvingCommittedMarkers(_ theirs: ObjectID, since base: ObjectID?) throws -> ObjectID {
        guard let base else { return theirs }
        // NB: runs before the intake check, so bounded as it is (a tree naming a billion files is a few kilobytes).
        let changed: [ChangedPath]
        do {
            changed = try git.changedPaths(
                from: try git.tree(ofCommit: base), to: try git.tree(ofCommit: theirs), limit: 2 * IntakeCheck.mostFiles
            ).filter { $0.kind != .deleted && StoreLayout.item(at: $0.path) != .other }
        } catch is TooManyFiles {
            throw StoreError.state(.tooManyFiles(commit: theirs.short, limit: IntakeCheck.mostFiles))
        }
        var marked: [(path: String, blob: ObjectID)] = []
        for change in changed {
            guard let id = change.newID, (try? git.blobSize(id)).map({ $0 <= Store.maximumFileSize }) == true,
                StoredItem.hasConflictMarkers(try git.blob(id))
            else { continue }
            marked.append((change.path, id))
        }
        guard !marked.isEmpty else { return theirs }
        let commits = try git.commits(from: theirs, excluding: [base])
        var resolved: [String: ObjectID] = [:]
        var items: [ItemDecision] = []
        var farAhead: [FarAheadDate] = []
        var sides: (ObjectID, ObjectID)?
        var brought: [String] = []
        for (path, blob) in marked {
            // The merge commit that brought these markers: it holds them, and neither of its sides does.
            for commit in commits where try git.blobID(inTree: try git.tree(ofCommit: commit), at: path) == blob {
                let parents = try git.parents(of: commit)
                let versions = try parents.map { try git.blobID(inTree: try git.tree(ofCommit: $0), at: path) }
                guard !versions.contains(blob) else { continue }
                guard parents.count == 2, let ours = versions[0], let other = versions[1] else { break }
                let common = try git.mergeBase(parents[0], parents[1])
                let baseData = try common.flatMap { try git.blobID(inTree: try git.tree(ofCommit: $0), at: path) }.map {
                    try git.blob($0)
                }
                guard
                    case let .merged(data, report) = FileMerge.merge(
                        path: path, base: baseData, ours: try git.blob(ours), theirs: try git.blob(other))
                else { break }
                resolved[path] = try git.writeBlob(data)
                items += report.items
                farAhead += report.farAhead
                sides = sides ?? (parents[0], parents[1])
                brought.append(commit.short)
                break
            }
        }
        guard let sides, !resolved.isEmpty else { return theirs }
        let branchTree = try git.tree(ofCommit: theirs)
        let report = MergeReport(items: items, farAhead: farAhead)
        let names = Array(Set(brought)).sorted().joined(separator: ", ")
        let summary = "Resolve the conflict markers committed in \(names) with Docket's merge: \(report.summary)"
        let message =
            summary + "\n\n" + report.items.flatMap(\.lines).map { "- " + $0 }.joined(separator: "\n")
            + "\n\n" + MergeHistory.replayTrailers(report, ours: sides.0, theirs: sides.1)
        return try git.commit(tree: try git.tree(branchTree, replacing: resolved), parents: [theirs], message: message)
    }
}
