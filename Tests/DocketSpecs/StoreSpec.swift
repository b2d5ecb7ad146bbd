import Docket
import DocketSpecSupport
import DocketSystem
import Foundation
import Nimble
import Quick

final class StoreSpec: QuickSpec {
    override class func spec() {
        var folder: URL!
        beforeEach { folder = temporaryFolder() }
        afterEach { try? FileManager.default.removeItem(at: folder) }
        func file(_ path: String) -> String { folder.appendingPathComponent(path).path }
        func text(_ path: String) -> String? { try? String(contentsOfFile: file(path), encoding: .utf8) }

        describe("Store.create") {
            it("makes a git repository with a format file and a first commit") {
                _ = try Store.create(at: folder)
                expect(text(StoreLayout.format)) == "{\n  \"format\" : 3\n}\n"
                expect(gitCLI(["log", "--format=%s"], in: folder).stdout) == "Start a Docket store\n"
                expect(gitCLI(["status", "--porcelain"], in: folder).stdout) == ""
            }
            it("opens an existing store as it is") {
                _ = try Store.create(at: folder)
                _ = try Store.create(at: folder)
                expect(gitCLI(["rev-list", "--count", "HEAD"], in: folder).stdout) == "1\n"
            }
            it("makes an existing git repository a store") {
                gitCLI(["init", "-q"], in: folder)
                _ = try Store.create(at: folder)
                expect(FileManager.default.fileExists(atPath: file(StoreLayout.format))) == true
            }
        }

        describe("Store.open") {
            it("refuses a folder that is no repository, saying how to make a store") {
                expect { try Store.open(at: folder) }.to(
                    throwError(StoreError.state(.notARepository(path: folder.path))))
            }
            it("refuses a git repository that is not a store") {
                gitCLI(["init", "-q"], in: folder)
                expect { try Store.open(at: folder) }.to(throwError(StoreError.state(.notAStore(path: folder.path))))
            }
            it("refuses a bare repository") {
                gitCLI(["init", "-q", "--bare"], in: folder)
                expect { try Store.open(at: folder) }.to(
                    throwError(StoreError.state(.bareRepository(path: folder.path))))
            }
            it("refuses a newer format, and reads nothing") {
                _ = try Store.create(at: folder)
                try Data("{\"format\": \(Store.format + 1)}\n".utf8).write(
                    to: URL(fileURLWithPath: file(StoreLayout.format)))
                expect { try Store.open(at: folder) }.to(
                    throwError(StoreError.state(.newerFormat(path: folder.path, found: Store.format + 1))))
            }
        }

        describe("StoreLayout") {
            it("names every item's file with its id in capitals, as uuidString spells it, and reads the same id back") {
                forAll(2000) { g in
                    let id = UUID(
                        uuid: (
                            UInt8.random(in: 0...255, using: &g), UInt8.random(in: 0...255, using: &g),
                            UInt8.random(in: 0...255, using: &g),
                            UInt8.random(in: 0...255, using: &g), UInt8.random(in: 0...255, using: &g),
                            UInt8.random(in: 0...255, using: &g),
                            UInt8.random(in: 0...255, using: &g), UInt8.random(in: 0...255, using: &g),
                            UInt8.random(in: 0...255, using: &g),
                            UInt8.random(in: 0...255, using: &g), UInt8.random(in: 0...255, using: &g),
                            UInt8.random(in: 0...255, using: &g),
                            UInt8.random(in: 0...255, using: &g), UInt8.random(in: 0...255, using: &g),
                            UInt8.random(in: 0...255, using: &g),
                            UInt8.random(in: 0...255, using: &g)
                        ))
                    let name = id.uuidString
                    let expected = [
                        "todos/\(name.prefix(2))/\(name).json", ".docket/removed/\(name.prefix(2))/\(name).json",
                        "projects/\(name)/project.json", "projects/\(name)/tasks/\(name).json",
                    ]
                    let made = [
                        StoreLayout.todo(id), StoreLayout.tombstone(id), StoreLayout.project(id),
                        StoreLayout.task(id, in: id),
                    ]
                    if made != expected { return "\(made) for \(name)" }
                    if StoreLayout.item(at: made[0]) != .todo(id) { return "\(made[0]) does not read back" }
                    return nil
                }
            }
        }

        describe("a store's files") {
            var store: Store!
            var persister: StorePersister!
            var appStore: AppStore!
            var milk: TodoItem!
            beforeEach {
                store = try! Store.create(at: folder)
                persister = StorePersister(store: store)
                appStore = AppStore(persister: persister)
                milk = TodoItem(text: "Buy milk")
                appStore.change(.adding(.todo(milk)))
            }
            it("holds one JSON file per todo, in a folder named by the id's first two digits") {
                let path = StoreLayout.todo(milk.id)
                expect(try DocketJSON.decode(TodoItem.self, from: Data(text(path)!.utf8))) == milk
            }
            it("rewrites only the item that changed") {
                let bread = TodoItem(text: "Buy bread")
                appStore.change(.adding(.todo(bread)))
                let breadPath = file(StoreLayout.todo(bread.id))
                let before = try FileManager.default.attributesOfItem(atPath: breadPath)[.modificationDate] as! Date
                try FileManager.default.setAttributes(
                    [.modificationDate: Date(timeIntervalSince1970: 1_000_000)], ofItemAtPath: breadPath)
                appStore.change(.updating(.todo(milk.alter(.completed(true)))))
                let after = try FileManager.default.attributesOfItem(atPath: breadPath)[.modificationDate] as! Date
                expect(after) == Date(timeIntervalSince1970: 1_000_000)
                expect(before) != after
            }
            it("deletes a removed todo's file and writes its tombstone") {
                appStore.change(.removing(.todo(milk)))
                expect(FileManager.default.fileExists(atPath: file(StoreLayout.todo(milk.id)))) == false
                let tombstone = text(StoreLayout.tombstone(milk.id))
                expect(tombstone).to(contain("\"kind\" : \"todo\""))
                expect(tombstone).to(contain("\"path\" : \"\(StoreLayout.todo(milk.id))\""))
            }
            it("reads back the same state, projects and tasks in their order") {
                let a = Project(title: "A")
                let b = Project(title: "B")
                let c = Project(title: "C")
                let t1 = ProjectTask(title: "one")
                let t2 = ProjectTask(title: "two")
                let t3 = ProjectTask(title: "three")
                appStore.change(.adding(.project(c)))
                appStore.change(
                    .adding(.project(a.alter(by: .adding(.task(t3)), .adding(.task(t1)), .adding(.task(t2))))))
                appStore.change(.adding(.project(b)))
                appStore.change(.adding(.project(c))) // moves C to the end
                let reloaded = StorePersister(store: try Store.open(at: folder)).loadAppState()
                expect(reloaded) == appStore.state
                expect(reloaded.projects.map(\.title)) == ["A", "B", "C"]
                expect(reloaded.projects[0].tasks.map(\.title)) == ["three", "one", "two"]
            }
            it("keeps a JSON key it does not know when it rewrites the file") {
                let path = StoreLayout.todo(milk.id)
                let edited = text(path)!.replacingOccurrences(
                    of: "\"completed\"", with: "\"estimate\" : \"2h\",\n  \"completed\"")
                try Data(edited.utf8).write(to: URL(fileURLWithPath: file(path)))
                appStore.change(.updating(.todo(milk.alter(.completed(true)))))
                expect(text(path)).to(contain("\"estimate\" : \"2h\""))
                expect(text(path)).to(contain("\"completed\" : true"))
            }
            it("keeps every JSON key it does not know however the file writes it, and makes up none") {
                let path = StoreLayout.todo(milk.id)
                let original = text(path)!
                // Each is put first in the file: the keys to keep, and keys that only look like keys inside values.
                let variants: [(entry: String, kept: [String], notKeys: [String])] = [
                    (#""estimate" : "said \"}\", \"fake\" : {","#, ["estimate"], ["fake"]),
                    (
                        #""meta" : {"a" : [1, {"b" : "]}"}], "c" : null}, "size":3,"#, ["meta", "size"],
                        ["a", "b", "c"]
                    ),
                    (#""est\u0069mate" : 3,"#, ["estimate"], []),
                    (#""tags2" : [],"list" : [[], {}],"#, ["tags2", "list"], []),
                ]
                var completed = false
                for variant in variants {
                    let edited = original.replacingOccurrences(
                        of: "{\n", with: "{\n  " + variant.entry + "\n", options: .anchored)
                    try Data(edited.utf8).write(to: URL(fileURLWithPath: file(path)))
                    completed.toggle()
                    appStore.change(.updating(.todo(milk.alter(.completed(completed)))))
                    let written = try JSONSerialization.jsonObject(with: Data(text(path)!.utf8)) as! [String: Any]
                    for key in variant.kept {
                        expect(written[key]).toNot(beNil(), description: "\(key) was dropped from \(variant.entry)")
                    }
                    for key in variant.notKeys {
                        expect(written[key]).to(beNil(), description: "\(key) was made up from \(variant.entry)")
                    }
                    expect(written["completed"] as? Bool) == completed
                }
                // Written compactly, on one line, by another program.
                let compact = try JSONSerialization.data(
                    withJSONObject: JSONSerialization.jsonObject(with: Data(original.utf8)))
                try (String(decoding: compact, as: UTF8.self).dropLast() + ",\"zone\":\"x\"}").write(
                    toFile: file(path), atomically: true, encoding: .utf8)
                appStore.change(.updating(.todo(milk.alter(.completed(!completed)))))
                expect(text(path)).to(contain("\"zone\" : \"x\""))
            }
            it("leaves the old file whole when a write stops before its rename") {
                let path = file(StoreLayout.todo(milk.id))
                let old = text(StoreLayout.todo(milk.id))
                let pending = try AtomicFile.prepare(Data("{ half a fi".utf8), at: path)
                // the process dies here: no rename
                expect(try String(contentsOfFile: path, encoding: .utf8)) == old
                let snapshot = try Store.open(at: folder).load()
                expect(snapshot.problems).to(beEmpty())
                expect(snapshot.state.todos) == [milk]
                try? FileManager.default.removeItem(atPath: pending.temporaryPath)
            }

            context("when a file was damaged") {
                var bad: String!
                beforeEach {
                    bad = StoreLayout.todo(UUID(uuidString: "AAAAAAAA-0000-4000-8000-000000000000")!)
                    try! FileManager.default.createDirectory(atPath: file(bad), withIntermediateDirectories: true)
                    try! FileManager.default.removeItem(atPath: file(bad))
                    try! Data("{\"text\": 3}".utf8).write(to: URL(fileURLWithPath: file(bad)))
                }
                it("loads the rest and names the file with the decoder's reason") {
                    let snapshot = try Store.open(at: folder).load()
                    expect(snapshot.state.todos) == [milk]
                    expect(snapshot.problems.map(\.path)) == [bad]
                    expect(snapshot.problems.first?.reason).toNot(beEmpty())
                }
                it("refuses to commit it, naming it, and commits nothing") {
                    expect { try store.commit() }.to(
                        throwError { (error: Error) in
                            guard case let StoreError.state(.undecodable(problems)) = error else {
                                return fail("\(error)")
                            }
                            expect(problems.map(\.path)) == [bad]
                        })
                    expect(gitCLI(["rev-list", "--count", "HEAD"], in: folder).stdout) == "1\n"
                }
            }
            it("skips a symbolic link and a file over 1 MiB, saying why") {
                let link = StoreLayout.todo(UUID(uuidString: "BBBBBBBB-0000-4000-8000-000000000000")!)
                let large = StoreLayout.todo(UUID(uuidString: "BBBBBBBB-1111-4000-8000-000000000000")!)
                try FileManager.default.createDirectory(
                    atPath: (file(link) as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try FileManager.default.createSymbolicLink(atPath: file(link), withDestinationPath: "/etc/passwd")
                try Data(repeating: 32, count: 1_100_000).write(to: URL(fileURLWithPath: file(large)))
                let snapshot = try Store.open(at: folder).load()
                expect(snapshot.state.todos) == [milk]
                expect(snapshot.problems.map(\.reason).joined()).to(contain("symbolic link"))
                expect(snapshot.problems.map(\.reason).joined()).to(contain("larger than the 1 MiB"))
            }
        }

        describe("Store.commit") {
            var store: Store!
            var appStore: AppStore!
            beforeEach {
                store = try! Store.create(at: folder)
                appStore = AppStore(persister: StorePersister(store: store))
            }
            it("summarises the change in its message") {
                let a = TodoItem(text: "a")
                let b = TodoItem(text: "b")
                let c = TodoItem(text: "c")
                appStore.change([.adding(.todo(a)), .adding(.todo(c))])
                _ = try store.commit()
                appStore.change([
                    .adding(.todo(b)), .updating(.todo(a.alter(.completed(true)))),
                    .adding(.project(Project(title: "Party"))),
                ])
                let outcome = try store.commit()
                expect(outcome)
                    == .committed(
                        id: gitCLI(["rev-parse", "HEAD"], in: folder).stdout.trimmingCharacters(in: .newlines),
                        message: "Add 1 todo, complete 1, add project Party")
                expect(gitCLI(["log", "-1", "--format=%s"], in: folder).stdout)
                    == "Add 1 todo, complete 1, add project Party\n"
            }
            it("takes the message it is given") {
                appStore.change(.adding(.todo(TodoItem(text: "x"))))
                _ = try store.commit(message: "Plan the week")
                expect(gitCLI(["log", "-1", "--format=%s"], in: folder).stdout) == "Plan the week\n"
            }
            it("has nothing to commit in a clean store, which is no error") {
                expect(try store.commit()) == .nothingToCommit
            }
            it("leaves git status clean and git fsck happy") {
                appStore.change(.adding(.todo(TodoItem(text: "x"))))
                _ = try store.commit()
                expect(gitCLI(["status", "--porcelain"], in: folder).stdout) == ""
                expect(gitCLI(["fsck", "--strict"], in: folder).status) == 0
            }
            it("commits a removal") {
                let x = TodoItem(text: "x")
                appStore.change(.adding(.todo(x)))
                _ = try store.commit()
                appStore.change(.removing(.todo(x)))
                _ = try store.commit()
                expect(gitCLI(["log", "-1", "--format=%s"], in: folder).stdout) == "Remove 1 todo\n"
                expect(gitCLI(["ls-files", "todos"], in: folder).stdout) == ""
                expect(gitCLI(["status", "--porcelain"], in: folder).stdout) == ""
            }
            it("picks up a file edited by hand") {
                let x = TodoItem(text: "x")
                appStore.change(.adding(.todo(x)))
                _ = try store.commit()
                let path = file(StoreLayout.todo(x.id))
                let edited = try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(
                    of: "\"text\" : \"x\"", with: "\"text\" : \"y\"")
                try Data(edited.utf8).write(to: URL(fileURLWithPath: path))
                expect(try store.status().map(\.description)) == ["todo 'x' renamed to 'y'"]
                _ = try store.commit()
                expect(gitCLI(["log", "-1", "--format=%s"], in: folder).stdout) == "Edit 1 todo\n"
            }
            it("commits without user.name, as DOCKET_AUTHOR_NAME or docket") {
                appStore.change(.adding(.todo(TodoItem(text: "x"))))
                _ = try store.commit()
                let author = gitCLI(["log", "-1", "--format=%an"], in: folder).stdout
                expect(author.isEmpty) == false
            }
        }

        describe("the store with the git CLI") {
            it("reads back a todo edited and committed with git") {
                let store = try Store.create(at: folder)
                let appStore = AppStore(persister: StorePersister(store: store))
                let x = TodoItem(text: "x")
                appStore.change(.adding(.todo(x)))
                _ = try store.commit()
                let path = StoreLayout.todo(x.id)
                let edited = text(path)!.replacingOccurrences(of: "\"completed\" : false", with: "\"completed\" : true")
                try Data(edited.utf8).write(to: URL(fileURLWithPath: file(path)))
                gitCLI(["commit", "-qam", "Done by hand"], in: folder)
                expect(try Store.open(at: folder).load().state.todos.first?.completed) == true
                expect(try store.status()).to(beEmpty())
            }
            it("opens a clone made by git as a store") {
                let store = try Store.create(at: folder)
                AppStore(persister: StorePersister(store: store)).change(.adding(.todo(TodoItem(text: "cloned"))))
                _ = try store.commit()
                let clone = temporaryFolder()
                defer { try? FileManager.default.removeItem(at: clone) }
                expect(runCommand("git", ["clone", "-q", folder.path, clone.appendingPathComponent("c").path]).status)
                    == 0
                expect(try Store.open(at: clone.appendingPathComponent("c")).load().state.todos.map(\.text)) == [
                    "cloned"
                ]
            }
        }

        describe("the store's lock") {
            var store: Store!
            beforeEach { store = try! Store.create(at: folder) }
            it("makes a second writer wait, then fail naming the lock file") {
                let holder = LockHolder(store.lockFile)
                defer { holder.stop() }
                expect { try store.withLock(timeout: 0.2) {} }.to(
                    throwError(StoreError.state(.locked(lockFile: store.lockFile, pid: nil))))
            }
            it("lets the next writer in as soon as the holder ends") {
                let holder = LockHolder(store.lockFile)
                holder.stop()
                var ran = false
                try store.withLock(timeout: 0) { ran = true }
                expect(ran) == true
            }
            it("takes over a lock left by a dead process") {
                try Data("999999\n".utf8).write(to: URL(fileURLWithPath: store.lockFile))
                var ran = false
                try store.withLock(timeout: 0.2) { ran = true }
                expect(ran) == true
                expect(FileManager.default.fileExists(atPath: store.lockFile)) == false
            }
        }
    }
}
