import DocketGit
import Foundation

/// A file of the store that could not be read, and why.
public struct StoreProblem: Equatable, Sendable, CustomStringConvertible {
    /// The file, relative to the store's folder.
    public let path: String
    /// Why it was skipped.
    public let reason: String

    public var description: String { "\(path): \(reason)" }
}

/// What can go wrong with a store, each saying what was found and what to do.
public enum StoreError: Error, CustomStringConvertible, Equatable {
    case notAStore(path: String)
    case notARepository(path: String)
    case bareRepository(path: String)
    case newerFormat(path: String, found: Int)
    case unreadableFormat(path: String, reason: String)
    case notFound(kind: String, id: String)
    case ambiguous(kind: String, prefix: String, candidates: [String])
    case idTooShort(prefix: String)
    case locked(lockFile: String, pid: Int32)
    case undecodable([StoreProblem])
    case unreadable(StoreProblem)
    case io(path: String, reason: String)
    case git(GitError)
    case transfer(TransferError)
    case corruptInCommit(path: String, commit: String, reason: String)
    case newerFormatInCommit(commit: String, found: Int)
    case uncommittedChanges
    case conflict(paths: [String])
    case noRemote
    case unknownRemote(String)
    case remoteExists(String)
    case folderNotEmpty(String)
    case interruptedUpdate(path: String, marker: String)

    public var description: String {
        switch self {
        case let .notAStore(path):
            "\(path) is a git repository but not a Docket store (it has no .docket/format.json); run 'docket init \(path)' to make it one, or choose another folder"
        case let .notARepository(path):
            "\(path) is not a Docket store; run 'docket init \(path)' to make one"
        case let .bareRepository(path):
            "\(path) is a bare git repository, which has no working tree for Docket's files; clone it ('git clone \(path)') and use the clone"
        case let .newerFormat(path, found):
            "\(path) uses store format \(found), newer than this docket understands (format \(Store.format)); upgrade docket to use this store"
        case let .unreadableFormat(path, reason):
            "\(path)/.docket/format.json does not read as a Docket format file (\(reason)); restore it with 'git checkout -- .docket/format.json'"
        case let .notFound(kind, id):
            "no \(kind) has the id \(id); 'docket list --all' and 'docket project list' show the ids"
        case let .ambiguous(kind, prefix, candidates):
            "the id \(prefix) matches \(candidates.count) \(kind)s: \(candidates.joined(separator: ", ")); give more of the id"
        case let .idTooShort(prefix):
            "the id \(prefix) is too short; give at least 4 characters of it"
        case let .locked(lockFile, pid):
            "another docket process (pid \(pid)) is changing this store; wait for it to finish, or remove \(lockFile) if no docket is running"
        case let .undecodable(problems):
            "nothing was committed: \(problems.count == 1 ? "a file does" : "\(problems.count) files do") not decode as Docket items; fix or restore \(problems.count == 1 ? "it" : "them") ('git checkout -- <file>'), then commit again:\n"
                + problems.map { "  \($0)" }.joined(separator: "\n")
        case let .unreadable(problem):
            "\(problem.path) cannot be read: \(problem.reason); fix or restore it with 'git checkout -- \(problem.path)'"
        case let .io(path, reason):
            "could not write \(path): \(reason)"
        case let .git(error):
            "git: \(error.description)"
        case let .transfer(error):
            error.description
        case let .corruptInCommit(path, commit, reason):
            "\(path) in commit \(commit) does not decode (\(reason)); nothing was changed here; fix the file on the machine that committed it, then pull again"
        case let .newerFormatInCommit(commit, found):
            "commit \(commit) uses store format \(found), newer than this docket understands (format \(Store.format)); upgrade docket, then pull again; nothing was changed here"
        case .uncommittedChanges:
            "the store has uncommitted changes; commit them ('docket commit') or use 'docket sync', which commits them first"
        case let .conflict(paths):
            "git cannot merge \(paths.count == 1 ? "a file" : "files") outside Docket's folders: \(paths.joined(separator: ", ")); nothing was changed; merge \(paths.count == 1 ? "it" : "them") with git ('git pull'), then run docket again"
        case .noRemote:
            "the store has no remote; add one with 'docket remote add origin <url>'"
        case let .unknownRemote(name):
            "there is no remote named \(name); 'docket remote list' shows the remotes"
        case let .remoteExists(name):
            "a remote named \(name) exists already; 'docket remote remove \(name)' removes it"
        case let .interruptedUpdate(path, marker):
            "an interrupted pull left the store half updated, and \(path) has been changed since; keep a copy of your change, restore the file ('git checkout -- \(path)'), and run the command again (or delete \(marker) to abandon the pull)"
        case let .folderNotEmpty(path):
            "\(path) exists and is not empty; clone into a new folder"
        }
    }
}

/// Runs a libgit2 call, turning its failure into a `StoreError`.
func git<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as GitError {
        throw StoreError.git(error)
    } catch let error as TransferError {
        throw StoreError.transfer(error)
    } catch let error as MergeConflict {
        throw StoreError.conflict(paths: error.paths)
    }
}
