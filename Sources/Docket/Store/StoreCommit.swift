import DocketGit
import DocketModel
import Foundation

/// One uncommitted change of a store file, in words.
public struct ItemChange: Equatable, Sendable {
    /// The file, relative to the store's folder.
    public let path: String
    /// What happened, for people: "added todo 'Buy milk'".
    public let description: String
    /// The verbs it contributes to a commit message.
    let verbs: [Verb]

    enum Verb: Hashable, Comparable {
        case addTodo, completeTodo, reopenTodo, editTodo, dueTodo, removeTodo
        case addProject(String), renameProject(String), removeProject(String)
        case addTask, finishTask, startTask, editTask, timeTask, removeTask
        case other
    }
}

/// What `commit` did.
public enum CommitOutcome: Equatable, Sendable {
    /// A commit was written.
    case committed(id: String, message: String)
    /// Nothing in the store differed from the last commit.
    case nothingToCommit
}

extension Store {
    /// The store's uncommitted changes (made by docket or by hand), in words.
    public func status() throws -> [ItemChange] {
        let entries = try git { try repository.status(under: StoreLayout.folders) }
        let headTree = try git { try repository.head().map { try repository.tree(ofCommit: $0) } }
        return try entries.filter { StoreLayout.item(at: $0.path) != .other }.map { try describe($0, headTree: headTree) }
    }

    /// Commits the store's changed files (new, changed and removed, also those
    /// edited by hand), refusing when any of them does not decode. Without a
    /// message, the message summarises the change: "Add 2 todos, complete 1".
    public func commit(message: String? = nil) throws -> CommitOutcome {
        try withLock { try commitHoldingLock(message: message) }
    }

    func commitHoldingLock(message: String?) throws -> CommitOutcome {
        try finishInterruptedUpdate()
        let found = try git { try repository.status(under: StoreLayout.folders) }
        removeLeftoverTemporaryFiles(found)
        let entries = found.filter { StoreLayout.item(at: $0.path) != .other }
        guard !entries.isEmpty else { return .nothingToCommit }

        var problems: [StoreProblem] = []
        var contents: [String: Data] = [:]
        for entry in entries where entry.kind != .deleted {
            guard let data = readFile(at: entry.path, problems: &problems) else { continue }
            if let reason = decodingProblem(data, at: entry.path) { problems.append(StoreProblem(path: entry.path, reason: reason)) }
            contents[entry.path] = data
        }
        guard problems.isEmpty else { throw StoreError.undecodable(problems.sorted { $0.path < $1.path }) }

        let head = try git { try repository.head() }
        let headTree = try git { try head.map { try repository.tree(ofCommit: $0) } }
        let changes = try entries.map { try describe($0, headTree: headTree, contents: contents[$0.path]) }
        let text = message ?? Store.commitMessage(for: changes)
        let outcome: CommitOutcome = try git {
            let branch = try repository.headBranch()
            let (tree, id) = try repository.writingObjectsTogether { () throws -> (ObjectID, ObjectID?) in
                let tree = try repository.stageAndWriteTree(entries.map(\.path))
                Fault.point("after-stage")
                if tree == headTree { return (tree, nil) }
                return (tree, try repository.commit(tree: tree, parents: head.map { [$0] } ?? [], message: text + "\n",
                                                    author: repository.defaultSignature(), updating: nil))
            }
            guard let id else {
                try repository.noteIndexHolds(tree)
                return .nothingToCommit
            }
            try repository.setReference(branch, to: id, message: "commit: " + text)
            try repository.noteIndexHolds(tree)
            return .committed(id: id.description, message: text)
        }
        return outcome
    }

    /// Removes the temporary files a killed docket left (`.docket-tmp-<pid>-…`,
    /// whose process is gone); they never held anything but a copy of an
    /// unfinished write. Files of a running docket are left alone.
    func removeLeftoverTemporaryFiles(_ changes: [StatusEntry]) {
        for change in changes where change.kind == .new {
            let name = (change.path as NSString).lastPathComponent
            guard name.hasPrefix(AtomicFile.temporaryPrefix),
                  let pid = Int32(name.dropFirst(AtomicFile.temporaryPrefix.count).prefix { $0 != "-" }),
                  pid > 0, kill(pid, 0) != 0, errno == ESRCH else { continue }
            unlink(path(change.path))
        }
    }

    /// The store's history, newest first.
    public func log(limit: Int) throws -> [CommitInfo] {
        try git {
            guard let head = try repository.head() else { return [] }
            return try repository.log(from: head, limit: limit)
        }
    }

    /// Why a store file does not decode as what its path says it holds; nil when it does.
    func decodingProblem(_ data: Data, at path: String) -> String? {
        do {
            switch StoreLayout.item(at: path) {
            case .todo: _ = try DocketJSON.decode(TodoItem.self, from: data)
            case .project: _ = try DocketJSON.decode(ProjectHeader.self, from: data)
            case .task: _ = try DocketJSON.decode(ProjectTask.self, from: data)
            case .tombstone: _ = try DocketJSON.decode(Tombstone.self, from: data)
            case .format:
                let format = try DocketJSON.decode(FormatFile.self, from: data)
                if format.format > Store.format { return "names store format \(format.format), newer than this docket" }
            case .other: break
            }
            return nil
        } catch {
            return decodingReason(error)
        }
    }

    // MARK: Describing changes

