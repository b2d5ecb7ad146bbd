import Docket
import DocketSpecSupport
import DocketSystem
import Foundation
import Nimble
import Quick
import Synchronization

/// `StoreQueue`, the handle an app shares between tasks: concurrent edits and
/// syncs from many tasks, cancellation, and the stream of changes.
final class StoreQueueSpec: QuickSpec {
    override class func spec() {
        var root: URL!
        var remote: URL!
        beforeEach {
            root = temporaryFolder("docket-queue")
            remote = root.appendingPathComponent("remote.git")
            gitCLI(["init", "-q", "--bare", "-b", "main", remote.path], in: root)
        }
        afterEach { try? FileManager.default.removeItem(at: root) }
        func clone(_ name: String) throws -> StoreQueue {
            let (remote, folder) = (remote!, root.appendingPathComponent(name))
            return try awaiting { try await StoreQueue.clone(url: remote.path, into: folder) }
        }

        describe("a store shared between tasks") {
            it("keeps every edit of 8 editing tasks while 2 tasks sync it with another store, and both converge") {
                let laptop = try clone("laptop")
                try awaiting { try await laptop.sync() }
                let desk = try clone("desk")
                let rounds = propertyScaled(6)
                let made = try awaiting {
                    try await withThrowingTaskGroup(of: [String].self) { group in
                        for writer in 0..<8 {
                            group.addTask {
                                let store = writer.isMultiple(of: 2) ? laptop : desk
                                var made: [String] = []
                                for round in 0..<rounds {
                                    let text = "Todo \(round) of writer \(writer)"
                                    try await store.addTodo(TodoItem(text: text))
                                    made.append(text)
                                }
                                return made
                            }
                        }
                        for store in [laptop, desk] {
                            group.addTask {
                                for _ in 0..<rounds { try await store.sync() }
                                return []
                            }
                        }
                        return try await group.reduce(into: [String]()) { $0 += $1 }
                    }
                }
                let (one, other) = try awaiting {
                    for _ in 0..<2 {
                        try await laptop.sync()
                        try await desk.sync()
                    }
                    return (try await laptop.load().state, try await desk.load().state)
                }
                expect(one.todos.map(\.text).sorted()) == made.sorted()
                expect(other) == one
                expect(fsckProblem(laptop.root)).to(beNil())
            }
        }

        describe("a cancelled task") {
            it("stops its sync mid-transfer, as a killed one would: the next sync finishes and nothing is lost") {
                let daemon = GitDaemon(serving: root)
                defer { daemon.stop() }
                let laptop = try clone("laptop")
                let desk = try clone("desk")
                try awaiting {
                    try await laptop.edit { state in
                        AppState(
                            todos: state.todos
                                + (0..<3000).map { TodoItem(text: "Todo \($0) with a few words to weigh") },
                            projects: state.projects, removed: state.removed)
                    }
                    try await laptop.sync()
                    try await desk.addTodo(TodoItem(text: "From the desk"))
                }
                // The desk's sync over git://, cancelled as soon as data moves.
                gitCLI(["remote", "set-url", "origin", daemon.url("remote.git")], in: desk.root)
                let moving = Mutex<Task<SyncOutcome, any Error>?>(nil)
                let options = {
                    var options = TransferOptions.fromEnvironment()
                    options.progress = { _ in moving.withLock { $0?.cancel() } }
                    return options
                }()
                let cancelled = try awaiting {
                    let sync = Task { try await desk.sync(options: options) }
                    moving.withLock { $0 = sync }
                    do {
                        _ = try await sync.value
                        return false
                    } catch is CancellationError {
                        return true
                    }
                }
                expect(cancelled) == true
                // Nothing lost, nothing half done: the next syncs take everything in and send the desk's todo.
                let (one, other) = try awaiting {
                    try await desk.sync()
                    try await laptop.sync()
                    return (try await laptop.load().state, try await desk.load().state)
                }
                expect(one.todos.map(\.text)).to(contain("From the desk"))
                expect(one.todos.count) == 3001
                expect(other) == one
                expect(fsckProblem(desk.root)).to(beNil())
            }
        }

        describe("a store made through the library") {
            it("has git's merge driver set up for the docket on the PATH, as docket init does: the CLI sets nothing") {
                let bin = root.appendingPathComponent("bin")
                try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
                try FileManager.default.createSymbolicLink(
                    atPath: bin.appendingPathComponent("docket").path, withDestinationPath: docketBinary)
                let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
                setenv("PATH", bin.path + ":" + path, 1)
                defer { setenv("PATH", path, 1) }
                let made = try StoreQueue.create(at: root.appendingPathComponent("made"))
                let cloned = try clone("cloned")
                for store in [made, cloned] {
                    let driver = gitCLI(["config", "merge.docket.driver"], in: store.root).stdout
                    expect(driver) == URL(fileURLWithPath: docketBinary).resolvingSymlinksInPath().path
                        + " merge-driver %O %A %B %P\n"
                    let listed = docket(["list"], store: store.root)
                    expect(listed.stderr).toNot(contain("Set up git's merge driver"))
                }
            }
            it("leaves the driver unset when no docket is on the PATH, so git merges the files as text") {
                let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
                setenv("PATH", "/usr/bin:/bin", 1)
                defer { setenv("PATH", path, 1) }
                let made = try StoreQueue.create(at: root.appendingPathComponent("made"))
                expect(gitCLI(["config", "merge.docket.driver"], in: made.root).stdout) == ""
            }
        }

        describe("a git lock file that no other process holds") {
            func lockFile(_ name: String, age: TimeInterval = 0) -> String {
                let path = root.appendingPathComponent(name).path
                _ = FileManager.default.createFile(atPath: path, contents: Data("x".utf8))
                if age > 0 {
                    try? FileManager.default.setAttributes(
                        [.modificationDate: Date().addingTimeInterval(-age)], ofItemAtPath: path)
                }
                return path
            }
            it("is kept while another thread of this process holds it, as another store's push would") {
                let path = lockFile("main.lock", age: 10)
                let held = FileHandle(forReadingAtPath: path)
                defer { try? held?.close() }
                expect(AbandonedLocks.clear([path])) == [path]
                expect(FileManager.default.fileExists(atPath: path)) == true
            }
            it("is left to a writer that closed it and renames it a moment later, as libgit2 does") {
                let path = lockFile("main.lock")
                let target = root.appendingPathComponent("main").path
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) { _ = rename(path, target) }
                expect(AbandonedLocks.clear([path])) == []
                expect(FileManager.default.fileExists(atPath: target)) == true
            }
            it("is removed once it has been still, as a killed git leaves it") {
                let path = lockFile("index.lock", age: 10)
                expect(AbandonedLocks.clear([path])) == []
                expect(FileManager.default.fileExists(atPath: path)) == false
            }
        }

