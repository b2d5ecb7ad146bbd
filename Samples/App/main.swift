// An app's life on Docket: two stores (a laptop and a desk) that sync through a bare remote, each shared by
// tasks, and a third (a phone) kept synced by a SyncService. Eight tasks edit (four on each store), two tasks
// sync (one each), a reader takes snapshots and lists without waiting, and each store's stream of changes is
// printed as it reports them. It runs for --seconds (10 by default) or until Ctrl-C or SIGTERM, then syncs all
// three once more and checks that every edit is kept and all hold the same state.
//
// Run: swift run docket-app-sample [--seconds 30] [--quiet]
import Dispatch
import Docket
import Foundation

let arguments = CommandLine.arguments
let seconds = arguments.firstIndex(of: "--seconds").flatMap { Double(arguments[$0 + 1]) } ?? 10
let quiet = arguments.contains("--quiet")
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("docket-app-sample-\(getpid())")
defer { try? FileManager.default.removeItem(at: folder) }

/// A value behind a lock. NB: NSLock rather than `Mutex`, whose lock Thread Sanitizer cannot see on Linux.
final class Shared<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// Lines from many tasks, printed whole.
let printed = Shared(0)
@Sendable func say(_ line: String) {
    printed.withLock { count in
        count += 1
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

/// The texts of the todos the editors made, gathered when they stop.
let finalCheck = Shared<[String]>([])

/// Stops the run: when the time is up, or at the first Ctrl-C or SIGTERM.
let stopping = Shared<[Task<Void, Never>]>([])
let signals = [SIGINT, SIGTERM].map { number in
    signal(number, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
    source.setEventHandler {
        say("Stopping (signal \(number))")
        stopping.withLock { $0.forEach { $0.cancel() } }
    }
    source.resume()
    return source
}

do {
    let remote = try Store.createRemote(at: folder.appendingPathComponent("remote.git"))
    let laptop = try await StoreQueue.clone(url: remote, into: folder.appendingPathComponent("laptop"))
    try await laptop.sync()
    let desk = try await StoreQueue.clone(url: remote, into: folder.appendingPathComponent("desk"))
    let stores = [("laptop", laptop), ("desk", desk)]
    // A third store kept synced by a SyncService, as `docket sync --watch` keeps one.
    let phone = try await StoreQueue.clone(url: remote, into: folder.appendingPathComponent("phone"))
    let service = SyncService(phone, interval: 0.5, delay: 0.1) { event in
        if !quiet { say("phone: \(event)") }
    }
    let syncing = Task { try await service.run() }

    // Each store's changes, as its stream reports them.
    let listeners = stores.map { name, store in
        Task {
            for await change in store.changes(pollInterval: .seconds(1)) where !quiet {
                say("\(name): \(change)")
            }
        }
    }

    let work = Task {
        await withTaskGroup(of: [String].self) { group in
            for editor in 0..<8 {
                let (name, store) = stores[editor % 2]
                group.addTask {
                    var made: [String] = []
                    while !Task.isCancelled {
                        let text = "Todo \(made.count + 1) of editor \(editor) on the \(name)"
                        do {
                            let todo = TodoItem(text: text)
                            try await store.addTodo(todo)
                            made.append(text)
                            // Now and then an edit of one's own todo, which the other store may be merging.
                            if made.count.isMultiple(of: 3) {
                                try await store.updateTodo(todo.id) {
                                    $0.alter(.tagging(add: ["editor\(editor)"], remove: []))
                                }
                            }
                        } catch is CancellationError {
                            break
                        } catch {
                            say("editor \(editor): \(error)")
                        }
                        try? await Task.sleep(for: .milliseconds(20))
                    }
                    return made
                }
            }
            // A reader, which never waits for the edits and syncs: the last committed snapshot, and the list.
            group.addTask {
                var reads = 0
                while !Task.isCancelled {
                    do {
                        let snapshot = try await laptop.snapshot()
                        var open = EntryFilter()
                        open.tags = ["editor0"]
                        let listed = try await laptop.entries(open)
                        reads += snapshot.state.todos.count >= listed.entries.count ? 1 : 0
                    } catch {
                        say("reader: \(error)")
                    }
                    try? await Task.sleep(for: .milliseconds(10))
                }
                if !quiet { say("reader: \(reads) snapshots read") }
                return []
            }
            for (name, store) in stores {
                group.addTask {
                    while !Task.isCancelled {
                        do {
                            try await store.sync()
                        } catch is CancellationError {
                            break
                        } catch {
                            say("\(name) sync: \(error)")
                        }
                        try? await Task.sleep(for: .milliseconds(100))
                    }
                    return []
                }
            }
            var made: [String] = []
            for await texts in group { made += texts }
            say("Made \(made.count) todos")
            finalCheck.withLock { $0 = made }
        }
    }
    stopping.withLock { $0.append(work) }
    let timer = Task {
        try? await Task.sleep(for: .seconds(seconds))
        work.cancel()
    }
    await work.value
    timer.cancel()

    // The service stopped, then every store synced once more and checked: every edit kept, the same state on all.
    syncing.cancel()
    _ = try? await syncing.value
    for _ in 0..<2 {
        try await laptop.sync()
        try await desk.sync()
        try await phone.sync()
    }
    listeners.forEach { $0.cancel() }
    let made = Set(finalCheck.withLock { $0 })
    let one = try await laptop.load().state
    let other = try await desk.load().state
    let third = try await phone.load().state
    let kept = Set(one.todos.map(\.text))
    let lost = made.subtracting(kept)
    let same = one == other && one == third
    say("\(made.count) todos made, \(lost.count) lost; all three stores the same: \(same ? "yes" : "no")")
    _ = signals
    if !lost.isEmpty || !same { exit(1) }
} catch {
    FileHandle.standardError.write(Data("docket-app-sample: \(error)\n".utf8))
    exit(1)
}
