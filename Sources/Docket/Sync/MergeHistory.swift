import DocketMerge
import Foundation

/// Merges as recorded in their commits: the message a merge commit gets, and reading the reports back.
enum MergeHistory {
    /// The trailer that carries a merge's full report in its commit message.
    static let reportTrailer = "Docket-Merge-Report: "

    /// "Merge origin/main: 3 items merged; …", one line per decision, and the full report as a trailer.
    static func message(_ report: MergeReport, remoteBranch: String) -> String {
        var lines = ["Merge \(remoteBranch): \(report.summary)", ""]
        lines += (report.items.flatMap(\.lines) + report.farAhead.map(\.line)).map { "- " + $0 }
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
    static func isRecord(_ commit: CommitInfo) -> Bool { commit.parents.count > 1 || sides(in: commit.message) != nil }

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
        if let report = MergeHistory.report(in: commit.message) {
            return MergeRecord(commit: commit.id.description, date: commit.date, summary: commit.summary, report: report, madeByGit: false)
        }
        let (ours, theirs) = (commit.parents[0], commit.parents[1])
        let base = try? git.mergeBase(ours, theirs)
        let report = (try? MergeCommitBuilder(git: git, base: base, ours: ours, theirs: theirs).mergeStore(writingBlobs: false).report)
            ?? MergeReport(items: [])
        return MergeRecord(commit: commit.id.description, date: commit.date, summary: commit.summary, report: report, madeByGit: true)
    }
}