        describe("SyncService, run as a task") {
            it("syncs each store's edits to the other, refuses a second service on a store, and stops when cancelled") {
                let laptop = try clone("laptop")
                try awaiting { try await laptop.sync() }
                let desk = try clone("desk")
                let events = Mutex<[String]>([])
                let services = [laptop, desk].map { store in
                    // The trailing closure is the report.
                    SyncService(store, interval: 0.5, delay: 0.1) { event in events.withLock { $0.append("\(event)") } }
                }
                let running = services.map { service in Task.detached { try await service.run() } }
                defer { running.forEach { $0.cancel() } }
                expect(events.withLock { $0.filter { $0.hasPrefix("Watching") }.count }).toEventually(equal(2))
                let second = try awaiting { () -> Bool in
                    do {
                        try await SyncService(laptop).run()
                        return false
                    } catch is Store.AlreadyWatched {
                        return true
                    }
                }
                expect(second) == true
                try awaiting { try await laptop.addTodo(TodoItem(text: "From the laptop")) }
                try awaiting { try await desk.addTodo(TodoItem(text: "From the desk")) }
                func texts(_ store: StoreQueue) -> [String] {
                    ((try? awaiting { try await store.load().state.todos.map(\.text) }) ?? []).sorted()
                }
                expect(texts(laptop)).toEventually(equal(["From the desk", "From the laptop"]), timeout: .seconds(10))
                expect(texts(desk)).toEventually(equal(["From the desk", "From the laptop"]), timeout: .seconds(10))
                running.forEach { $0.cancel() }
                expect(events.withLock { $0.filter { $0.hasPrefix("Stopped watching") }.count })
                    .toEventually(equal(2), timeout: .seconds(5))
                expect(events.withLock { $0.filter { $0.hasPrefix("Error") } }) == []
            }
        }

