import Docket
import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// Two todos in one folder of the store (their ids share the first byte), so
/// that a folder's tree can come back: the same bytes in an older and a newer commit.
let sameFolderTodos = (1...6).map { UUID(uuidString: String(format: "1A000000-0000-4000-8000-%012d", $0))! }

/// Problems several threads note.
final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var noted: [String] = []
    func add(_ text: String) { lock.withLock { noted.append(text) } }
    var all: [String] { lock.withLock { noted } }
}

/// What `git fsck --strict` says of a repository: nil when it is clean.
func fsckProblem(_ folder: URL) -> String? {
    let result = gitCLI(["fsck", "--strict", "--no-progress"], in: folder)
    return result.status == 0
        ? nil : "git fsck --strict in \(folder.lastPathComponent): \(result.stdout) \(result.stderr)"
}

/// The objects under a reference, as git lists them (`git rev-list --objects`), sorted; nil when git cannot list them.
func objectsUnder(_ reference: String, in folder: URL) -> [String]? {
    let result = gitCLI(["rev-list", "--objects", reference], in: folder)
    guard result.status == 0 else { return nil }
    return result.stdout.split(separator: "\n").map { String($0.prefix(40)) }.sorted()
}

/// Docket copies objects itself between repositories on one machine (a
/// folder remote): on the histories git makes (reverts, a revert of a merge,
/// a folder checked out from an older commit), in both directions, it leaves
/// both sides as `git push` and `git fetch` would: fsck-clean, with the same
/// objects under their branches. A repository an earlier copier left without
/// some objects is repaired by the next sync from wherever they exist.
final class FolderCopySpec: QuickSpec {
    override class func spec() {
        var machines: TwoMachines!
        var laptop: Machine { machines.laptop }
        var desk: Machine { machines.desk }
        var remote: URL { machines.remote }
        let (x, y) = (sameFolderTodos[0], sameFolderTodos[1])
        func edit(_ machine: Machine, _ id: UUID, _ text: String) {
            expect(machine.run("edit", id.uuidString.lowercased(), text).status) == 0
            expect(machine.run("commit").status) == 0
        }
        beforeEach {
            machines = TwoMachines("docket-foldercopy")
            let made = Date(timeIntervalSince1970: 1_795_339_800)
            for (id, text) in [(x, "Call Anna"), (y, "Buy milk")] {
                try! Store.open(at: laptop.folder).addTodo(
                    TodoItem(id: id, text: text, creationDate: made, completed: false, dueDate: nil, alterDate: made))
            }
            expect(laptop.run("sync").status) == 0
            expect(runCommand(docketBinary, ["clone", remote.path, desk.folder.path]).status) == 0
        }
        afterEach { try? FileManager.default.removeItem(at: machines.root) }

        // Each makes commits on the laptop that the remote does not have yet.
        let shapes: [(String, () -> Void)] = [
            (
                "a revert of a commit that changed the folder another commit changed before",
                {
                    edit(laptop, x, "Call Anna about the lease")
                    edit(laptop, y, "Buy oat milk")
                    expect(gitCLI(["revert", "--no-edit", "HEAD"], in: laptop.folder).status) == 0
                }
            ),
            (
                "a folder checked out from an older commit and committed with git",
                {
                    edit(laptop, x, "Call Anna about the lease")
                    edit(laptop, y, "Buy oat milk")
                    expect(gitCLI(["checkout", "HEAD~1", "--", "todos"], in: laptop.folder).status) == 0
                    expect(gitCLI(["commit", "-qm", "Back to the lease"], in: laptop.folder).status) == 0
                }
            ),
            (
                "a revert of a Docket merge not pushed yet (git revert -m 1)",
                {
                    edit(laptop, x, "Call Anna about the lease")
                    edit(desk, y, "Buy soy milk")
                    expect(desk.run("sync").status) == 0
                    expect(laptop.run("pull").status) == 0
                    expect(laptop.git("rev-list", "--parents", "-n", "1", "HEAD").split(separator: " ").count) == 3
                    expect(gitCLI(["revert", "-m", "1", "--no-edit", "HEAD"], in: laptop.folder).status) == 0
                }
            ),
        ]

        for (shape, make) in shapes {
            describe("after \(shape)") {
                it("pushes to a folder remote all that git would: the remote stays whole and clones") {
                    make()
                    let pushed = laptop.run("push")
                    expect(pushed.status).to(equal(0), description: pushed.stderr)
                    expect(fsckProblem(remote)).to(beNil())
                    expect(objectsUnder("main", in: remote)) == objectsUnder("HEAD", in: laptop.folder)
                    let fresh = machines.root.appendingPathComponent("fresh")
                    expect(gitCLI(["clone", "-q", remote.path, fresh.path], in: machines.root).status) == 0
                    expect(fsckProblem(fresh)).to(beNil())
                    expect(desk.run("sync").status) == 0
                    expect(desk.state) == laptop.state
                }

                it("pulls from a folder remote all that git would: this store stays whole") {
                    make()
                    expect(gitCLI(["push", "-q", "origin", "main"], in: laptop.folder).status) == 0
                    let pulled = desk.run("pull")
                    expect(pulled.status).to(equal(0), description: pulled.stderr)
                    expect(fsckProblem(desk.folder)).to(beNil())
                    expect(objectsUnder("origin/main", in: desk.folder)) == objectsUnder("main", in: remote)
                    expect(desk.run("sync").status) == 0
                    expect(laptop.run("sync").status) == 0
                    expect(desk.state) == laptop.state
                }
            }
        }

        it("keeps several machines syncing one folder remote at once whole, converged, and with every edit") {
            // A short, seeded version of scripts/folder-load: each machine adds todos, completes some, and syncs, all
            // at once.
            let count = 4
            let rounds = 5
            let others = (2...count).map { Machine(folder: machines.root.appendingPathComponent("machine\($0)")) }
            for machine in others {
                expect(runCommand(docketBinary, ["clone", remote.path, machine.folder.path]).status) == 0
            }
            let all = [laptop, desk] + others.dropFirst()
            let failures = Failures()
            DispatchQueue.concurrentPerform(iterations: all.count) { index in
                var random = SeededGenerator(seed: 20_261_125 &+ UInt64(index))
                for round in 1...rounds {
                    for edit in 0..<Int.random(in: 1...3, using: &random) {
                        all[index].run("add", "m\(index)-\(round)-\(edit)")
                    }
                    if Bool.random(using: &random), let todo = all[index].state.todos.randomElement(using: &random) {
                        all[index].run("done", todo.id.uuidString.lowercased())
                    }
                    let synced = all[index].run("sync")
                    if synced.status != 0 { failures.add("machine \(index) round \(round): \(synced.stderr)") }
                }
            }
            // Syncs that failed under load (another machine pushing first, five times over) are retried now, and all
            // meet.
            for machine in all + all { expect(machine.run("sync").status) == 0 }
            let states = all.map(\.state)
            for state in states { expect(state) == states[0] }
            let texts = Set(states[0].todos.map(\.text))
            for index in all.indices {
                for round in 1...rounds {
                    expect(texts.contains("m\(index)-\(round)-0")).to(
                        beTrue(), description: "m\(index)-\(round)-0 is missing")
                }
            }
            for folder in [remote] + all.map(\.folder) { expect(fsckProblem(folder)).to(beNil()) }
            expect(failures.all.filter { !$0.contains("someone pushed first") }) == []
        }

        describe("a repository an earlier copier left without some objects") {
            /// Removes a loose object from a repository, as the earlier copier left it out.
            func remove(_ object: String, from gitFolder: URL) {
                let file = gitFolder.appendingPathComponent("objects/\(object.prefix(2))/\(object.dropFirst(2))")
                expect(FileManager.default.fileExists(atPath: file.path)).to(
                    beTrue(), description: "\(object) is not loose in \(gitFolder.path)")
                try? FileManager.default.removeItem(at: file)
            }
            /// Forgets which commits a store found whole, as a store upgraded from the earlier copier has no such note.
            func forgetChecks(_ machine: Machine) {
                try? FileManager.default.removeItem(
                    at: machine.folder.appendingPathComponent(".git/docket/whole-commits"))
            }
            func blob(_ id: UUID, in folder: URL, at reference: String = "HEAD") -> String {
                gitCLI(["rev-parse", "\(reference):" + StoreLayout.todo(id)], in: folder).stdout.trimmingCharacters(
                    in: .whitespacesAndNewlines)
            }

            it("is repaired on the remote by the next sync of a machine that has them, which says so") {
                edit(laptop, x, "Call Anna about the lease")
                expect(laptop.run("push").status) == 0
                remove(blob(x, in: laptop.folder), from: remote)
                forgetChecks(laptop)
                expect(fsckProblem(remote)).toNot(beNil())
                let synced = laptop.run("sync")
                expect(synced.status) == 0
                expect(synced.stderr).to(contain("repaired \(remote.path)"))
                expect(synced.stderr).to(contain("copied 1 object"))
                expect(fsckProblem(remote)).to(beNil())
                expect(desk.run("sync").status) == 0
                expect(desk.state) == laptop.state
            }

            it("is repaired in this store from the remote by the next sync, which says so") {
                edit(laptop, x, "Call Anna about the lease")
                expect(laptop.run("sync").status) == 0
                expect(desk.run("sync").status) == 0
                let folder = (StoreLayout.todo(x) as NSString).deletingLastPathComponent
                let tree = gitCLI(["rev-parse", "HEAD:" + folder], in: desk.folder).stdout.trimmingCharacters(
                    in: .whitespacesAndNewlines)
                remove(tree, from: desk.folder.appendingPathComponent(".git"))
                forgetChecks(desk)
                expect(fsckProblem(desk.folder)).toNot(beNil())
                edit(laptop, y, "Buy oat milk")
                expect(laptop.run("sync").status) == 0
                let synced = desk.run("sync")
                expect(synced.status).to(equal(0), description: synced.stderr)
                expect(synced.stderr).to(contain("repaired this store"))
                expect(fsckProblem(desk.folder)).to(beNil())
                expect(desk.state) == laptop.state
            }

            it("is named as an object this store lacks, not as the file's fault, when the remote is not a folder") {
                let daemon = GitDaemon(serving: machines.root)
                defer { daemon.stop() }
                expect(desk.run("remote", "add", "net", daemon.url("remote.git")).status) == 0
                edit(laptop, x, "Call Anna about the lease")
                expect(laptop.run("push").status) == 0
                expect(desk.git("fetch", "-q", "net")).to(beEmpty())
                remove(blob(x, in: laptop.folder), from: desk.folder.appendingPathComponent(".git"))
                let pulled = desk.run("pull", "net")
                expect(pulled.status) == 1
                expect(pulled.stderr).to(contain("\(StoreLayout.todo(x)) in commit \(laptop.head.prefix(7)) is object"))
                expect(pulled.stderr).to(contain("which this store's repository lacks"))
                expect(pulled.stderr).toNot(contain("fix or remove the file"))
                expect(pulled.stderr).to(contain("'git fetch --refetch <remote>'"))
                // As it says.
                expect(gitCLI(["fetch", "-q", "--refetch", "net"], in: desk.folder).status) == 0
                let again = desk.run("pull", "net")
                expect(again.status).to(equal(0), description: again.stderr)
                expect(fsckProblem(desk.folder)).to(beNil())
            }

            it("that no side has: names the commit and the way out, moves nothing, and the way out works") {
                edit(laptop, x, "Call Anna about the lease")
                expect(laptop.run("push").status) == 0
                let commit = laptop.head
                remove(blob(x, in: laptop.folder), from: remote)
                forgetChecks(laptop)
                let before = (desk.git("rev-parse", "origin/main"), gitCLI(["rev-parse", "main"], in: remote).stdout)
                let refused = desk.run("sync")
                expect(refused.status) != 0
                expect(refused.stderr).to(
                    contain("\(remote.path) lacks 1 object its branches name, and this store has no copy"))
                expect(refused.stderr).to(contain("\(StoreLayout.todo(x)) in commit \(commit.prefix(7))"))
                expect(refused.stderr).to(
                    contain("run 'docket sync' with \(remote.path) on a machine that has commit \(commit.prefix(7))"))
                expect((desk.git("rev-parse", "origin/main"), gitCLI(["rev-parse", "main"], in: remote).stdout))
                    == before
                expect(fsckProblem(desk.folder)).to(beNil())
                // As the message says: a machine that has the commit syncs, then this one syncs again.
                expect(laptop.run("sync").status) == 0
                let again = desk.run("sync")
                expect(again.status).to(equal(0), description: again.stderr)
                expect(desk.state) == laptop.state
                expect(fsckProblem(remote)).to(beNil())
            }
        }
    }
}

