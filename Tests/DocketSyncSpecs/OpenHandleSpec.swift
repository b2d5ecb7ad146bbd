import Docket
import DocketSpecSupport
import Foundation
import Nimble
import Quick
import Synchronization

/// A store kept open for days (an app's `StoreQueue`, a `SyncService`, `docket sync --watch`) takes a hook
/// installed, a git setting changed or a store format replaced while it is open at its next operation: no cache
/// outlives what it caches.
final class OpenHandleSpec: QuickSpec {
    override class func spec() {
        var root: URL!
        var remote: URL!
        var laptop: Machine!
        var desk: Machine!
        var watchers: [Background] = []
        beforeEach {
            let machines = TwoMachines("docket-openhandle")
            (root, remote, laptop, desk) = (machines.root, machines.remote, machines.laptop, machines.desk)
            runCommand(docketBinary, ["clone", remote.path, desk.folder.path])
        }
        afterEach {
            for watcher in watchers { watcher.stop(signal: SIGKILL) }
            watchers = []
            try? FileManager.default.removeItem(at: root)
        }

        /// Installs an `on-add` hook in the laptop's store that appends what it hears to a file, which it returns.
        func installHook() -> URL {
            let heard = root.appendingPathComponent("on-add.heard")
            let folder = laptop.folder.appendingPathComponent(".git/docket/hooks")
            try! FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let file = folder.appendingPathComponent("on-add")
            try! "#!/bin/sh\ncat >> '\(heard.path)'\n".write(to: file, atomically: true, encoding: .utf8)
            try! FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: file.path)
            return heard
        }
        func read(_ file: URL) -> String { (try? String(contentsOf: file, encoding: .utf8)) ?? "" }
        /// Adds a todo on the desk and syncs it to the remote.
        func addOnDesk(_ text: String) {
            expect(desk.run("add", text).status) == 0
            expect(desk.run("sync").status) == 0
        }
        func texts(_ queue: StoreQueue) -> [String] {
            ((try? awaiting { try await queue.load().state.todos.map(\.text) }) ?? []).sorted()
        }

        describe("a hook installed while the store is open") {
            it("runs for the todos a StoreQueue pulls at its next sync") {
                let queue = try StoreQueue.open(at: laptop.folder)
                addOnDesk("Before the hook")
                try awaiting { _ = try await queue.sync() }
                expect(texts(queue)) == ["Before the hook"]
                let heard = installHook()
                addOnDesk("After the hook")
                try awaiting { _ = try await queue.sync() }
                expect(read(heard)).to(contain("After the hook"))
                expect(read(heard)).notTo(contain("Before the hook"))
            }

            it("runs for the todos a SyncService pulls") {
                let queue = try StoreQueue.open(at: laptop.folder)
                let events = Mutex<[String]>([])
                let service = SyncService(queue, interval: 0.5, delay: 0.1) { event in
                    events.withLock { $0.append("\(event)") }
                }
                let running = Task.detached { try await service.run() }
                defer { running.cancel() }
                addOnDesk("Before the hook")
                expect(texts(queue)).toEventually(equal(["Before the hook"]), timeout: .seconds(20))
                let heard = installHook()
                addOnDesk("After the hook")
                expect(read(heard)).toEventually(contain("After the hook"), timeout: .seconds(20))
                expect(events.withLock { $0.filter { $0.hasPrefix("Error") } }) == []
            }

            it("runs for the todos sync --watch pulls") {
                let watcher = Background(
                    docketBinary, ["-C", laptop.folder.path, "sync", "--watch", "--interval", "1s", "--delay", "0.3s"],
                    log: root.appendingPathComponent("watch.log"))
                watchers.append(watcher)
                expect(watcher.waitFor("Watching \(laptop.folder.path)")).to(beTrue(), description: watcher.output)
                addOnDesk("Before the hook")
                // The watcher has finished the pull (and looked for hooks) once it logs it.
                expect(watcher.waitFor("Fast-forwarded to")).to(beTrue(), description: watcher.output)
                expect(laptop.state.todos.map(\.text)) == ["Before the hook"]
                let heard = installHook()
                addOnDesk("After the hook")
                expect(eventually { read(heard).contains("After the hook") }).to(beTrue(), description: watcher.output)
                expect(read(heard)).notTo(contain("Before the hook"))
            }
        }