        describe("an import") {
            it("brings another tool's list in as one commit, off the cooperative threads, and observers hear of it") {
                let laptop = try clone("laptop")
                let heard = Mutex<[StoreChange]>([])
                let listening = Task.detached {
                    for await change in laptop.changes(pollInterval: .seconds(60)) {
                        heard.withLock { $0.append(change) }
                    }
                }
                defer { listening.cancel() }
                Thread.sleep(forTimeInterval: 0.3)
                let exported = Data(
                    #"[{"uuid":"5d0c1d2e-7f7a-4c55-9d51-3f1d1d3c9a01","description":"Buy milk","status":"pending","entry":"20261125T100000Z"}]"#
                        .utf8)
                let batch = Taskwarrior.read(exported, file: "task export", projects: [:])
                let outcome = try awaiting { try await laptop.importBatch(batch, from: "task export") }
                expect(outcome.commit).toNot(beNil())
                expect(try laptop.read { try $0.load() }.state.todos.map(\.text)) == ["Buy milk"]
                expect(heard.withLock { $0.last?.added.count }).toEventually(equal(1), timeout: .seconds(5))
                expect(heard.withLock { $0.last?.kind }) == .committed
            }
        }

        describe("a remote made through the library") {
            it("is a folder URL that clone and addRemote take as it is, naming the folder to git") {
                let made = try Store.createRemote(at: root.appendingPathComponent("made.git"))
                expect(made.isFileURL) == true
                expect(made.path) == root.appendingPathComponent("made.git").standardizedFileURL.path
                let first = try Store.clone(url: made, into: root.appendingPathComponent("first"))
                let milk = TodoItem(text: "Buy milk")
                try first.addTodo(milk)
                try first.sync()
                let secondFolder = root.appendingPathComponent("second")
                let second = try awaiting { try await StoreQueue.clone(url: made, into: secondFolder) }
                expect(try second.read { try $0.load() }.state.todos.map(\.id)) == [milk.id]
                let third = try Store.create(at: root.appendingPathComponent("third"))
                let added = try third.addRemote("origin", url: made)
                expect(added.url) == made.path
                expect(added.unreachable).to(beNil())
            }
        }