    func describe(_ entry: StatusEntry, headTree: ObjectID?, contents: Data? = nil) throws -> ItemChange {
        let before: Data? = entry.kind == .new ? nil : try headTree.flatMap { tree in
            try git { try repository.blobID(inTree: tree, at: entry.path).map { try repository.blob($0) } }
        }
        var ignored: [StoreProblem] = []
        let after = entry.kind == .deleted ? nil : (contents ?? readFile(at: entry.path, problems: &ignored))
        func decode<T: Decodable>(_ type: T.Type, _ data: Data?) -> T? { data.flatMap { try? DocketJSON.decode(type, from: $0) } }

        switch StoreLayout.item(at: entry.path) {
        case .todo:
            let old = decode(TodoItem.self, before), new = decode(TodoItem.self, after)
            switch (old, new) {
            case (nil, let new?): return ItemChange(path: entry.path, description: "added todo '\(new.text)'", verbs: [.addTodo])
            case (let old?, nil): return ItemChange(path: entry.path, description: "removed todo '\(old.text)'", verbs: [.removeTodo])
            case let (old?, new?):
                var verbs: [ItemChange.Verb] = []
                var words: [String] = []
                if old.completed != new.completed {
                    verbs.append(new.completed ? .completeTodo : .reopenTodo)
                    words.append(new.completed ? "completed" : "reopened")
                }
                if old.text != new.text { verbs.append(.editTodo); words.append("renamed to '\(new.text)'") }
                if !sameMillisecond(old.dueDate, new.dueDate) { verbs.append(.dueTodo); words.append("due date changed") }
                if verbs.isEmpty { verbs.append(.other); words.append("rewritten") }
                return ItemChange(path: entry.path, description: "todo '\(old.text)' \(words.joined(separator: ", "))", verbs: verbs)
            default: return ItemChange(path: entry.path, description: "changed \(entry.path)", verbs: [.other])
            }
        case .project:
            let old = decode(ProjectHeader.self, before), new = decode(ProjectHeader.self, after)
            switch (old, new) {
            case (nil, let new?): return ItemChange(path: entry.path, description: "added project '\(new.title)'", verbs: [.addProject(new.title)])
            case (let old?, nil): return ItemChange(path: entry.path, description: "removed project '\(old.title)'", verbs: [.removeProject(old.title)])
            case let (old?, new?) where old.title != new.title:
                return ItemChange(path: entry.path, description: "renamed project '\(old.title)' to '\(new.title)'", verbs: [.renameProject(new.title)])
            default: return ItemChange(path: entry.path, description: "reordered project", verbs: [.other])
            }
        case .task:
            let old = decode(ProjectTask.self, before), new = decode(ProjectTask.self, after)
            switch (old, new) {
            case (nil, let new?): return ItemChange(path: entry.path, description: "added task '\(new.title)'", verbs: [.addTask])
            case (let old?, nil): return ItemChange(path: entry.path, description: "removed task '\(old.title)'", verbs: [.removeTask])
            case let (old?, new?):
                var verbs: [ItemChange.Verb] = []
                var words: [String] = []
                if old.state != new.state {
                    verbs.append(new.state == .finished ? .finishTask : (new.state == .inProgress ? .startTask : .editTask))
                    words.append("now \(new.state == .inProgress ? "in progress" : new.state.rawValue)")
                }
                if old.title != new.title { verbs.append(.editTask); words.append("renamed to '\(new.title)'") }
                if old.dueDate != new.dueDate { verbs.append(.editTask); words.append("due date changed") }
                if old.timeSlips != new.timeSlips { verbs.append(.timeTask); words.append("time recorded") }
                if verbs.isEmpty { verbs.append(.other); words.append("reordered") }
                return ItemChange(path: entry.path, description: "task '\(old.title)' \(words.joined(separator: ", "))", verbs: verbs)
            default: return ItemChange(path: entry.path, description: "changed \(entry.path)", verbs: [.other])
            }
        case .tombstone:
            return ItemChange(path: entry.path, description: "recorded a removal", verbs: [])
        case .format, .other:
            return ItemChange(path: entry.path, description: "changed \(entry.path)", verbs: [.other])
        }
    }

    /// "Add 2 todos, complete 1, rename project Party".
    static func commitMessage(for changes: [ItemChange]) -> String {
        var counts: [ItemChange.Verb: Int] = [:]
        for verb in changes.flatMap(\.verbs) { counts[verb, default: 0] += 1 }
        func group(_ noun: String, _ verbs: [(ItemChange.Verb, String)]) -> [String] {
            var phrases: [String] = []
            for (verb, word) in verbs {
                guard let n = counts[verb] else { continue }
                phrases.append(phrases.isEmpty ? "\(word) \(n) \(noun)\(n == 1 ? "" : "s")" : "\(word) \(n)")
            }
            return phrases
        }
        var phrases = group("todo", [(.addTodo, "add"), (.completeTodo, "complete"), (.reopenTodo, "reopen"), (.editTodo, "edit"),
                                     (.dueTodo, "change the due date of"), (.removeTodo, "remove")])
        for verb in counts.keys.sorted() {
            switch verb {
            case let .addProject(title): phrases.append("add project \(title)")
            case let .renameProject(title): phrases.append("rename project \(title)")
            case let .removeProject(title): phrases.append("remove project \(title)")
            default: break
            }
        }
        phrases += group("task", [(.addTask, "add"), (.startTask, "start"), (.finishTask, "finish"), (.editTask, "edit"),
                                  (.timeTask, "record time on"), (.removeTask, "remove")])
        if phrases.isEmpty {
            let n = changes.count
            phrases = n == 0 ? ["update the store"] : ["update \(n) \(n == 1 ? "file" : "files")"]
        }
        let text = phrases.joined(separator: ", ")
        return text.prefix(1).uppercased() + text.dropFirst()
    }
}
