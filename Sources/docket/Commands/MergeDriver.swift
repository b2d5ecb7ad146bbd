import ArgumentParser
import Docket
import DocketSystem
import Foundation

/// git's merge driver for the store's files (`merge.docket.driver` runs
/// `docket merge-driver %O %A %B %P`): merges the three versions of one file
/// with Docket's rules into %A and exits 0, dating a side's hand edit as
/// made at its commit, as Docket's merge does. A file that is not a Docket item
/// (or does not read) is left to git's own text merge, with conflict markers
/// (exit 1). Writes nothing else: git also runs drivers for rebases,
/// cherry-picks and `git log --remerge-diff`. Where git replays changes
/// without a merge commit, a merge that would discard a value stops git on
/// the file (exit 1), for `docket sync` to finish with a record.
struct MergeDriver: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge-driver",
        abstract: "Merge one store file for git (run by git, not by people).",
        shouldDisplay: false)

    @Argument(help: "The common ancestor's version (%O).") var base: String
    @Argument(help: "Ours (%A), which receives the result.") var ours: String
    @Argument(help: "Theirs (%B).") var theirs: String
    @Argument(help: "The file's path in the repository (%P).") var path: String

    func run() throws {
        // NB: git runs a driver at the repository's top folder, naming the commit it merges in GITHEAD_<id>.
        let dates = FileMerge.sideDates(inRepositoryAt: WorkingFolder.path)
        switch FileMerge.merge(path: path, baseFile: base, oursFile: ours, theirsFile: theirs, dates: dates) {
        case let .merged(data, report):
            // NB: a rebase, cherry-pick, revert, stash or squash makes no merge commit, so nothing would record a
            // value the merge discards; git is stopped on the file instead, and 'docket sync' finishes with a record.
            if report.losesValues && !FileMerge.runsInsideMergeCommit() {
                FileHandle.standardError.write(
                    Data(
                        ("docket: \(Output.safe(path)): both sides changed the same value, and git is replaying "
                            + "changes without a merge commit to record the one Docket's merge would discard; run 'docket sync' to finish with a record "
                            + "('docket merges' lists it)\n").utf8))
                throw ExitCode(1)
            }
            try data.write(to: URL(fileURLWithPath: ours), options: .atomic)
        case .notItems:
            let oursData = try Data(contentsOf: URL(fileURLWithPath: ours))
            let theirsData = try Data(contentsOf: URL(fileURLWithPath: theirs))
            // One side does not read: the side that reads stands, and the other is set aside with a record, as a
            // pull sets it aside.
            if let (keepsOurs, reason) = FileMerge.readableSide(path: path, ours: oursData, theirs: theirsData) {
                if !keepsOurs { try theirsData.write(to: URL(fileURLWithPath: ours), options: .atomic) }
                if let store = try? Store.open(at: WorkingFolder.url) {
                    store.noteSetAsideByDriver(
                        path: path, reason: reason, commit: keepsOurs ? FileMerge.mergedCommit() : nil,
                        unreadable: keepsOurs ? theirsData : oursData, kept: keepsOurs ? oursData : theirsData)
                }
                FileHandle.standardError.write(
                    Data(
                        ("docket: \(Output.safe(path)) \(Output.safe(reason)) on \(keepsOurs ? "their" : "our") side: "
                            + "set aside, the other side's version kept ('docket status' names it)\n").utf8))
                return
            }
            // git's own line merge, with markers, left for 'docket sync' (or a person) to finish.
            throw ExitCode(FileMerge.textMerge(ours: ours, base: base, theirs: theirs) ? 0 : 1)
        }
    }
}