        describe("the change monitor turned off while sync --watch runs") {
            it("is not asked, nor started again, by the watcher's next commit") {
                expect(laptop.run("monitor", "on").status) == 0
                defer { laptop.run("monitor", "off") }
                let watcher = Background(
                    docketBinary, ["-C", laptop.folder.path, "sync", "--watch", "--interval", "1s", "--delay", "0.3s"],
                    log: root.appendingPathComponent("watch.log"))
                watchers.append(watcher)
                expect(watcher.waitFor("Watching \(laptop.folder.path)")).to(beTrue(), description: watcher.output)
                laptop.run("add", "With the monitor on")
                expect(eventually { onRemoteTexts().contains("With the monitor on") }).to(
                    beTrue(), description: watcher.output)
                expect(laptop.run("monitor", "off").stdout).to(contain("it was stopped"))
                laptop.run("add", "With the monitor off")
                expect(eventually { onRemoteTexts().contains("With the monitor off") }).to(
                    beTrue(), description: watcher.output)
                expect(laptop.run("monitor").stdout).to(contain("The change monitor is off; 'docket monitor on'"))
            }
            /// The todos' texts on the remote's branch.
            func onRemoteTexts() -> String {
                gitCLI(["--git-dir", remote.path, "grep", "-h", "\"text\"", "main", "--", "todos"], in: root).stdout
            }
        }

        describe("a git setting changed while a StoreQueue is open") {
            func todoPath(_ queue: StoreQueue) throws -> (id: UUID, path: String) {
                let id = try awaiting { try await queue.load().state.todos[0].id }
                return (id, "todos/\(id.uuidString.prefix(2))/\(id.uuidString).json")
            }

            it("commits without the executable bit from the next commit once core.filemode is false") {
                let queue = try StoreQueue.open(at: laptop.folder)
                try awaiting { try await queue.addTodo(TodoItem(text: "First")) }
                try awaiting { _ = try await queue.commit() }
                let (id, path) = try todoPath(queue)
                laptop.git("config", "core.filemode", "false")
                try awaiting { try await queue.updateTodo(id) { $0.alter(.text("First, edited")) } }
                chmod(laptop.folder.appendingPathComponent(path).path, 0o755)
                try awaiting { _ = try await queue.commit() }
                expect(laptop.git("ls-tree", "HEAD", path)).to(beginWith("100644"))
            }

            it("looks at a skip-worktree file that is there from the next status once core.sparseCheckout is on") {
                let queue = try StoreQueue.open(at: laptop.folder)
                try awaiting { try await queue.addTodo(TodoItem(text: "First")) }
                try awaiting { _ = try await queue.commit() }
                let (id, path) = try todoPath(queue)
                try awaiting { try await queue.updateTodo(id) { $0.alter(.text("Edited in a sparse checkout")) } }
                laptop.git("update-index", "--skip-worktree", path)
                expect(try queue.read { try $0.status() }).to(beEmpty())
                laptop.git("config", "core.sparseCheckout", "true")
                expect(try queue.read { try $0.status() }.count) == 1
            }
        }

