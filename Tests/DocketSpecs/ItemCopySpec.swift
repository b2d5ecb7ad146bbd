import DocketModel
import DocketSpecSupport
import Foundation
import Nimble
import Quick

@testable import Docket

/// Every copy of an item made from another keeps each field the copy does not
/// set on purpose: the next instance of a repeating todo, a removed next
/// instance brought back (of a todo or a task), a todo or task read back from its
/// calendar entry, a task a Timewarrior import gives time to, and a todo.txt line's todo given its id. Each field is
/// named from the
/// item's `fields`, so a field added later is checked without an edit here.
final class ItemCopySpec: QuickSpec {
    override class func spec() {
        /// The fields of `copy` that differ from `original`'s, but for those named in `set`.
        func dropped(_ original: TodoItem, _ copy: TodoItem, setting set: Set<String>) -> [String] {
            TodoItem.fields.filter { !set.contains($0.key) && !$0.isSame(original, copy) }.map(\.key)
        }
        /// A random todo that repeats, with a due date.
        func repeating(_ g: inout SeededGenerator) -> TodoItem {
            RandomValues.todo(&g).replacing(
                completed: false, due: RandomValues.due(&g), completedDate: .some(nil),
                recurrence: .some(RandomValues.recurrence(&g)))
        }

        it("reads a todo from the cache's compact form in one go as field by field, every field") {
            forAll(300) { g in
                let todo = RandomValues.todo(&g)
                var writer = CompactWriter()
                todo.write(to: &writer)
                return writer.bytes.withUnsafeBytes { bytes -> String? in
                    var once = CompactReader(bytes)
                    var each = CompactReader(bytes)
                    guard let read = try? TodoItem.read(from: &once),
                        let byField = try? TodoItem.readingEachField(from: &each)
                    else { return "a reader threw" }
                    guard once.isAtEnd, each.isAtEnd else { return "a reader left bytes unread" }
                    let differ = TodoItem.fields.filter { !$0.isSame(read, byField) || !$0.isSame(read, todo) }
                    return differ.isEmpty ? nil : "the readers differ in \(differ.map(\.key))"
                }
            }
        }

        it("keeps every other field in the next instance of a repeating todo") {
            forAll(200) { g in
                let todo = repeating(&g)
                guard let next = todo.nextOccurrence(done: RandomValues.date(&g)) else { return nil }
                let lost = dropped(
                    todo, next,
                    setting: [
                        "id", "creationDate", "completed", "dueDate", "alterDate", "notes", "completedDate",
                        "recurrence", "waitDate", "scheduledDate", // moved with the due date (TodoItemSpec)
                        "claim", // a new instance is claimed by no one
                    ])
                return lost.isEmpty ? nil : "the next instance dropped \(lost)"
            }
        }

        it("keeps every field of a removed next instance it brings back, but its date") {
            forAll(200) { g in
                let todo = repeating(&g)
                // The next instance's id is known before: it is removed, then the todo completed.
                guard let id = todo.nextOccurrence(done: Date())?.id else { return nil }
                let removed = AppState(
                    todos: [todo], projects: [],
                    removed: [Tombstone(id: id, kind: .todo, removedDate: RandomValues.date(&g))])
                let state = removed.completingTodo(todo.id)
                guard let done = state.todo(id: todo.id), let next = done.nextOccurrence(done: done.completedDate!),
                    let back = state.todo(id: id)
                else { return "the next instance did not come back" }
                let lost = dropped(next, back, setting: ["alterDate"])
                return lost.isEmpty ? nil : "the instance brought back dropped \(lost)"
            }
        }

        it("keeps every field a calendar entry cannot say when a todo is read back from its VTODO") {
            // What a VTODO carries; every other field must come from the todo it was.
            let carried: Set<String> = [
                "text", "completed", "dueDate", "alterDate", "tags", "priority", "notes", "completedDate", "recurrence",
            ]
            forAll(200) { g in
                // NB: a VTODO must have a SUMMARY; a todo without text has none to give (see the closing note of #40).
                var todo = RandomValues.todo(&g)
                if todo.text.isEmpty { todo = todo.replacing(text: "Untitled") }
                let file = VTodo.file(.todo(todo), existing: nil, uid: nil)
                let fields: VTodo.Fields
                do { fields = try VTodo.fields(try VTodo.vtodo(in: file).vtodo) } catch {
                    return "its VTODO did not read: \(error)"
                }
                guard case let .todo(read) = VTodo.entry(fields, id: todo.id, previous: .todo(todo), now: Date()) else {
                    return "it read as a task"
                }
                let lost = dropped(todo, read, setting: carried)
                return lost.isEmpty ? nil : "reading the VTODO back dropped \(lost)"
            }
        }

        it("keeps every field a calendar entry cannot say when a task is read back from its VTODO") {
            let carried: Set<String> = [
                "title", "dueDate", "state", "alterDate", "tags", "priority", "notes", "completedDate",
            ]
            forAll(200) { g in
                var task = RandomValues.task(&g)
                if task.title.isEmpty { task = task.replacing(title: "Untitled") }
                let project = RandomValues.uuid(&g)
                let file = VTodo.file(.task(task, project: project), existing: nil, uid: nil)
                let fields: VTodo.Fields
                do { fields = try VTodo.fields(try VTodo.vtodo(in: file).vtodo) } catch {
                    return "its VTODO did not read: \(error)"
                }
                guard
                    case let .task(read, _) = VTodo.entry(
                        fields, id: task.id, previous: .task(task, project: project), now: Date())
                else {
                    return "it read as a todo"
                }
                let lost = ProjectTask.fields.filter { !carried.contains($0.key) && !$0.isSame(task, read) }.map(\.key)
                return lost.isEmpty ? nil : "reading the VTODO back dropped \(lost)"
            }
        }

        it("keeps every other field in the next instance of a repeating task") {
            forAll(200) { g in
                let task = RandomValues.task(&g).replacing(
                    dueDate: DueDate(RandomValues.date(&g)), state: .finished,
                    recurrence: .some(RandomValues.recurrence(&g)))
                guard let next = task.nextOccurrence(done: RandomValues.date(&g)) else { return nil }
                let set: Set<String> = [
                    "id", "dueDate", "state", "timeSlips", "alterDate", "notes", "completedDate", "creationDate",
                    "recurrence", "waitDate", "scheduledDate", // moved with the due date (ProjectTaskSpecs)
                    "claim", // a new instance is claimed by no one
                ]
                let lost = ProjectTask.fields.filter { !set.contains($0.key) && !$0.isSame(task, next) }.map(\.key)
                return lost.isEmpty ? nil : "the next instance dropped \(lost)"
            }
        }

        it("keeps every field but its slips of a task a Timewarrior import gives time to") {
            forAll(100) { g in
                let task = RandomValues.task(&g).replacing(
                    title: "Write report", creationDate: .some(RandomValues.date(&g)))
                let project = Project(id: RandomValues.uuid(&g), title: "Work", tasks: [task], alterDate: nil)
                let export = #"[{"start":"20261120T090000Z","end":"20261120T100000Z","tags":["Write report"]}]"#
                let batch = Timewarrior.read(Data(export.utf8), file: "timew.json", projects: [project])
                guard let read = batch.state.projects.first?.task(id: task.id) else {
                    return "the task did not get the slip"
                }
                let lost = ProjectTask.fields.filter { $0.key != "timeSlips" && !$0.isSame(task, read) }.map(\.key)
                return lost.isEmpty ? nil : "the import dropped \(lost)"
            }
        }

        it("keeps every field but the id when a todo is given another id") {
            forAll(200) { g in
                let todo = RandomValues.todo(&g)
                let lost = dropped(todo, todo.replacing(id: RandomValues.uuid(&g)), setting: ["id"])
                return lost.isEmpty ? nil : "the new id dropped \(lost)"
            }
        }
    }
}
