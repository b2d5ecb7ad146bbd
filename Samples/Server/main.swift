// A small HTTP service on Docket, with Foundation and the system's sockets alone: every request goes through one
// StoreQueue, reads through its snapshot (never waiting for a write or a sync), and /events streams its changes.
//
//   GET   /todos[?tag=T&ready=1&done=1&sort=priority]   the list, as `docket list` filters and sorts it
//   POST  /todos          {"text": "Buy milk"}           adds a todo
//   PATCH /todos/<id>     {"done": true, "text": "…"}     changes one
//   POST  /sync                                          commits, pulls and pushes
//   GET   /events                                        server-sent events: each change, with its todos
//
// Errors come back as {"code": "input.notFound", "message": "…"}, with a status from the code.
// Run: swift run docket-server-sample --store <folder> [--port 8080]   (load: Samples/Server/load.py)
import Dispatch
import Docket
import Foundation

let arguments = CommandLine.arguments
func option(_ name: String) -> String? { arguments.firstIndex(of: name).map { arguments[$0 + 1] } }
let folder = URL(fileURLWithPath: option("--store") ?? "docket-server-store")
let port = UInt16(option("--port") ?? "8080") ?? 8080

/// A todo as the service sends it.
struct TodoJSON: Encodable {
    let id: UUID
    let text: String
    let done: Bool
    let tags: [String]
    let priority: String?

    init(_ todo: TodoItem) {
        (id, text, done, tags, priority) = (todo.id, todo.text, todo.completed, todo.tags, todo.priority?.rawValue)
    }
}

/// A change as /events sends it.
struct ChangeJSON: Encodable {
    let kind: String
    let added: [UUID]
    let edited: [UUID]
    let removed: [UUID]
    let todos: [TodoJSON]

    init(_ change: StoreChange) {
        kind = "\(change.kind)"
        (added, edited, removed) = (change.added, change.edited, change.removed)
        todos = change.values.values.compactMap { if case let .todo(todo) = $0 { TodoJSON(todo) } else { nil } }
    }
}

/// What a PATCH may change.
struct TodoPatch: Decodable {
    let text: String?
    let done: Bool?
}

struct Failure: Encodable {
    let code: String
    let message: String
}

/// A status for an error, from its code.
func reply(for error: any Error) -> Reply {
    guard let error = error as? StoreError else {
        return .json(400, Failure(code: "request", message: "\(error)"))
    }
    let status =
        switch error.code {
        case "input.notFound": 404
        case "state.locked": 503
        case let code where code.hasPrefix("input."): 400
        default: 500
        }
    return .json(status, Failure(code: error.code, message: error.message))
}

func handle(_ request: Request, on connection: Connection, store: StoreQueue) -> Reply? {
    switch (request.method, request.path) {
    case ("GET", ["todos"]):
        var filter = EntryFilter()
        filter.tags = request.query["tag"].map { [$0] } ?? []
        if request.query["ready"] == "1" { filter.readiness = .ready }
        if request.query["done"] == "1" { filter.status = .all }
        if let sort = request.query["sort"], let term = EntryOrder.Term(text: sort) {
            filter.order = EntryOrder([term])
        }
        let chosen = filter
        return waiting { try await store.entries(chosen) }.map { listed in
            Reply.json(200, listed.entries.compactMap { if case let .todo(todo) = $0 { TodoJSON(todo) } else { nil } })
        }.recover(reply)
    case ("POST", ["todos"]):
        guard let text = (try? JSONDecoder().decode([String: String].self, from: request.body))?["text"] else {
            return .json(400, Failure(code: "request", message: "the body needs a \"text\""))
        }
        let todo = TodoItem(text: text)
        return waiting { try await store.addTodo(todo) }.map { Reply.json(201, TodoJSON(todo)) }.recover(reply)
    case ("PATCH", let path) where path.count == 2 && path[0] == "todos":
        guard let id = UUID(uuidString: path[1]),
            let patch = try? JSONDecoder().decode(TodoPatch.self, from: request.body)
        else { return .json(400, Failure(code: "request", message: "a PATCH names a todo's id and sends JSON")) }
        return waiting {
            try await store.updateTodo(id) { todo in
                var changes: [TodoItem.Change] = []
                if let text = patch.text { changes.append(.text(text)) }
                if let done = patch.done { changes.append(.completed(done)) }
                return changes.reduce(todo) { $0.alter($1) }
            }.after
        }.map { Reply.json(200, TodoJSON($0)) }.recover(reply)
    case ("POST", ["sync"]):
        return waiting { try await store.sync() }.map { Reply.json(200, ["remote": $0.remote]) }.recover(reply)
    case ("GET", ["events"]):
        let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\r\n"
        guard connection.write(Data(head.utf8)) else { return nil }
        _ = waiting {
            for await change in store.changes() {
                let line = "data: " + String(decoding: try JSON.encoder.encode(ChangeJSON(change)), as: UTF8.self)
                if !connection.write(Data((line + "\n\n").utf8)) { break }
            }
        }
        close(connection.fd)
        return nil
    default:
        return .json(
            404,
            Failure(code: "request", message: "no route for \(request.method) /\(request.path.joined(separator: "/"))"))
    }
}

extension Result where Failure == any Error {
    func recover(_ body: (any Error) -> Success) -> Success {
        switch self {
        case let .success(value): value
        case let .failure(error): body(error)
        }
    }
}

do {
    let store = try StoreQueue.create(at: folder)
    print("Serving \(folder.path) on http://127.0.0.1:\(port)")
    try serve(port: port) { connection in
        guard let request = connection.read() else {
            close(connection.fd)
            return
        }
        if let reply = handle(request, on: connection, store: store) { connection.send(reply) }
    }
} catch {
    FileHandle.standardError.write(Data("docket-server-sample: \(error)\n".utf8))
    exit(1)
}