        for how in ["a SyncService", "sync --watch"] {
            describe("a git setting changed while \(how) runs") {
                var stop: (() -> Void)?
                afterEach { stop?() }
                /// Starts the laptop syncing by itself; returns once it pulled a todo, with that todo's path.
                func startSyncing() -> String {
                    if how == "sync --watch" {
                        let watcher = Background(
                            docketBinary,
                            ["-C", laptop.folder.path, "sync", "--watch", "--interval", "1s", "--delay", "0.3s"],
                            log: root.appendingPathComponent("watch.log"))
                        watchers.append(watcher)
                        addOnDesk("Before the flip")
                        expect(watcher.waitFor("Fast-forwarded to")).to(beTrue(), description: watcher.output)
                    } else {
                        let queue = try! StoreQueue.open(at: laptop.folder)
                        let service = SyncService(queue, interval: 0.5, delay: 0.1)
                        let running = Task.detached { try await service.run() }
                        stop = { running.cancel() }
                        addOnDesk("Before the flip")
                        expect(texts(queue)).toEventually(equal(["Before the flip"]), timeout: .seconds(20))
                    }
                    let id = laptop.state.todos[0].id
                    return "todos/\(id.uuidString.prefix(2))/\(id.uuidString).json"
                }
                func onRemote(_ arguments: String...) -> String {
                    gitCLI(["--git-dir", remote.path] + arguments, in: root).stdout
                }

                it("commits without the executable bit once core.filemode is false") {
                    let path = startSyncing()
                    laptop.git("config", "core.filemode", "false")
                    chmod(laptop.folder.appendingPathComponent(path).path, 0o755)
                    laptop.run("add", "After the flip")
                    expect(
                        eventually {
                            onRemote("ls-tree", "-r", "--name-only", "main", "todos").split(separator: "\n").count == 2
                        }
                    ).to(beTrue())
                    expect(onRemote("ls-tree", "main", path)).to(beginWith("100644"))
                }

                it("commits a hand edit of a skip-worktree file once git sparse-checkout is on") {
                    let path = startSyncing()
                    laptop.git("sparse-checkout", "set", "--no-cone", "/*", "!/todos/0A/")
                    laptop.git("update-index", "--skip-worktree", path)
                    let file = laptop.folder.appendingPathComponent(path)
                    try (try String(contentsOf: file, encoding: .utf8))
                        .replacingOccurrences(of: "Before the flip", with: "Edited by hand")
                        .write(to: file, atomically: false, encoding: .utf8)
                    expect(eventually { onRemote("show", "main:" + path).contains("Edited by hand") }).to(beTrue())
                }
            }
        }

        describe("a store format replaced while the store syncs by itself") {
            let refusal = "uses store format 99, newer than this docket understands"
            func raise() {
                try! #"{"format":99}"#.write(
                    to: laptop.folder.appendingPathComponent(".docket/format.json"), atomically: true, encoding: .utf8)
            }
            func remoteFormat() -> String {
                gitCLI(["--git-dir", remote.path, "show", "main:.docket/format.json"], in: root).stdout
            }

            it("stops a SyncService from committing and pushing it, as a new command would refuse it") {
                let queue = try StoreQueue.open(at: laptop.folder)
                let events = Mutex<[String]>([])
                let service = SyncService(queue, interval: 0.5, delay: 0.1) { event in
                    events.withLock { $0.append("\(event)") }
                }
                let running = Task.detached { try await service.run() }
                defer { running.cancel() }
                addOnDesk("Before the raise")
                expect(texts(queue)).toEventually(equal(["Before the raise"]), timeout: .seconds(20))
                raise()
                expect(events.withLock { $0.contains { $0.contains(refusal) } }).toEventually(
                    beTrue(), timeout: .seconds(20))
                expect(remoteFormat()).notTo(contain("99"))
            }

            it("stops sync --watch from committing and pushing it, and it logs why") {
                let watcher = Background(
                    docketBinary, ["-C", laptop.folder.path, "sync", "--watch", "--interval", "1s", "--delay", "0.3s"],
                    log: root.appendingPathComponent("watch.log"))
                watchers.append(watcher)
                // NB: the watcher's first sync publishes the laptop's store; a desk sync racing it would lose its push
                // and be merged rather than fast-forwarded.
                expect(watcher.waitFor("Pushed to origin")).to(beTrue(), description: watcher.output)
                addOnDesk("Before the raise")
                expect(watcher.waitFor("Fast-forwarded to")).to(beTrue(), description: watcher.output)
                raise()
                expect(watcher.waitFor(refusal)).to(beTrue(), description: watcher.output)
                expect(remoteFormat()).notTo(contain("99"))
            }
        }

        describe("a store format replaced while a StoreQueue is open") {
            it("refuses the next edit of a store a newer docket raised, and keeps the store as it was") {
                let queue = try StoreQueue.open(at: laptop.folder)
                try awaiting { try await queue.addTodo(TodoItem(text: "First")) }
                let format = laptop.folder.appendingPathComponent(".docket/format.json")
                try #"{"format":99}"#.write(to: format, atomically: true, encoding: .utf8)
                expect { try awaiting { try await queue.addTodo(TodoItem(text: "Second")) } }.to(
                    throwError { (error: StoreError) in
                        guard case .state(.newerFormat(_, found: 99)) = error else {
                            return fail("expected a newer-format refusal, got \(error)")
                        }
                    })
                expect(texts(queue)) == ["First"]
                expect(read(format)) == #"{"format":99}"#
            }
        }
    }
}
