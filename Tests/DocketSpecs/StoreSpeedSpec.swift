import DocketSpecSupport
import Foundation
import Nimble
import Quick

@testable import Docket

/// The shortcuts that keep a large store fast must never change what a user sees.
final class StoreSpeedSpec: QuickSpec {
    override class func spec() {
        var folder: URL!
        var store: Store!
        beforeEach {
            folder = temporaryFolder()
            store = try! Store.create(at: folder)
        }
        afterEach { try? FileManager.default.removeItem(at: folder) }
        func file(of todo: TodoItem) -> String {
            folder.appendingPathComponent(StoreLayout.todo(todo.id)).path
        }
        func write(_ state: AppState, over old: AppState = AppState()) {
            try! store.withLock { try store.write(from: old, to: state) }
        }
        /// The index holds exactly HEAD's files (as `git ls-files -s` lists them), ends with the SHA-1 of its bytes,
        /// and has the tree cache git writes for HEAD's tree (so plain git reads no tree of HEAD to compare it with the
        /// index).
        func expectIndexHoldsHEADAsGitWritesIt(file: FileString = #filePath, line: UInt = #line) {
            let staged = gitCLI(["ls-files", "-s"], in: folder).stdout.split(separator: "\n").map {
                $0.replacingOccurrences(of: " 0\t", with: "\t")
            }
            let tree = gitCLI(["ls-tree", "-r", "HEAD"], in: folder).stdout.split(separator: "\n").map {
                $0.replacingOccurrences(of: " blob ", with: " ")
            }
            expect(file: file, line: line, staged) == tree
            let sums = runCommand(
                "sh",
                [
                    "-c",
                    "head -c -20 .git/index | sha1sum | cut -c1-40; tail -c 20 .git/index | od -An -tx1 | tr -d ' \\n'; echo",
                ], in: folder)
            let lines = sums.stdout.split(separator: "\n")
            expect(file: file, line: line, lines.count) == 2
            expect(file: file, line: line, lines.first) == lines.last
            let ours = treeCache(folder.appendingPathComponent(".git/index").path)
            expect(file: file, line: line, ours).notTo(beNil(), description: "the index has no tree cache")
            expect(file: file, line: line, ours) == gitsTreeCache(of: "HEAD")
        }
        /// The body of the index's tree cache (its TREE extension), if it has one.
        func treeCache(_ path: String) -> [UInt8]? {
            guard let data = FileManager.default.contents(atPath: path), data.count >= 32 else { return nil }
            let bytes = [UInt8](data)
            func number(_ at: Int) -> Int { bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
            var offset = 12
            for _ in 0..<number(8) {
                let flags = number(offset + 60) >> 16
                let path = offset + (flags & 0x4000 != 0 ? 64 : 62)
                guard let nul = bytes[path...].firstIndex(of: 0) else { return nil }
                offset += ((path - offset) + (nul - path) + 8) & ~7
            }
            while offset + 8 <= bytes.count - 20 {
                let length = number(offset + 4)
                if bytes[offset..<(offset + 4)].elementsEqual("TREE".utf8) {
                    return Array(bytes[(offset + 8)..<(offset + 8 + length)])
                }
                offset += 8 + length
            }
            return nil
        }
        /// The tree cache git itself writes for a tree (`git read-tree` into an index of its own).
        func gitsTreeCache(of tree: String, in repository: URL? = nil) -> [UInt8]? {
            let repository = repository ?? folder!
            let index = repository.appendingPathComponent(".git/spec-index").path
            defer { try? FileManager.default.removeItem(atPath: index) }
            expect(gitCLI(["read-tree", tree], in: repository, environment: ["GIT_INDEX_FILE": index]).status) == 0
            return treeCache(index)
        }
        /// Past the file system's clock tick, so the cache may keep what it read.
        func settle() { Thread.sleep(forTimeInterval: 0.25) }

        describe("Store.loadTodos (the todo cache)") {
            it("gives the todos and order load gives, over random stores, before and after the cache is built") {
                forAll(10) { g in
                    try? FileManager.default.removeItem(at: folder)
                    folder = temporaryFolder()
                    store = try! Store.create(at: folder)
                    // Up to 150 todos: past 64 files not cached, they are read on all cores.
                    let state = AppState(
                        todos: (0..<Int.random(in: 0...150, using: &g)).map { _ in RandomValues.todo(&g) },
                        projects: [], removed: [])
                    write(state)
                    let expected = try! store.readEveryFile().state.todos
                    guard try! store.loadTodos().todos == expected else { return "differs without a cache" }
                    settle()
                    _ = try! store.loadTodos()
                    guard try! store.loadTodos().todos == expected else { return "differs from the cache" }
                    return nil
                }
            }

            context("after the cache was built") {
                var todos: [TodoItem]!
                beforeEach {
                    todos = (0..<5).map {
                        TodoItem(
                            id: UUID(), text: "todo \($0)",
                            creationDate: Date(timeIntervalSince1970: 1_800_000_000 + Double($0)),
                            completed: false, dueDate: nil, alterDate: nil)
                    }
                    write(AppState(todos: todos, projects: [], removed: []))
                    settle()
                    _ = try! store.loadTodos()
                    _ = try! store.loadTodos()
                }

                it("sees a file edited by hand in place, with the same size and the same inode") {
                    let handle = FileHandle(forUpdatingAtPath: file(of: todos[2]))!
                    let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
                    let offset = text.utf8.distance(from: text.startIndex, to: text.range(of: "todo 2")!.upperBound) - 1
                    try handle.seek(toOffset: UInt64(offset))
                    handle.write(Data("X".utf8))
                    try handle.close()
                    expect(try store.loadTodos().todos.map(\.text)) == [
                        "todo 0", "todo 1", "todo X", "todo 3", "todo 4",
                    ]
                }
                it("sees a todo added, and one removed, by another program") {
                    let added = TodoItem(
                        id: UUID(), text: "new", creationDate: Date(timeIntervalSince1970: 1_900_000_000),
                        completed: false, dueDate: nil, alterDate: nil)
                    write(
                        AppState(todos: Array(todos.dropFirst()) + [added], projects: [], removed: []),
                        over: AppState(todos: todos, projects: [], removed: []))
                    expect(try store.loadTodos().todos.map(\.text)) == ["todo 1", "todo 2", "todo 3", "todo 4", "new"]
                }
                it("reports a file that no longer decodes instead of showing its cached todo") {
                    try Data("{ damaged".utf8).write(to: URL(fileURLWithPath: file(of: todos[1])))
                    let (loaded, problems) = try store.loadTodos()
                    expect(loaded.map(\.text)) == ["todo 0", "todo 2", "todo 3", "todo 4"]
                    expect(problems.map(\.path)) == [StoreLayout.todo(todos[1].id)]
                }
                it("ignores a damaged cache and builds it again") {
                    let cache = folder.appendingPathComponent(".git/docket/todos.cache")
                    expect(FileManager.default.fileExists(atPath: cache.path)) == true
                    let size = (try FileManager.default.attributesOfItem(atPath: cache.path)[.size] as? Int) ?? 0
                    try Data(repeating: 0xFF, count: size / 2).write(to: cache)
                    expect(try store.loadTodos().todos) == todos
                    expect(try store.loadTodos().todos) == todos
                }
                it("ignores a cache whose layout holds but one of its records does not decode, and builds it again") {
                    let cache = folder.appendingPathComponent(".git/docket/todos.cache")
                    var bytes = [UInt8](try Data(contentsOf: cache))
                    // The header (magic, version, fields, monitor token, shard count), then the first shard's name,
                    // its stat data and its length, then its record count: what follows is its first record's kind.
                    var offset = 8
                    func skipString() {
                        let length = bytes[offset..<(offset + 4)].enumerated().reduce(0) {
                            $0 | Int($1.1) << (8 * $1.0)
                        }
                        offset += 4 + length
                    }
                    skipString()
                    skipString()
                    offset += 4
                    skipString()
                    offset += 1 + (bytes[offset] == 1 ? 48 : 0) + 8 + 4
                    expect(bytes[offset]) <= 1
                    bytes[offset] = 9
                    try Data(bytes).write(to: cache)
                    for openOnly in [true, false] {
                        expect(try store.loadTodos(openOnly: openOnly).todos) == todos
                    }
                    expect([UInt8](try Data(contentsOf: cache))) != bytes
                }
                it("keeps the cache inside the git folder, so git status stays clean") {
                    _ = try store.commit()
                    _ = try store.loadTodos()
                    expect(gitCLI(["status", "--porcelain", "--untracked-files=all"], in: folder).stdout) == ""
                }
            }

            it(
                "reads many files not cached on all cores as load reads them: a conflicted file as last committed, a damaged one reported"
            ) {
                let todos = (0..<100).map { TodoItem(text: "todo \($0)") }
                write(AppState(todos: todos, projects: [], removed: []))
                _ = try store.commit()
                let conflicted = file(of: todos[3])
                let damaged = file(of: todos[70])
                let committed = try String(contentsOfFile: conflicted, encoding: .utf8)
                try
                    ("<<<<<<< ours\n" + committed.replacingOccurrences(of: "todo 3", with: "todo three") + "=======\n"
                    + committed + ">>>>>>> theirs\n")
                    .write(toFile: conflicted, atomically: false, encoding: .utf8)
                try Data("{ damaged".utf8).write(to: URL(fileURLWithPath: damaged))
                let cache = folder.appendingPathComponent(".git/docket/todos.cache").path
                expect(FileManager.default.fileExists(atPath: cache)) == false
                let loaded = try store.load()
                let (listed, problems) = try store.loadTodos()
                expect(listed) == loaded.state.todos
                expect(listed.count) == 99
                expect(listed.map(\.text)).to(contain("todo 3"))
                expect(problems.map(\.path).sorted())
                    == [StoreLayout.todo(todos[3].id), StoreLayout.todo(todos[70].id)].sorted()
                expect(problems.map(\.reason).sorted()) == loaded.problems.map(\.reason).sorted()
            }

            it("shows a hand edit in docket list") {
                let todo = TodoItem(text: "Buy milk")
                write(AppState(todos: [todo], projects: [], removed: []))
                settle()
                expect(docket("list", store: folder).stdout).to(contain("Buy milk"))
                let path = file(of: todo)
                try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(of: "Buy milk", with: "Buy oats")
                    .write(toFile: path, atomically: false, encoding: .utf8)
                expect(docket("list", store: folder).stdout).to(contain("Buy oats"))
            }
        }

        describe("Store.loadProjects (the project cache)") {
            it(
                "gives the projects, tasks and order load gives, over random stores, before and after the cache is built"
            ) {
                forAll(10) { g in
                    try? FileManager.default.removeItem(at: folder)
                    folder = temporaryFolder()
                    store = try! Store.create(at: folder)
                    let state = AppState(
                        todos: [],
                        projects: (0..<Int.random(in: 0...4, using: &g)).map { _ in RandomValues.project(&g) },
                        removed: [])
                    write(state)
                    let expected = try! store.load().state.projects
                    guard try! store.loadProjects().projects == expected else { return "differs without a cache" }
                    settle()
                    _ = try! store.loadProjects()
                    guard try! store.loadProjects().projects == expected else { return "differs from the cache" }
                    return nil
                }
            }

            context("after the cache was built") {
                var project: Project!
                func taskFile(_ index: Int) -> String {
                    folder.appendingPathComponent(StoreLayout.task(project.tasks[index].id, in: project.id)).path
                }
                beforeEach {
                    project = Project(title: "Garden")
                    for title in ["dig 0", "dig 1", "dig 2"] {
                        project = project.alter(by: .adding(.task(ProjectTask(title: title))))
                    }
                    write(AppState(todos: [], projects: [project], removed: []))
                    _ = try! store.commit()
                    settle()
                    _ = try! store.loadProjects()
                    _ = try! store.loadProjects()
                    expect(
                        FileManager.default.fileExists(
                            atPath: folder.appendingPathComponent(".git/docket/projects.cache").path)) == true
                }

                it("sees a task's file edited by hand in place, with the same size and the same inode") {
                    let handle = FileHandle(forUpdatingAtPath: taskFile(1))!
                    let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
                    let offset = text.utf8.distance(from: text.startIndex, to: text.range(of: "dig 1")!.upperBound) - 1
                    try handle.seek(toOffset: UInt64(offset))
                    handle.write(Data("X".utf8))
                    try handle.close()
                    expect(try store.loadProjects().projects.first?.tasks.map(\.title)) == ["dig 0", "dig X", "dig 2"]
                }
                it("reports a task's file that no longer decodes instead of showing its cached task") {
                    try Data("{ damaged".utf8).write(to: URL(fileURLWithPath: taskFile(2)))
                    let (projects, problems) = try store.loadProjects()
                    expect(projects.first?.tasks.map(\.title)) == ["dig 0", "dig 1"]
                    expect(problems.map(\.path)) == [StoreLayout.task(project.tasks[2].id, in: project.id)]
                }
                it("shows a task's file holding git's conflict markers as last committed, and says so") {
                    let committed = try String(contentsOfFile: taskFile(0), encoding: .utf8)
                    try
                        ("<<<<<<< ours\n" + committed.replacingOccurrences(of: "dig 0", with: "dig zero") + "=======\n"
                        + committed + ">>>>>>> theirs\n")
                        .write(toFile: taskFile(0), atomically: false, encoding: .utf8)
                    let (projects, problems) = try store.loadProjects()
                    expect(projects.first?.tasks.map(\.title)) == ["dig 0", "dig 1", "dig 2"]
                    expect(problems.map(\.path)) == [StoreLayout.task(project.tasks[0].id, in: project.id)]
                    expect(problems.first?.reason).to(contain("conflict markers"))
                }
                it("ignores a damaged cache and builds it again") {
                    let cache = folder.appendingPathComponent(".git/docket/projects.cache")
                    let size = (try FileManager.default.attributesOfItem(atPath: cache.path)[.size] as? Int) ?? 0
                    try Data(repeating: 0xFF, count: size / 2).write(to: cache)
                    expect(try store.loadProjects().projects) == [project]
                    expect(try store.loadProjects().projects) == [project]
                }
                it("sees a task added, and one removed, by another program") {
                    var changed = project!
                    changed = changed.alter(by: .removing(.task(project.tasks[0]))).alter(
                        by: .adding(.task(ProjectTask(title: "water"))))
                    write(
                        AppState(todos: [], projects: [changed], removed: []),
                        over: AppState(todos: [], projects: [project], removed: []))
                    expect(try store.loadProjects().projects.first?.tasks.map(\.title)) == ["dig 1", "dig 2", "water"]
                }
            }
        }

        describe("a write a killed docket left unfinished") {
            it("is cleaned up by the next commit, and the item keeps its last whole version") {
                let todo = TodoItem(text: "kept")
                write(AppState(todos: [todo], projects: [], removed: []))
                _ = try store.commit()
                // A process id that is not running: the largest allowed, above any in use here.
                let leftover =
                    (file(of: todo) as NSString).deletingLastPathComponent
                    + "/.docket-tmp-4194303-\(todo.id.uuidString).json"
                try Data("{ half written".utf8).write(to: URL(fileURLWithPath: leftover))
                expect(try store.commit()) == .nothingToCommit
                expect(FileManager.default.fileExists(atPath: leftover)) == false
                expect(gitCLI(["status", "--porcelain", "--untracked-files=all"], in: folder).stdout) == ""
                expect(try store.load().state.todos.map(\.text)) == ["kept"]
            }
            it("is left alone while its process still runs") {
                let todo = TodoItem(text: "kept")
                write(AppState(todos: [todo], projects: [], removed: []))
                let running =
                    (file(of: todo) as NSString).deletingLastPathComponent
                    + "/.docket-tmp-\(getpid())-\(todo.id.uuidString).json"
                try Data("{ being written".utf8).write(to: URL(fileURLWithPath: running))
                _ = try store.commit()
                expect(FileManager.default.fileExists(atPath: running)) == true
            }
        }

        describe("writing many items at once") {
            it("puts every file in place and leaves no temporary file") {
                let todos = (0..<200).map { TodoItem(text: "todo \($0)") }
                write(AppState(todos: todos, projects: [], removed: []))
                expect(try store.load().state.todos.count) == 200
                let leftovers = FileManager.default.enumerator(atPath: folder.appendingPathComponent("todos").path)!
                    .compactMap { $0 as? String }.filter { $0.contains(".docket-tmp-") }
                expect(leftovers) == []
                _ = try store.commit()
                expect(gitCLI(["status", "--porcelain"], in: folder).stdout) == ""
                expect(gitCLI(["fsck", "--strict"], in: folder).status) == 0
            }
        }

        describe("packing loose objects") {
            it("packs them with docket pack, keeping every commit and item") {
                write(AppState(todos: (0..<30).map { TodoItem(text: "todo \($0)") }, projects: [], removed: []))
                _ = try store.commit()
                let loose = gitCLI(["count-objects"], in: folder).stdout.split(separator: " ")[0]
                expect(docket("pack", store: folder).stdout) == "Packed \(loose) objects.\n"
                expect(gitCLI(["count-objects", "-v"], in: folder).stdout).to(contain("count: 0\n"))
                expect(gitCLI(["fsck", "--strict"], in: folder).status) == 0
                expect(try store.load().state.todos.count) == 30
                expect(docket("pack", store: folder).stdout) == "Nothing to pack.\n"
            }
            it("packs them in the background after a commit that passes the threshold") {
                write(AppState(todos: (0..<30).map { TodoItem(text: "todo \($0)") }, projects: [], removed: []))
                expect(docket(["commit"], store: folder, environment: ["DOCKET_PACK_THRESHOLD": "0"]).status) == 0
                expect(gitCLI(["count-objects", "-v"], in: folder).stdout).toEventually(
                    contain("count: 0\n"), timeout: .seconds(20))
                expect(
                    FileManager.default.fileExists(atPath: folder.appendingPathComponent(".git/docket-pack.lock").path)
                )
                .toEventually(beFalse(), timeout: .seconds(20))
                expect(gitCLI(["fsck", "--strict"], in: folder).status) == 0
                expect(docket("list", "--all", store: folder).stdout.split(separator: "\n").count) == 30
            }
            it("leaves them loose below the threshold") {
                write(AppState(todos: [TodoItem(text: "one")], projects: [], removed: []))
                expect(docket("commit", store: folder).status) == 0
                Thread.sleep(forTimeInterval: 0.5)
                expect(gitCLI(["count-objects", "-v"], in: folder).stdout).notTo(contain("count: 0\n"))
            }
        }

        describe("Store.status (its own scan of the working tree)") {
            it("finds the changes git status finds, over random hand edits") {
                forAll(6) { g in
                    try? FileManager.default.removeItem(at: folder)
                    folder = temporaryFolder()
                    store = try! Store.create(at: folder)
                    let todos = (0..<40).map { _ in RandomValues.todo(&g) }
                    write(AppState(todos: todos, projects: [], removed: []))
                    _ = try! store.commit()
                    // A status past the clock tick the folders changed in notes what they hold, and the next trusts
                    // that.
                    settle()
                    _ = try! store.status()
                    for todo in todos.shuffled(using: &g).prefix(12) {
                        let path = file(of: todo)
                        let parent = (path as NSString).deletingLastPathComponent
                        switch Int.random(in: 0..<7, using: &g) {
                        // A file added beside it, the folder's modification time then set back (as tar and rsync -t do).
                        case 5:
                            var info = stat()
                            stat(parent, &info)
                            try! FileManager.default.copyItem(
                                atPath: path, toPath: parent + "/" + UUID().uuidString + ".json")
                            // UTIME_OMIT: the access time as it is.
                            var times = [
                                timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2),
                                info.st_mtim,
                            ]
                            utimensat(AT_FDCWD, parent, &times, 0)
                        case 6: // a file in a new folder inside its folder
                            try! FileManager.default.createDirectory(
                                atPath: parent + "/more", withIntermediateDirectories: true)
                            try! FileManager.default.copyItem(
                                atPath: path, toPath: parent + "/more/" + UUID().uuidString + ".json")
                        case 0: try! FileManager.default.removeItem(atPath: path)
                        case 1:
                            try! (String(contentsOfFile: path, encoding: .utf8) + " ").write(
                                toFile: path, atomically: false, encoding: .utf8)
                        case 2: // same size, same inode
                            let text = try! String(contentsOfFile: path, encoding: .utf8)
                            let start = text.range(of: "\"id\" : \"")!.upperBound
                            let offset = text.utf8.distance(from: text.startIndex, to: start)
                            let handle = FileHandle(forUpdatingAtPath: path)!
                            handle.seek(toFileOffset: UInt64(offset))
                            handle.write(Data((text[start] == "A" ? "B" : "A").utf8))
                            try! handle.close()
                        case 3: // touched, not changed
                            try! FileManager.default.setAttributes(
                                [.modificationDate: Date(timeIntervalSinceNow: 60)], ofItemAtPath: path)
                        default:
                            let copy = RandomValues.todo(&g)
                            try! FileManager.default.createDirectory(
                                atPath: (file(of: copy) as NSString).deletingLastPathComponent,
                                withIntermediateDirectories: true)
                            try! FileManager.default.copyItem(atPath: path, toPath: file(of: copy))
                        }
                    }
                    let theirs = Set(
                        gitCLI(["status", "--porcelain", "--untracked-files=all", "--", "todos"], in: folder).stdout
                            .split(separator: "\n").map { String($0.dropFirst(3)) })
                    // Twice: the second status past the tick, trusting what the first noted.
                    for _ in 0..<2 {
                        let ours = Set(try! store.status().map(\.path))
                        guard ours == theirs else { return "docket saw \(ours.sorted()), git saw \(theirs.sorted())" }
                        settle()
                    }
                    return nil
                }
            }

            context(
                "in a folder a status found holding only tracked files (noted, and not listed again while unchanged)"
            ) {
                var todo: TodoItem!
                beforeEach {
                    todo = TodoItem(text: "Water plants")
                    write(AppState(todos: [todo], projects: [], removed: []))
                    _ = try! store.commit()
                    settle()
                    expect(try store.status()) == []
                }

                it(
                    "sees a file added there whose folder's modification time was then set back, as tar and rsync -t leave it"
                ) {
                    let parent = (file(of: todo) as NSString).deletingLastPathComponent
                    var before = stat()
                    stat(parent, &before)
                    let added = parent + "/" + UUID().uuidString + ".json"
                    try FileManager.default.copyItem(atPath: file(of: todo), toPath: added)
                    // UTIME_OMIT: the access time as it is.
                    var times = [
                        timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2),
                        before.st_mtim,
                    ]
                    expect(utimensat(AT_FDCWD, parent, &times, 0)) == 0
                    var after = stat()
                    stat(parent, &after)
                    expect(after.st_mtim.tv_nsec) == before.st_mtim.tv_nsec
                    expect(try store.status().map(\.path)) == [String(added.dropFirst(folder.path.count + 1))]
                }

                it(
                    "notes no folder that changed within the clock tick before it was listed: a name added in that tick could keep its times"
                ) {
                    let parent = (StoreLayout.todo(todo.id) as NSString).deletingLastPathComponent
                    func noted() -> Bool {
                        let data =
                            FileManager.default.contents(
                                atPath: folder.appendingPathComponent(".git/docket/folder-listings").path) ?? Data()
                        return data.split(separator: 0).contains { String(decoding: $0, as: UTF8.self) == parent }
                    }
                    expect(noted()) == true
                    try FileManager.default.copyItem(
                        atPath: file(of: todo), toPath: folder.path + "/" + parent + "/added.json")
                    expect(try store.status().map(\.path)) == [parent + "/added.json"]
                    try FileManager.default.removeItem(atPath: folder.path + "/" + parent + "/added.json")
                    expect(try store.status()) == []
                    expect(noted()) == false
                    settle()
                    expect(try store.status()) == []
                    expect(noted()) == true
                }

                it("sees its file as new once plain git stops tracking it (git rm --cached and git commit)") {
                    let path = StoreLayout.todo(todo.id)
                    expect(gitCLI(["rm", "-q", "--cached", path], in: folder).status) == 0
                    expect(gitCLI(["commit", "-qm", "Untrack"], in: folder).status) == 0
                    let theirs = gitCLI(["status", "--porcelain", "--untracked-files=all", "--", "todos"], in: folder)
                        .stdout
                    expect(theirs) == "?? \(path)\n"
                    expect(try store.status().map(\.path)) == [path]
                    expect(try store.status().map(\.path)) == [path]
                }
            }

            it(
                "takes the stat data of files touched or copied without a change into the index at the next commit, as git refreshes it"
            ) {
                let todos = [TodoItem(text: "Pay rent"), TodoItem(text: "Book train")]
                write(AppState(todos: todos, projects: [], removed: []))
                // Past the tick the files were written in: an entry of the index's own tick is marked to be read again.
                settle()
                _ = try! store.commit()
                let head = gitCLI(["rev-parse", "HEAD"], in: folder).stdout
                let touched = file(of: todos[0])
                try! FileManager.default.setAttributes(
                    [.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: touched)
                let name = String(touched.dropFirst(folder.path.count + 1))
                // Until then git (and every status) finds its stat data stale and hashes it again.
                expect(gitCLI(["diff-files", "--name-only", "--", "todos"], in: folder).stdout) == name + "\n"
                expect(try! store.status()) == []
                expect(try! store.commit()) == .nothingToCommit
                expect(gitCLI(["diff-files", "--name-only", "--", "todos"], in: folder).stdout) == ""
                expect(gitCLI(["rev-parse", "HEAD"], in: folder).stdout) == head
                expect(try! store.status()) == []
                // A real edit after that is still seen.
                try! (String(contentsOfFile: touched, encoding: .utf8) + " ").write(
                    toFile: touched, atomically: false, encoding: .utf8)
                expect(try! store.status().map(\.path)) == [name]
            }

            it(
                "takes the stat data of files copied or touched without a change into the index at the next status, as git status refreshes it"
            ) {
                let todos = [TodoItem(text: "Pay rent"), TodoItem(text: "Book train"), TodoItem(text: "Call Ana")]
                write(AppState(todos: todos, projects: [], removed: []))
                _ = try! store.commit()
                let head = gitCLI(["rev-parse", "HEAD"], in: folder).stdout
                // A copy of the whole store (a backup restored): every file has new stat data.
                let copy = temporaryFolder()
                defer { try? FileManager.default.removeItem(at: copy) }
                expect(runCommand("cp", ["-R", folder.path + "/.", copy.path]).status) == 0
                func stale() -> [String] {
                    gitCLI(["diff-files", "--name-only", "--", "todos"], in: copy).stdout.split(separator: "\n").map(
                        String.init)
                }
                expect(stale().count) == 3
                expect(try! Store.open(at: copy).status()) == []
                expect(stale()) == []
                expect(gitCLI(["rev-parse", "HEAD"], in: copy).stdout) == head
                // One touched, one edited: the touched one is refreshed, the edit is still seen, and seen again.
                let touched = copy.appendingPathComponent(StoreLayout.todo(todos[0].id)).path
                let edited = copy.appendingPathComponent(StoreLayout.todo(todos[1].id)).path
                try! FileManager.default.setAttributes(
                    [.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: touched)
                try! String(contentsOfFile: edited, encoding: .utf8).replacingOccurrences(
                    of: "Book train", with: "Book plane"
                )
                .write(toFile: edited, atomically: false, encoding: .utf8)
                let change = ["todo 'Book train' renamed to 'Book plane'"]
                expect(try! Store.open(at: copy).status().map(\.description)) == change
                expect(stale()) == [StoreLayout.todo(todos[1].id)]
                expect(try! Store.open(at: copy).status().map(\.description)) == change
                if case .committed = try! Store.open(at: copy).commit() {} else { fail("the edit was not committed") }
                expect(stale()) == []
                expect(try! Store.open(at: copy).status()) == []
                expect(gitCLI(["status", "--porcelain"], in: copy).stdout) == ""
            }

            it(
                "keeps an edit made in the second its entry was written visible to git, which compares whole seconds, after the index is written again"
            ) {
                // Start early in a second, so that the write, the commit and the edit share one.
                let now = Date().timeIntervalSince1970
                Thread.sleep(forTimeInterval: 1.02 - (now - now.rounded(.down)))
                let todos = [TodoItem(text: "Pay rent"), TodoItem(text: "Book train")]
                write(AppState(todos: todos, projects: [], removed: []))
                _ = try! store.commit()
                let edited = file(of: todos[1])
                let text = try! String(contentsOfFile: edited, encoding: .utf8)
                // Same size, same inode: only the stat data's nanoseconds tell it apart from its index entry.
                try! text.replacingOccurrences(of: "Book train", with: "Book plane").write(
                    toFile: edited, atomically: false, encoding: .utf8)
                let second = Date().timeIntervalSince1970
                guard second.rounded(.down) == now.rounded(.down) + 1 else {
                    return fail("the machine took a second to commit two todos")
                }
                // In a later second, a touched file makes the status write the index again.
                Thread.sleep(forTimeInterval: 1.02 - (second - second.rounded(.down)))
                try! FileManager.default.setAttributes(
                    [.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: file(of: todos[0]))
                let name = StoreLayout.todo(todos[1].id)
                expect(try! store.status().map(\.path)) == [name]
                expect(gitCLI(["status", "--porcelain"], in: folder).stdout) == " M \(name)\n"
                expect(try! store.status().map(\.path)) == [name]
            }

            it(
                "leaves the index as it is while another process holds the store or git's index lock, and reports the same"
            ) {
                let todo = TodoItem(text: "Pay rent")
                write(AppState(todos: [todo], projects: [], removed: []))
                _ = try! store.commit()
                let path = file(of: todo)
                let name = StoreLayout.todo(todo.id)
                try! FileManager.default.setAttributes(
                    [.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: path)
                let index = try! Data(contentsOf: folder.appendingPathComponent(".git/index"))
                // git's lock, taken by another program: the status neither waits nor removes it.
                let gitLock = folder.appendingPathComponent(".git/index.lock").path
                expect(FileManager.default.createFile(atPath: gitLock, contents: Data())) == true
                expect(try! Store.open(at: folder).status()) == []
                expect(FileManager.default.fileExists(atPath: gitLock)) == true
                try! FileManager.default.removeItem(atPath: gitLock)
                // The store's lock, held by another docket: the status does not wait for it.
                let started = Date()
                try! Store.open(at: folder).withLock(timeout: 0) {
                    expect(try! Store.open(at: folder).status()) == []
                }
                expect(Date().timeIntervalSince(started)) < 2
                // git's optional locks turned off, as tools that poll status do.
                expect(docket(["status"], store: folder, environment: ["GIT_OPTIONAL_LOCKS": "0"]).stdout)
                    == "Nothing to commit; the store matches its last commit.\n"
                expect(try! Data(contentsOf: folder.appendingPathComponent(".git/index"))) == index
                expect(gitCLI(["diff-files", "--name-only", "--", "todos"], in: folder).stdout) == name + "\n"
                // Then, free: taken in.
                expect(docket(["status"], store: folder).stdout)
                    == "Nothing to commit; the store matches its last commit.\n"
                expect(gitCLI(["diff-files", "--name-only", "--", "todos"], in: folder).stdout) == ""
            }

            it("does not trust an index whose bytes no longer hash to its checksum") {
                let todo = TodoItem(text: "Water the plants")
                write(AppState(todos: [todo], projects: [], removed: []))
                _ = try! store.commit()
                settle()
                let path = file(of: todo)
                try! String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(of: "plants", with: "garden")
                    .write(toFile: path, atomically: false, encoding: .utf8)
                // The index entry is given the edited file's stat data, its checksum left as it was:
                // were the bytes not checked, the edit would look committed.
                let indexPath = folder.appendingPathComponent(".git/index").path
                var index = [UInt8](FileManager.default.contents(atPath: indexPath)!)
                let name = Array(StoreLayout.todo(todo.id).utf8)
                let entry =
                    (0..<index.count).first { index[$0..<min(index.count, $0 + name.count)].elementsEqual(name) }! - 62
                var info = stat()
                lstat(path, &info)
                func put(_ value: Int, at offset: Int) {
                    for i in 0..<4 {
                        index[entry + offset + i] = UInt8(
                            truncatingIfNeeded: UInt32(truncatingIfNeeded: value) >> (24 - 8 * UInt32(i)))
                    }
                }
                put(info.st_ctim.tv_sec, at: 0)
                put(info.st_ctim.tv_nsec, at: 4)
                put(info.st_mtim.tv_sec, at: 8)
                put(info.st_mtim.tv_nsec, at: 12)
                put(Int(info.st_ino), at: 20)
                put(Int(info.st_size), at: 36)
                _ = FileManager.default.createFile(atPath: indexPath, contents: Data(index))
                // A new command (this process's libgit2 keeps the index it read).
                expect(try Store.open(at: folder).status()).to(
                    throwError { error in
                        expect("\(error)").to(contain("git's index (.git/index) is damaged"))
                        expect("\(error)").to(contain("'rm .git/index && git reset'"))
                    })
                // The advice, followed: the index is rebuilt and the hand edit shows.
                expect(runCommand("/bin/sh", ["-c", "rm .git/index && git reset -q"], in: folder).status) == 0
                expect(try Store.open(at: folder).status().map(\.description)) == [
                    "todo 'Water the plants' renamed to 'Water the garden'"
                ]
            }

            it("sees a folder of todos replaced by a link as git does: the link unreadable, its todos removed") {
                let todo = TodoItem(text: "Call the bank")
                write(AppState(todos: [todo], projects: [], removed: []))
                _ = try! store.commit()
                let shard = (file(of: todo) as NSString).deletingLastPathComponent
                for linked in [shard, (shard as NSString).deletingLastPathComponent] {
                    let elsewhere = temporaryFolder()
                    try! FileManager.default.removeItem(at: elsewhere)
                    try! FileManager.default.moveItem(atPath: linked, toPath: elsewhere.path)
                    try! FileManager.default.createSymbolicLink(atPath: linked, withDestinationPath: elsewhere.path)
                    let changes = try! store.status()
                    expect(changes.map(\.description)).to(contain("removed todo 'Call the bank'"))
                    expect(changes.map(\.description).joined()).to(contain("is a symbolic link"))
                    let theirs = gitCLI(["status", "--porcelain", "--untracked-files=all", "--", "todos"], in: folder)
                        .stdout
                        .split(separator: "\n").map { String($0.dropFirst(3)) }
                    expect(Set(changes.map(\.path))) == Set(theirs)
                    try! FileManager.default.removeItem(atPath: linked)
                    try! FileManager.default.moveItem(atPath: elsewhere.path, toPath: linked)
                }
                expect(try! store.status()) == []
            }
        }

        describe("a commit of many new items (a first commit, an import)") {
            var todos: [TodoItem]!
            beforeEach {
                todos = (0..<150).map {
                    TodoItem(
                        id: UUID(), text: "todo \($0)",
                        creationDate: Date(timeIntervalSince1970: 1_800_000_000 + Double($0)),
                        completed: false, dueDate: nil, alterDate: nil)
                }
            }
            func packedObjects() -> Int {
                let counts = gitCLI(["count-objects", "-v"], in: folder).stdout
                return Int(counts.split(separator: "\n").first { $0.hasPrefix("in-pack: ") }!.dropFirst(9))!
            }
            /// Sets git's configuration as a user would, between two docket commands.
            func configure(_ name: String, _ value: String) {
                gitCLI(["config", name, value], in: folder)
                store = try! Store.open(at: folder)
            }

            it("writes the items' blobs as one pack that git reads, checks and clones, and leaves the store clean") {
                write(AppState(todos: todos, projects: [], removed: []))
                guard case .committed = try store.commit() else { return fail("nothing was committed") }
                expect(packedObjects()) == 150
                expect(gitCLI(["fsck", "--strict", "--no-dangling"], in: folder).status) == 0
                let path = StoreLayout.todo(todos[7].id)
                expect(gitCLI(["show", "HEAD:" + path], in: folder).stdout)
                    == (try String(contentsOfFile: folder.path + "/" + path, encoding: .utf8))
                expect(gitCLI(["status", "--porcelain"], in: folder).stdout) == ""
                expect(try store.status()) == []
                let clone = temporaryFolder()
                defer { try? FileManager.default.removeItem(at: clone) }
                expect(runCommand("git", ["clone", "-q", "--no-local", folder.path, clone.path + "/c"]).status) == 0
                expect(try Store.open(at: clone.appendingPathComponent("c")).load().state.todos.count) == 150
                // The next edit commits as usual on top of the pack.
                try String(contentsOfFile: folder.path + "/" + path, encoding: .utf8).replacingOccurrences(
                    of: "todo 7", with: "todo seven"
                )
                .write(toFile: folder.path + "/" + path, atomically: false, encoding: .utf8)
                expect(try store.status().map(\.description)) == ["todo 'todo 7' renamed to 'todo seven'"]
                _ = try store.commit()
                expect(gitCLI(["fsck", "--strict", "--no-dangling"], in: folder).status) == 0
                expect(gitCLI(["status", "--porcelain"], in: folder).stdout) == ""
            }
            it("stores a file as git's line-ending settings ask (core.autocrlf)") {
                configure("core.autocrlf", "true")
                write(AppState(todos: todos, projects: [], removed: []))
                let path = StoreLayout.todo(todos[3].id)
                let text = try String(contentsOfFile: folder.path + "/" + path, encoding: .utf8)
                try text.replacingOccurrences(of: "\n", with: "\r\n").write(
                    toFile: folder.path + "/" + path, atomically: false, encoding: .utf8)
                _ = try store.commit()
                expect(gitCLI(["show", "HEAD:" + path], in: folder).stdout) == text
                expect(packedObjects()) == 0
                expect(gitCLI(["fsck", "--strict", "--no-dangling"], in: folder).status) == 0
            }
            it(
                "clones a store whose attributes ask for line endings with those line endings, and one without them byte for byte"
            ) {
                write(AppState(todos: Array(todos.prefix(3)), projects: [], removed: []))
                _ = try store.commit()
                let path = StoreLayout.todo(todos[1].id)
                let text = try String(contentsOfFile: folder.path + "/" + path, encoding: .utf8)
                let clones = temporaryFolder()
                defer { try? FileManager.default.removeItem(at: clones) }
                expect(runCommand(docketBinary, ["clone", folder.path, clones.path + "/plain"]).status) == 0
                expect(try String(contentsOfFile: clones.path + "/plain/" + path, encoding: .utf8)) == text

                // A line in the store's .gitattributes, committed with git, as another tool might.
                let attributes = try String(contentsOfFile: folder.path + "/.gitattributes", encoding: .utf8)
                try (attributes + "todos/** text eol=crlf\n").write(
                    toFile: folder.path + "/.gitattributes", atomically: false, encoding: .utf8)
                gitCLI(["add", ".gitattributes"], in: folder)
                expect(gitCLI(["commit", "-qm", "Line endings"], in: folder).status) == 0
                expect(runCommand(docketBinary, ["clone", folder.path, clones.path + "/crlf"]).status) == 0
                expect(try String(contentsOfFile: clones.path + "/crlf/" + path, encoding: .utf8))
                    == text.replacingOccurrences(of: "\n", with: "\r\n")
                expect(gitCLI(["status", "--porcelain"], in: clones.appendingPathComponent("crlf")).stdout) == ""
            }
            it("commits an item's file that git's ignore rules name, so it syncs") {
                let excludes = folder.appendingPathComponent(".git/my-excludes")
                try "*.json\n".write(to: excludes, atomically: true, encoding: .utf8)
                configure("core.excludesFile", excludes.path)
                write(AppState(todos: Array(todos.prefix(2)), projects: [], removed: []))
                expect(try store.status().count) == 2
                _ = try store.commit()
                expect(gitCLI(["ls-tree", "-r", "--name-only", "HEAD", "todos"], in: folder).stdout)
                    .to(contain(StoreLayout.todo(todos[0].id)))
                // A file of another name in the store's folders is still left to the ignore rules.
                try "notes".write(
                    to: folder.appendingPathComponent("todos/notes.json"), atomically: true, encoding: .utf8)
                expect(try store.status()) == []
            }
            it("removes the unfinished pack of a docket killed while writing it") {
                let leftover = folder.appendingPathComponent(".git/objects/pack/tmp_docket_999999.pack")
                try? FileManager.default.createDirectory(
                    at: leftover.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data("PACK".utf8).write(to: leftover)
                write(AppState(todos: todos, projects: [], removed: []))
                _ = try store.commit()
                expect(FileManager.default.fileExists(atPath: leftover.path)) == false
                expect(gitCLI(["count-objects", "-v"], in: folder).stdout).to(contain("garbage: 0"))
            }
        }

        describe("Store.commit (the index written by Docket)") {
            var todos: [TodoItem]!
            beforeEach {
                todos = (0..<20).map { TodoItem(text: "Todo \($0)") }
                write(AppState(todos: todos, projects: [], removed: []))
                _ = try! store.commit()
            }
            func handEdit(_ todo: TodoItem, _ change: (String) -> String) throws {
                let path = file(of: todo)
                try change(try String(contentsOfFile: path, encoding: .utf8)).write(
                    toFile: path, atomically: false, encoding: .utf8)
            }

            it("leaves the index as git would write it after a small commit, and still sees an edit made after it") {
                try handEdit(todos[3]) { $0.replacingOccurrences(of: "Todo 3", with: "Todo three") }
                try FileManager.default.removeItem(atPath: file(of: todos[5]))
                guard case .committed = try store.commit() else { return fail("expected a commit") }
                expect(gitCLI(["status", "--porcelain"], in: folder).stdout) == ""
                expect(gitCLI(["diff", "--cached", "--quiet"], in: folder).status) == 0
                expectIndexHoldsHEADAsGitWritesIt()
                try handEdit(todos[7]) { $0.replacingOccurrences(of: "Todo 7", with: "Todo 8") }
                expect(try store.status().map(\.description)) == ["todo 'Todo 7' renamed to 'Todo 8'"]
            }
            it(
                "leaves the index as git would write it after a commit of 100 files or more (one pack), and still sees an edit made after it"
            ) {
                let more = (0..<130).map { TodoItem(text: "More \($0)") }
                write(AppState(todos: todos + more, projects: [], removed: []))
                try handEdit(todos[2]) { $0.replacingOccurrences(of: "Todo 2", with: "Todo two") }
                try FileManager.default.removeItem(atPath: file(of: todos[6]))
                guard case .committed = try store.commit() else { return fail("expected a commit") }
                expect(
                    gitCLI(["ls-tree", "-r", "--name-only", "HEAD", "todos"], in: folder).stdout.split(separator: "\n")
                        .count) == 20 + 130 - 1
                expect(gitCLI(["status", "--porcelain"], in: folder).stdout) == ""
                expect(gitCLI(["diff", "--cached", "--quiet"], in: folder).status) == 0
                expect(gitCLI(["fsck", "--strict"], in: folder).status) == 0
                expectIndexHoldsHEADAsGitWritesIt()
                try handEdit(more[9]) { $0.replacingOccurrences(of: "More 9", with: "More nine") }
                expect(try store.status().map(\.description)) == ["todo 'More 9' renamed to 'More nine'"]
            }
            it(
                "keeps git's tree cache whole over commits in other folders, and a plain git commit on top of it holds every change"
            ) {
                let more = (0..<40).map { TodoItem(text: "More \($0)") }
                write(
                    AppState(todos: todos + more, projects: [], removed: []),
                    over: AppState(todos: todos, projects: [], removed: []))
                guard case .committed = try store.commit() else { return fail("expected a commit") }
                expectIndexHoldsHEADAsGitWritesIt()
                for (i, todo) in more.prefix(5).enumerated() {
                    try handEdit(todo) { $0.replacingOccurrences(of: "More \(i)\"", with: "More \(i) again\"") }
                    guard case .committed = try store.commit() else { return fail("expected a commit") }
                    expectIndexHoldsHEADAsGitWritesIt()
                }
                // git trusts the cache: a commit by git builds its tree from it.
                try handEdit(more[30]) { $0.replacingOccurrences(of: "More 30", with: "More thirty") }
                try FileManager.default.removeItem(atPath: file(of: todos[11]))
                expect(gitCLI(["commit", "-qam", "By hand"], in: folder).status) == 0
                let fresh = folder.appendingPathComponent(".git/spec-fresh-index").path
                defer { try? FileManager.default.removeItem(atPath: fresh) }
                expect(gitCLI(["add", "-A"], in: folder, environment: ["GIT_INDEX_FILE": fresh]).status) == 0
                expect(gitCLI(["write-tree"], in: folder, environment: ["GIT_INDEX_FILE": fresh]).stdout)
                    == gitCLI(["rev-parse", "HEAD^{tree}"], in: folder).stdout
                expect(gitCLI(["status", "--porcelain"], in: folder).stdout) == ""
                expect(try store.status()).to(beEmpty())
                expect(try store.load().state.todos.map(\.text)).to(contain("More thirty"))
            }
            it("writes no folder's tree from an old tree cache that names a wrong one") {
                // The index Docket noted, with the tree cache's entry for one folder naming another folder's tree.
                let more = (0..<40).map { TodoItem(text: "More \($0)") }
                write(
                    AppState(todos: todos + more, projects: [], removed: []),
                    over: AppState(todos: todos, projects: [], removed: []))
                guard case .committed = try store.commit() else { return fail("expected a commit") }
                // The last two folders in the cache (a folder of todos and .docket) swap trees; the checksum and
                // Docket's note follow.
                let swap = """
                    import hashlib, re
                    data = bytearray(open('.git/index', 'rb').read())
                    start = data.index(b'TREE') + 8
                    ids = [m.end() for m in re.finditer(rb'\\x00\\d+ \\d+\\n', bytes(data[start:-20]))]
                    a, b = start + ids[-2], start + ids[-1]
                    data[a:a + 20], data[b:b + 20] = data[b:b + 20], data[a:a + 20]
                    data[-20:] = hashlib.sha1(bytes(data[:-20])).digest()
                    open('.git/index', 'wb').write(data)
                    tree = open('.git/docket/index-tree').read().split()[1]
                    open('.git/docket/index-tree', 'w').write(data[-20:].hex() + ' ' + tree + '\\n')
                    """
                expect(runCommand("python3", ["-c", swap], in: folder).status) == 0
                expect(treeCache(folder.appendingPathComponent(".git/index").path)) != gitsTreeCache(of: "HEAD")
                expect(try store.status()).to(beEmpty())
                // A commit in one folder of todos: .docket, which it does not touch, must not keep the tree it was
                // given.
                try handEdit(todos[0]) { $0.replacingOccurrences(of: "Todo 0", with: "Todo zero") }
                guard case .committed = try store.commit() else { return fail("expected a commit") }
                expectIndexHoldsHEADAsGitWritesIt()
            }
            it("hashes and commits through git's filters when an attribute asks for one, as git does") {
                // Line endings normalized on commit: a file written with CRLF goes in with LF, as git commits it.
                try Data("*.json text\n".utf8).write(to: folder.appendingPathComponent(".git/info/attributes"))
                // Its alterDate moved by the hand edit too, so the commit keeps the file as it is instead of dating it.
                try handEdit(todos[4]) {
                    $0.replacingOccurrences(of: "Todo 4", with: "Todo four").replacingOccurrences(
                        of: "\"alterDate\" : null", with: "\"alterDate\" : \"2026-11-23T10:00:00.000Z\""
                    )
                    .replacingOccurrences(of: "\n", with: "\r\n")
                }
                guard case .committed = try store.commit() else { return fail("expected a commit") }
                let blob = gitCLI(["cat-file", "-p", "HEAD:" + StoreLayout.todo(todos[4].id)], in: folder).stdout
                expect(blob).to(contain("Todo four"))
                expect(blob).notTo(contain("\r"))
                expect(gitCLI(["status", "--porcelain"], in: folder).stdout) == ""
            }
        }

        describe("Store.pull (the index written by Docket)") {
            var remote: URL!
            var other: Store!
            var otherFolder: URL!
            var todos: [TodoItem]!
            beforeEach {
                remote = temporaryFolder()
                otherFolder = temporaryFolder()
                try? FileManager.default.removeItem(at: otherFolder)
                todos = (0..<30).map { TodoItem(text: "Todo \($0)") }
                write(AppState(todos: todos, projects: [], removed: []))
                _ = try! store.commit()
                let url = try! Store.createRemote(at: remote)
                _ = try! store.addRemote("origin", url: url)
                try! store.push()
                other = try! Store.clone(url: url, into: otherFolder)
            }
            afterEach {
                try? FileManager.default.removeItem(at: remote)
                try? FileManager.default.removeItem(at: otherFolder)
            }
            func edit(_ store: Store, _ chosen: ArraySlice<TodoItem>, _ tag: String) {
                try! store.withLock {
                    let before = AppState(todos: Array(chosen), projects: [], removed: [])
                    try store.write(
                        from: before,
                        to: AppState(
                            todos: chosen.map { $0.alter(.text("\($0.text) (\(tag))")) }, projects: [], removed: []))
                }
                _ = try! store.commit()
            }
            func index(_ folder: URL) -> [String: String] {
                // "path: size" for each entry, as git reads the index.
                var sizes: [String: String] = [:]
                var path = ""
                for line in gitCLI(["ls-files", "--debug"], in: folder).stdout.split(separator: "\n") {
                    if !line.hasPrefix(" ") {
                        path = String(line)
                    } else if line.contains("size: ") {
                        sizes[path] = String(line.split(separator: "size: ")[1].split(separator: "\t")[0])
                    }
                }
                return sizes
            }

            it("leaves a clone's index with git's tree cache for what it checked out") {
                let cache = treeCache(otherFolder.appendingPathComponent(".git/index").path)
                expect(cache).notTo(beNil(), description: "the clone's index has no tree cache")
                expect(cache) == gitsTreeCache(of: "HEAD", in: otherFolder)
                expect(gitCLI(["status", "--porcelain"], in: otherFolder).stdout) == ""
                expect(try other.status()).to(beEmpty())
            }
            it(
                "leaves the index as git would write it: every entry HEAD's, its checksum whole, the merged files' stat data in it"
            ) {
                edit(other, todos[0..<5], "there")
                try! other.push()
                edit(store, todos[4..<9], "here")
                guard case .merged = try store.pull().outcome else { return fail("expected a merge") }
                expect(gitCLI(["status", "--porcelain"], in: folder).stdout) == ""
                expect(gitCLI(["diff", "--cached", "--quiet"], in: folder).status) == 0
                expect(gitCLI(["diff-files", "--quiet"], in: folder).status) == 0
                expectIndexHoldsHEADAsGitWritesIt()
                expect(try store.status()).to(beEmpty())
            }
            it(
                "reads again, as git does, the files that may have changed unseen in the old index's second, and marks none that still hold their blob"
            ) {
                edit(other, todos[0..<5], "there")
                try! other.push()
                edit(store, todos[4..<9], "here")
                // Every entry as old as the index: each file might have changed in the same second, unseen by its stat
                // data.
                let past = Date(timeIntervalSinceNow: -3600)
                try! FileManager.default.setAttributes(
                    [.modificationDate: past], ofItemAtPath: folder.appendingPathComponent(".git/index").path)
                _ = try store.pull()
                // Each was read and found unchanged: git may trust its stat data (a file that changed is marked; see
                // Store.status).
                let sizes = index(folder)
                let kept = StoreLayout.todo(todos[20].id)
                let pulled = StoreLayout.todo(todos[0].id)
                expect(sizes[kept]) == String(try! Data(contentsOf: folder.appendingPathComponent(kept)).count)
                expect(sizes[pulled]) != "0"
                expect(sizes.values.filter { $0 == "0" }) == []
                expect(try store.status()).to(beEmpty())
                expect(gitCLI(["status", "--porcelain"], in: folder).stdout) == ""
                expect(gitCLI(["diff-files", "--name-only"], in: folder).stdout) == ""
            }
            it("leaves an index with an extension Docket does not write to libgit2, and the pull is the same") {
                expect(gitCLI(["update-index", "--untracked-cache"], in: folder).status) == 0
                expect(try store.status()).to(beEmpty())
                edit(other, todos[0..<5], "there")
                try! other.push()
                edit(store, todos[4..<9], "here")
                _ = try store.pull()
                expect(gitCLI(["status", "--porcelain"], in: folder).stdout) == ""
                expect(gitCLI(["diff", "--cached", "--quiet"], in: folder).status) == 0
                expect(try store.load().state.todos.filter { $0.text.hasSuffix("(there)") }.count) == 4
            }
        }

        describe("Store.status and Store.commit when the index differs from HEAD") {
            var todo: TodoItem!
            beforeEach {
                todo = TodoItem(text: "x")
                write(AppState(todos: [todo], projects: [], removed: []))
                _ = try! store.commit()
            }
            it("report a change staged by hand with git add, and commit it") {
                let path = file(of: todo)
                try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(of: "\"x\"", with: "\"y\"")
                    .write(toFile: path, atomically: false, encoding: .utf8)
                gitCLI(["add", "-A"], in: folder)
                expect(try store.status().map(\.description)) == ["todo 'x' renamed to 'y'"]
                _ = try store.commit()
                expect(gitCLI(["log", "-1", "--format=%s"], in: folder).stdout) == "Edit 1 todo\n"
                expect(gitCLI(["status", "--porcelain"], in: folder).stdout) == ""
            }
            it("report a removal staged by hand with git rm") {
                gitCLI(["rm", "-q", String(file(of: todo).dropFirst(folder.path.count + 1))], in: folder)
                expect(try store.status().map(\.description)) == ["removed todo 'x'"]
            }
        }
    }
}