        describe("the stream of changes") {
            it("names this handle's edits, a pull's arrivals, and another process's change as they come") {
                let laptop = try clone("laptop")
                try awaiting { try await laptop.sync() }
                let desk = try clone("desk")
                let heard = Mutex<[StoreChange]>([])
                // Detached: the example runs on the main thread, which it blocks while it waits.
                let listening = Task.detached {
                    for await change in laptop.changes(pollInterval: .seconds(30)) {
                        heard.withLock { $0.append(change) }
                    }
                }
                defer { listening.cancel() }
                Thread.sleep(forTimeInterval: 0.3)
                let milk = TodoItem(text: "Buy milk")
                try awaiting { try await laptop.addTodo(milk) }
                expect(heard.withLock { $0.last?.kind }).toEventually(equal(.edited))
                expect(heard.withLock { $0.last?.added }) == [milk.id]
                // Another machine's todo, arriving by a pull.
                let bread = TodoItem(text: "Buy bread")
                try awaiting {
                    try await desk.addTodo(bread)
                    try await desk.sync()
                    try await laptop.sync()
                }
                expect(heard.withLock { $0.last?.kind }).toEventually(equal(.pulled))
                expect(heard.withLock { $0.last?.added }) == [bread.id]
                // Another process: the docket tool in the same folder, seen through inotify long before the poll.
                let count = heard.withLock { $0.count }
                let added = docket(["add", "Call Anna"], store: laptop.root).stdout
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                expect(heard.withLock { $0.count }).toEventually(beGreaterThan(count), timeout: .seconds(5))
                let last = heard.withLock { $0.last }
                expect(last?.kind) == .seen
                expect(last?.added.count) == 1
                expect(last?.added.first?.uuidString.lowercased().hasPrefix(added)) == true
            }
            it("feeds seed 001's AppStore: each change it reports reloads the app's state, and its subscribers hear") {
                let laptop = try clone("laptop")
                final class Subscriber: AppStoreSubscriber {
                    var heard: [[String]] = []
                    func updated(store: AppStore) { heard.append(store.state.todos.map(\.text)) }
                }
                let app = AppStore(persister: StorePersister(store: try Store.open(at: laptop.root)))
                let subscriber = Subscriber()
                app.subscribe(subscriber: subscriber)
                let changes = Mutex(0)
                let listening = Task.detached {
                    for await _ in laptop.changes(pollInterval: .seconds(60)) { changes.withLock { $0 += 1 } }
                }
                defer { listening.cancel() }
                Thread.sleep(forTimeInterval: 0.3)
                // Another process adds a todo; the app, on its own thread, reloads when the stream says so.
                expect(docket(["add", "Call Anna"], store: laptop.root).status) == 0
                expect(changes.withLock { $0 }).toEventually(equal(1), timeout: .seconds(5))
                app.reload()
                expect(subscriber.heard) == [["Call Anna"]]
                // The app's own change is persisted, and the stream reports it too.
                app.change(.adding(.todo(TodoItem(text: "Buy milk"))))
                expect(try laptop.read { try $0.load() }.state.todos.map(\.text).sorted()) == ["Buy milk", "Call Anna"]
                expect(changes.withLock { $0 }).toEventually(equal(2), timeout: .seconds(5))
            }
            it("asks the store's change monitor when it is on, holding no inotify watch of its own") {
                let laptop = try clone("laptop")
                func inotifyInstances() -> Int {
                    let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
                    return fds.filter {
                        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0))
                            == "anon_inode:inotify"
                    }.count
                }
                expect(docket(["monitor", "on"], store: laptop.root).status) == 0
                defer { _ = docket(["monitor", "off"], store: laptop.root) }
                let before = inotifyInstances()
                let heard = Mutex<[StoreChange]>([])
                let listening = Task.detached {
                    for await change in laptop.changes(pollInterval: .seconds(60)) {
                        heard.withLock { $0.append(change) }
                    }
                }
                defer { listening.cancel() }
                Thread.sleep(forTimeInterval: 0.5)
                expect(inotifyInstances()) == before
                let added = docket(["add", "Call Anna"], store: laptop.root).stdout
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                expect(heard.withLock { $0.last?.added.first?.uuidString.lowercased() })
                    .toEventually(beginWith(added), timeout: .seconds(5))
                expect(heard.withLock { $0.last?.kind }) == .seen
                // With the monitor off, the stream watches the folders itself.
                listening.cancel()
                expect(docket(["monitor", "off"], store: laptop.root).status) == 0
                let watching = Task.detached { for await _ in laptop.changes(pollInterval: .seconds(60)) {} }
                defer { watching.cancel() }
                expect(inotifyInstances()).toEventually(equal(before + 1), timeout: .seconds(5))
            }
        }
    }
}
