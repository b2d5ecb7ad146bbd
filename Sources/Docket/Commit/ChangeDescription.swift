import DocketMerge
import DocketModel
import Foundation

/// One uncommitted change of a store file, in words.
public struct ItemChange: Equatable, Sendable {
    /// What kind of change it is.
    public enum Kind: Equatable, Sendable {
        /// An item was added.
        case added(ItemDecision.Kind)
        /// An item's file changed.
        case changed(ItemDecision.Kind)
        /// An item was removed.
        case removed(ItemDecision.Kind)
        /// The record of a removal was written or changed (it goes with a removal).
        case removalRecorded
        /// An item's file changed so that it no longer reads; it cannot be committed like this.
        case unreadable(reason: String)
        /// git could not merge the item's file: a merge or rebase of git's stopped on it.
        case conflicted(ItemDecision.Kind)
        /// Another store file changed.
        case file
    }

    /// The file, relative to the store's folder.
    public let path: String
    /// What kind of change it is.
    public let kind: Kind
    /// What happened, for people: "added todo 'Buy milk'".
    public let description: String
    /// The verbs it contributes to a commit message.
    let verbs: [Verb]

    enum Verb: Hashable, Comparable {
        case addTodo, completeTodo, reopenTodo, editTodo, dueTodo, removeTodo
        case addProject(String)
        case renameProject(String)
        case removeProject(String)
        case addTask, finishTask, startTask, editTask, timeTask, removeTask
        case other
    }
}

/// Describes changes of store files from the items before and after, field by field.
enum ChangeDescription {
    /// The change of one file, from what it held before and holds now (nil: no file, or one that does not read).
    static func describe(path: String, before: StoredItem?, after: StoredItem?) -> ItemChange {
        switch before ?? after {
        case .todo?:
            return describe(.todo, path: path, before: before?.todo, after: after?.todo, label: \.text)
        case .project?:
            return describe(.project, path: path, before: before?.project, after: after?.project, label: \.title)
        case .task?:
            return describe(.task, path: path, before: before?.task, after: after?.task, label: \.title)
        case .tombstone?:
            return ItemChange(path: path, kind: .removalRecorded, description: "recorded a removal", verbs: [])
        case .format?, nil:
            return ItemChange(path: path, kind: .file, description: "changed \(path)", verbs: [.other])
        }
    }

    private static func describe<Item: FieldCoded>(
        _ noun: ItemDecision.Kind, path: String, before: Item?, after: Item?,
        label: KeyPath<Item, String>
    ) -> ItemChange {
        switch (before, after) {
        case (nil, let new?):
            return ItemChange(
                path: path, kind: .added(noun), description: "added \(noun) '\(new[keyPath: label])'",
                verbs: [added(noun, new[keyPath: label])])
        case (let old?, nil):
            return ItemChange(
                path: path, kind: .removed(noun), description: "removed \(noun) '\(old[keyPath: label])'",
                verbs: [removed(noun, old[keyPath: label])])
        case let (old?, new?):
            var verbs: [ItemChange.Verb] = []
            var words: [String] = []
            for field in Item.contentFields where !field.isSame(old, new) {
                // A field that goes with another (a completion date) is part of that one's change.
                if case let .follows(leader) = field.rule,
                    Item.fields.contains(where: { $0.key == leader && !$0.isSame(old, new) })
                {
                    continue
                }
                let (verb, text) = change(noun, field.key, label: field.label, new: field.text(of: new))
                verbs.append(verb)
                words.append(text)
            }
            if noun == .project && old[keyPath: label] != new[keyPath: label] {
                return ItemChange(
                    path: path, kind: .changed(noun),
                    description: "renamed project '\(old[keyPath: label])' to '\(new[keyPath: label])'",
                    verbs: [.renameProject(new[keyPath: label])])
            }
            if verbs.isEmpty && noun == .project {
                return ItemChange(path: path, kind: .changed(noun), description: "reordered project", verbs: [.other])
            }
            if verbs.isEmpty {
                verbs.append(.other)
                words.append(noun == .task ? "reordered" : "rewritten")
            }
            return ItemChange(
                path: path, kind: .changed(noun),
                description: "\(noun) '\(old[keyPath: label])' \(words.joined(separator: ", "))",
                verbs: verbs)
        case (nil, nil):
            return ItemChange(path: path, kind: .file, description: "changed \(path)", verbs: [.other])
        }
    }

    /// The verb and words for one changed field; a field without words of its own is "<label> changed".
    private static func change(_ noun: ItemDecision.Kind, _ key: String, label: String, new: String) -> (
        ItemChange.Verb, String
    ) {
        switch (noun, key) {
        case (.todo, "completed"): new == "true" ? (.completeTodo, "completed") : (.reopenTodo, "reopened")
        case (.todo, "text"): (.editTodo, "renamed to '\(new)'")
        case (.todo, "dueDate"): (.dueTodo, "due date changed")
        case (.task, "state"):
            (
                new == "finished" ? .finishTask : new == "inProgress" ? .startTask : .editTask,
                "now \(new == "inProgress" ? "in progress" : new)"
            )
        case (.task, "title"): (.editTask, "renamed to '\(new)'")
        case (.task, "timeSlips"): (.timeTask, "time recorded")
        case (.todo, _): (.editTodo, "\(label) changed")
        case (.task, _): (.editTask, "\(label) changed")
        case (.project, _): (.other, "\(label) changed")
        }
    }

    private static func added(_ noun: ItemDecision.Kind, _ label: String) -> ItemChange.Verb {
        switch noun {
        case .todo: .addTodo
        case .project: .addProject(label)
        case .task: .addTask
        }
    }

    private static func removed(_ noun: ItemDecision.Kind, _ label: String) -> ItemChange.Verb {
        switch noun {
        case .todo: .removeTodo
        case .project: .removeProject(label)
        case .task: .removeTask
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
        var phrases = group(
            "todo",
            [
                (.addTodo, "add"), (.completeTodo, "complete"), (.reopenTodo, "reopen"), (.editTodo, "edit"),
                (.dueTodo, "change the due date of"), (.removeTodo, "remove"),
            ])
        for verb in counts.keys.sorted() {
            switch verb {
            case let .addProject(title): phrases.append("add project \(title)")
            case let .renameProject(title): phrases.append("rename project \(title)")
            case let .removeProject(title): phrases.append("remove project \(title)")
            default: break
            }
        }
        phrases += group(
            "task",
            [
                (.addTask, "add"), (.startTask, "start"), (.finishTask, "finish"), (.editTask, "edit"),
                (.timeTask, "record time on"), (.removeTask, "remove"),
            ])
        if phrases.isEmpty {
            let n = changes.count
            phrases = n == 0 ? ["update the store"] : ["update \(n) \(n == 1 ? "file" : "files")"]
        }
        let text = phrases.joined(separator: ", ")
        return text.prefix(1).uppercased() + text.dropFirst()
    }
}

extension StoredItem {
    var todo: TodoItem? { if case let .todo(todo) = self { todo } else { nil } }
    var project: Project? { if case let .project(project, _) = self { project } else { nil } }
    var task: ProjectTask? { if case let .task(task, _, _) = self { task } else { nil } }
}
