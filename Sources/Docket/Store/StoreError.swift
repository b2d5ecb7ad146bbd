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
        }
    }
}

/// Runs a libgit2 call, turning its failure into a `StoreError`.
func git<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as GitError {
        throw StoreError.git(error)
    }
}
