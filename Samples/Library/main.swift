// Docket used from Swift: two stores (a laptop and a desk) sync through a
// bare remote in a temporary folder; each edits the same todo and task at
// once; after syncing both hold the same merged state, and the merge report
// says what was decided. Run: swift run docket-sample
import Docket
import Foundation

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("docket-sample-\(getpid())")
defer { try? FileManager.default.removeItem(at: folder) }

do {
    // A remote and two machines that clone it (the first clone of an empty remote makes the store).
    let remote = try Store.createRemote(at: folder.appendingPathComponent("remote.git"))
    let laptop = try Store.clone(url: remote, into: folder.appendingPathComponent("laptop"))

    // The laptop adds a todo, and a project with a task on which time is running; then syncs.
    let milk = TodoItem(text: "Buy milk")
    try laptop.addTodo(milk)
    let party = Project(title: "Party")
    try laptop.addProject(party)
    let beer = ProjectTask(title: "Buy Beer")
    try laptop.addTask(beer, to: party.id)
    try laptop.updateTask(beer.id, in: party.id) { $0.alter(by: .recording(.start)) }
    try laptop.sync()
    let desk = try Store.clone(url: remote, into: folder.appendingPathComponent("desk"))

    // Concurrent edits: both rename the todo and tag it; the laptop renames the task while the desk stops its slip and
    // finishes it.
    try laptop.updateTodo(milk.id) { $0.alter(.text("Buy oat milk"), .tagging(add: ["errand"], remove: [])) }
    try laptop.updateTask(beer.id, in: party.id) { $0.alter(by: .setting(.title(to: "Buy craft beer"))) }
    try desk.updateTodo(milk.id) { $0.alter(.text("Buy soy milk"), .tagging(add: ["shop"], remove: [])) }
    try desk.updateTask(beer.id, in: party.id) { $0.alter(by: .recording(.stop), .setting(.state(to: .finished))) }

    // Each syncs (commit, pull and merge, push); the laptop syncs again to take the desk's merge.
    try laptop.sync()
    let synced = try desk.sync()
    try laptop.sync()

    for pull in synced.pulls {
        if case let .merged(commit, report) = pull {
            print("The desk merged in \(commit.prefix(7)): \(report.summary)")
            for line in report.items.flatMap(\.lines) { print("  " + line) }
        }
    }
    let state = try laptop.load().state
    print("\nBoth machines hold the same state: \(state == (try desk.load().state))")
    for todo in state.todos {
        print("todo  \(todo.text)  tags: \(todo.tags.joined(separator: ", "))")
    }
    for project in state.projects {
        for task in project.tasks {
            let slips = task.timeSlips.map { $0.stop == nil ? "running" : "stopped" }.joined(separator: ", ")
            print("task  \(project.title) / \(task.title)  \(task.state.rawValue)  slips: \(slips)")
        }
    }
} catch {
    FileHandle.standardError.write(Data("docket-sample: \(error)\n".utf8))
    exit(1)
}