/// The folder copier against git, over random histories made with git and
/// docket on two machines: edits, adds and removals, reverts (of merges
/// too), cherry-picks, folders checked out from older commits, resets, and
/// pushes by git itself. After every push, pull and sync through Docket's
/// copier, both sides pass `git fsck --strict` and hold under their branches
/// the objects git lists there.
///
/// `DOCKET_COPY_SEEDS` and `DOCKET_COPY_STEPS` make it longer
/// (`scripts/folder-copy-property` runs 20 seeds of 250 steps); `DOCKET_SEED` replays one seed.
final class FolderCopyPropertySpec: QuickSpec {
    override class func spec() {
        let environment = ProcessInfo.processInfo.environment
        let seeds = environment["DOCKET_COPY_SEEDS"].flatMap(Int.init) ?? 2
        let steps = environment["DOCKET_COPY_STEPS"].flatMap(Int.init) ?? 40

        it("leaves both sides of every transfer as git would, over random histories") {
            var (ran, transfers) = (0, 0)
            defer {
                print(
                    "folder copier property: \(ran) seeds, \(ran * steps) steps, \(transfers) transfers checked against git"
                )
            }
            forAll(seeds) { random in
                ran += 1
                let machines = TwoMachines("docket-copyproperty")
                defer { try? FileManager.default.removeItem(at: machines.root) }
                let remote = machines.remote
                let made = Date(timeIntervalSince1970: 1_795_339_800)
                try! Store.open(at: machines.laptop.folder).addTodo(
                    TodoItem(
                        id: sameFolderTodos[0], text: "First", creationDate: made,
                        completed: false, dueDate: nil, alterDate: made))
                guard machines.laptop.run("sync").status == 0,
                    runCommand(docketBinary, ["clone", remote.path, machines.desk.folder.path]).status == 0
                else { return "setup failed" }
                let both = [machines.laptop, machines.desk]
                // Ids from two folders of the store, so that folders' trees come back often.
                let pool =
                    sameFolderTodos
                    + (1...6).map { UUID(uuidString: String(format: "1B000000-0000-4000-8000-%012d", $0))! }
                var log: [String] = []

                @discardableResult func git(_ machine: Machine, _ arguments: [String]) -> Bool {
                    gitCLI(arguments, in: machine.folder).status == 0
                }
                func recent(_ machine: Machine, _ arguments: [String]) -> [String] {
                    gitCLI(["rev-list", "-n", "10", "HEAD"] + arguments, in: machine.folder).stdout.split(
                        separator: "\n"
                    ).map(String.init)
                }
                /// What is wrong after a transfer on `machine`, if anything.
                func check(_ machine: Machine, _ result: CommandResult, _ what: String) -> String? {
                    transfers += 1
                    let said = result.stderr
                    if result.status != 0, !said.contains("someone pushed first") {
                        return "\(what) failed: \(said)"
                    }
                    if let problem = fsckProblem(remote) ?? fsckProblem(machine.folder) {
                        return "after \(what): \(problem)"
                    }
                    let tracking = machine.git("rev-parse", "origin/main")
                    let served = gitCLI(["rev-parse", "main"], in: remote).stdout
                    if tracking == served,
                        objectsUnder("origin/main", in: machine.folder) != objectsUnder("main", in: remote)
                    {
                        return "after \(what): the objects under origin/main differ from the remote's under main"
                    }
                    return nil
                }

                for step in 1...steps {
                    let index = Int.random(in: 0...1, using: &random)
                    let machine = both[index]
                    let name = index == 0 ? "laptop" : "desk"
                    let roll = Int.random(in: 0..<100, using: &random)
                    var problem: String?
                    switch roll {
                    case 0..<18:
                        let id = pool.randomElement(using: &random)!
                        if machine.state.todo(id: id) == nil {
                            log.append("\(name): add \(id.uuidString.prefix(2))")
                            try? Store.open(at: machine.folder).addTodo(
                                TodoItem(
                                    id: id, text: "Todo \(step)", creationDate: made,
                                    completed: false, dueDate: nil, alterDate: Date()))
                        } else {
                            log.append("\(name): edit \(id.uuidString.prefix(2))")
                            machine.run("edit", id.uuidString.lowercased(), "Edit \(step)")
                        }
                        machine.run("commit")
                    case 18..<22:
                        guard let todo = machine.state.todos.randomElement(using: &random) else { continue }
                        log.append("\(name): \(step % 2 == 0 ? "done" : "rm")")
                        machine.run(step % 2 == 0 ? "done" : "rm", todo.id.uuidString.lowercased())
                        machine.run("commit")
                    case 22..<32:
                        guard
                            let commit = recent(machine, ["--no-merges", "--", "todos"]).prefix(5).randomElement(
                                using: &random)
                        else { continue }
                        log.append("\(name): git revert \(commit.prefix(7))")
                        if !git(machine, ["revert", "--no-edit", commit]) { git(machine, ["revert", "--abort"]) }
                    case 32..<38:
                        guard let merge = recent(machine, ["--merges"]).randomElement(using: &random) else { continue }
                        log.append("\(name): git revert -m 1 \(merge.prefix(7))")
                        if !git(machine, ["revert", "-m", "1", "--no-edit", merge]) {
                            git(machine, ["revert", "--abort"])
                        }
                    case 38..<45:
                        let other = machine.git("rev-list", "-n", "10", "--no-merges", "origin/main", "--", "todos")
                            .split(separator: "\n")
                        guard
                            let commit =
                                (other
                                + recent(machine, ["--no-merges", "--", "todos"]).dropFirst().map { Substring($0) })
                                .randomElement(using: &random),
                            machine.git("rev-list", "--parents", "-n", "1", String(commit)).split(separator: " ").count
                                == 2
                        else { continue }
                        log.append("\(name): git cherry-pick \(commit.prefix(7))")
                        if !git(machine, ["cherry-pick", "--keep-redundant-commits", String(commit)]) {
                            git(machine, ["cherry-pick", "--abort"])
                        }
                    case 45..<52:
                        guard let commit = recent(machine, []).dropFirst().randomElement(using: &random) else {
                            continue
                        }
                        log.append("\(name): git checkout \(commit.prefix(7)) -- todos; git commit")
                        if git(machine, ["checkout", commit, "--", "todos"]),
                            !git(machine, ["commit", "-qm", "Back to \(commit.prefix(7))"])
                        {
                            git(machine, ["reset", "-q", "--hard"])
                        }
                    case 52..<56:
                        guard recent(machine, []).count > 2 else { continue }
                        log.append("\(name): git reset --hard HEAD~1")
                        git(machine, ["reset", "-q", "--hard", "HEAD~1"])
                    case 56..<62:
                        log.append("\(name): git push")
                        git(machine, ["push", "-q", "origin", "main"])
                    case 62..<76:
                        log.append("\(name): docket push")
                        problem = check(machine, machine.run("push"), "docket push on the \(name)")
                    case 76..<88:
                        log.append("\(name): docket pull")
                        problem = check(machine, machine.run("pull"), "docket pull on the \(name)")
                    default:
                        log.append("\(name): docket sync")
                        problem = check(machine, machine.run("sync"), "docket sync on the \(name)")
                    }
                    if let problem {
                        return "step \(step): \(problem)\nsteps: " + log.suffix(12).joined(separator: "; ")
                    }
                }
                // Both machines end where the other is, with nothing lost to the copier.
                for (machine, name) in [
                    (machines.laptop, "laptop"), (machines.desk, "desk"), (machines.laptop, "laptop"),
                ] {
                    if let problem = check(machine, machine.run("sync"), "the last sync on the \(name)") {
                        return problem
                    }
                }
                return machines.laptop.state == machines.desk.state ? nil : "the machines did not converge"
            }
        }
    }
}
