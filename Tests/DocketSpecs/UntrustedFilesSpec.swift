import Docket
import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// Files in a store written by someone else (a remote, another tool, a hand
/// edit) are read only as what they claim to be: a link is never followed, a
/// file under a look-alike name or with another item's id stands for nothing,
/// and what they hold never reaches the terminal raw.
final class UntrustedFilesSpec: QuickSpec {
    override class func spec() {
        var folder: URL!
        var outside: URL!
        beforeEach {
            folder = temporaryFolder()
            outside = temporaryFolder("docket-outside")
            runCommand(docketBinary, ["init", folder.path])
        }
        afterEach {
            try? FileManager.default.removeItem(at: folder)
            try? FileManager.default.removeItem(at: outside)
        }
        func file(_ path: String) -> URL { folder.appendingPathComponent(path) }
        func add(_ text: String) -> UUID {
            _ = docket("add", text, store: folder)
            return try! Store.open(at: folder).load().state.todos.first { $0.text == text }!.id
        }
        func link(_ path: String, to target: URL) {
            try? FileManager.default.createDirectory(
                at: file(path).deletingLastPathComponent(), withIntermediateDirectories: true)
            try! FileManager.default.createSymbolicLink(at: file(path), withDestinationURL: target)
        }
        func todoJSON(_ id: UUID, _ text: String) -> String {
            "{\"id\": \"\(id.uuidString)\", \"text\": \"\(text)\", \"creationDate\": \"2026-11-20T10:00:00.000Z\", \"completed\": false}\n"
        }

        describe("Docket's own files that are not what they claim") {
            it("refuses a format file that is a link, naming the store, and reads nothing through it") {
                let elsewhere = outside.appendingPathComponent("format.json")
                try Data("{\"format\": 1}\n".utf8).write(to: elsewhere)
                try FileManager.default.removeItem(at: file(StoreLayout.format))
                link(StoreLayout.format, to: elsewhere)
                let listed = docket("list", store: folder)
                expect(listed.status) == 1
                expect(listed.stderr).to(contain("symbolic link"))
            }
            it("leaves an item file over 1 MiB to git's line merge when git's merge driver is given one") {
                let id = UUID(uuidString: "AB000000-0000-4000-8000-000000000009")!
                let padding = String(repeating: " ", count: 1 << 21)
                func version(_ text: String) -> URL {
                    let url = outside.appendingPathComponent(text)
                    try! Data((todoJSON(id, text).dropLast() + padding + "\n").utf8).write(to: url)
                    return url
                }
                let (base, ours, theirs) = (version("Base"), version("Ours"), version("Theirs"))
                let before = try Data(contentsOf: ours)
                let merged = runCommand(
                    docketBinary, ["merge-driver", base.path, ours.path, theirs.path, StoreLayout.todo(id)], in: outside
                )
                // git's line merge of three different one-line texts is a conflict: markers, exit 1.
                expect(merged.status) == 1
                let after = String(decoding: try Data(contentsOf: ours), as: UTF8.self)
                expect(after).to(contain("<<<<<<<"))
                expect(after.count) > before.count
            }
        }

        describe("a tombstone's file that is a link to a file elsewhere") {
            it("is replaced, never read: removing the todo copies nothing from the linked file") {
                let id = add("Buy milk")
                let secret = outside.appendingPathComponent("config.json")
                try Data("{\"auths\": \"s3cret\"}\n".utf8).write(to: secret)
                link(StoreLayout.tombstone(id), to: secret)
                expect(docket("rm", String(id.uuidString.prefix(8)), store: folder).status) == 0
                let tombstone = try String(contentsOf: file(StoreLayout.tombstone(id)), encoding: .utf8)
                expect(tombstone).toNot(contain("s3cret"))
                expect(try FileManager.default.destinationOfSymbolicLink(atPath: file(StoreLayout.tombstone(id)).path))
                    .to(throwError())
                expect(try String(contentsOf: secret, encoding: .utf8)) == "{\"auths\": \"s3cret\"}\n"
            }
        }

        describe("a store folder that is a link to a folder elsewhere") {
            var planted: UUID!
            beforeEach {
                planted = UUID(uuidString: "CD000000-0000-4000-8000-000000000001")!
                try! Data(todoJSON(planted, "Planted").utf8).write(
                    to: outside.appendingPathComponent("\(planted.uuidString).json"))
            }
            it("is not read by list or show, which say why") {
                _ = add("Own todo")
                link("todos/CD", to: outside)
                let listed = docket("list", store: folder)
                expect(listed.stdout).to(contain("Own todo"))
                expect(listed.stdout).toNot(contain("Planted"))
                expect(listed.stderr).to(contain("todos/CD: is a symbolic link"))
                let shown = docket("show", "cd000000", store: folder)
                expect(shown.status) == 1
                expect(shown.stdout).toNot(contain("Planted"))
            }
            it("is not written through by done, and nothing outside changes") {
                link("todos/CD", to: outside)
                let before = try Data(contentsOf: outside.appendingPathComponent("\(planted.uuidString).json"))
                let done = docket("done", "cd000000", store: folder)
                expect(done.status) == 1
                expect(try Data(contentsOf: outside.appendingPathComponent("\(planted.uuidString).json"))) == before
            }
            it("is not written through by task add, nor emptied by project rm") {
                let project = UUID(uuidString: "EE000000-0000-4000-8000-000000000001")!
                try Data("{\"id\": \"\(project.uuidString)\", \"title\": \"Planted\", \"position\": 0}\n".utf8)
                    .write(to: outside.appendingPathComponent("project.json"))
                link(StoreLayout.projectFolder(project), to: outside)
                expect(docket("task", "add", "ee000000", "Sneaky", store: folder).status) == 1
                expect(docket("project", "rm", "ee000000", store: folder).status) == 1
                expect(try FileManager.default.contentsOfDirectory(atPath: outside.path).sorted()) == [
                    "\(planted.uuidString).json", "project.json",
                ]
            }
            it("in place of the whole todos folder stops list with a message naming it") {
                try? FileManager.default.removeItem(at: file(StoreLayout.todos))
                link(StoreLayout.todos, to: outside)
                let listed = docket("list", store: folder)
                expect(listed.status) == 1
                expect(listed.stderr).to(contain("todos is a symbolic link or a file where a folder should be"))
                expect(listed.stdout).toNot(contain("Planted"))
            }
            it("in place of the folder of removals stops rm before anything changes") {
                let id = add("Keep me")
                try FileManager.default.createDirectory(
                    at: file(StoreLayout.removed).deletingLastPathComponent(), withIntermediateDirectories: true)
                link(StoreLayout.removed, to: outside)
                expect(docket("rm", String(id.uuidString.prefix(8)), store: folder).status) == 1
                expect(try Store.open(at: folder).load().state.todos.map(\.text)) == ["Keep me"]
                expect(try FileManager.default.contentsOfDirectory(atPath: outside.path)) == [
                    "\(planted.uuidString).json"
                ]
            }
        }

        describe("a link git committed in a store folder") {
            it("is no change while it is unchanged, at every status, and is named once it points elsewhere") {
                let milk = add("Buy milk")
                expect(docket("commit", store: folder).status) == 0
                // A shard folder's name that the todo's own folder (named by its random id) does not take.
                let shard = StoreLayout.todo(milk).hasPrefix("todos/77/") ? "todos/78" : "todos/77"
                link(shard, to: outside.appendingPathComponent("nowhere"))
                gitCLI(["add", shard], in: folder)
                expect(gitCLI(["commit", "-qm", "A link"], in: folder).status) == 0
                // The first status after git's commit is libgit2's; the next ones, Docket's own scan of the folders.
                for _ in 0..<3 {
                    expect(docket("status", store: folder).stdout)
                        == "Nothing to commit; the store matches its last commit.\n"
                }
                try FileManager.default.removeItem(at: file(shard))
                link(shard, to: outside.appendingPathComponent("somewhere"))
                expect(docket("status", store: folder).stdout).to(
                    contain("\(shard) cannot be read: is a symbolic link, which Docket does not follow"))
            }
        }

        describe("a file that holds another item's id") {
            it(
                "stands for nothing: list skips it, changing the other item touches only its own file, and commit refuses it"
            ) {
                let milk = add("Buy milk")
                let impostor = UUID(uuidString: "AB000000-0000-4000-8000-000000000001")!
                try FileManager.default.createDirectory(
                    at: file(StoreLayout.todo(impostor)).deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(todoJSON(milk, "Impostor").utf8).write(to: file(StoreLayout.todo(impostor)))
                let listed = docket("list", store: folder)
                expect(listed.stdout).toNot(contain("Impostor"))
                expect(listed.stderr).to(contain("holds the id \(milk.uuidString.lowercased())"))
                expect(docket("done", String(milk.uuidString.prefix(8)), store: folder).status) == 0
                expect(try String(contentsOf: file(StoreLayout.todo(impostor)), encoding: .utf8))
                    == todoJSON(milk, "Impostor")
                let committed = docket("commit", store: folder)
                expect(committed.status) == 1
                expect(committed.stderr).to(contain(StoreLayout.todo(impostor)))
            }
        }

        describe("a file under a name Docket does not give") {
            it("is named by list and refused by commit, which commits nothing") {
                _ = add("Buy milk")
                _ = docket("commit", store: folder)
                let lower = "todos/ab/ab000000-0000-4000-8000-000000000001.json"
                try FileManager.default.createDirectory(
                    at: file(lower).deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(todoJSON(UUID(uuidString: "AB000000-0000-4000-8000-000000000001")!, "Look-alike").utf8).write(
                    to: file(lower))
                expect(docket("list", store: folder).stderr).to(contain("\(lower): is not a Docket item"))
                let committed = docket("commit", store: folder)
                expect(committed.status) == 1
                expect(committed.stderr).to(contain(lower))
                expect(gitCLI(["rev-list", "--count", "HEAD"], in: folder).stdout) == "2\n"
            }
        }

        describe("text that holds terminal controls") {
            it("is shown escaped by list and show, never raw") {
                let id = add("Evil \u{1B}]0;pwned\u{07}\u{1B}[2K title\nsecond line")
                let listed = docket("list", store: folder).stdout
                expect(listed).toNot(contain("\u{1B}"))
                expect(listed).to(contain("Evil \\e]0;pwned\\u{7}\\e[2K title\\nsecond line"))
                expect(listed.split(separator: "\n").count) == 1
                expect(docket("show", String(id.uuidString.prefix(8)), store: folder).stdout).toNot(contain("\u{1B}"))
            }

            it(
                "shows the marks that hide or reorder text escaped: U+061C, zero-width spaces and joiners, line and paragraph separators"
            ) {
                _ = add("Pay\u{200B}pal\u{200C}\u{200D} \u{061C}bill\u{2028}second\u{2029}third")
                let listed = docket("list", store: folder).stdout
                for hidden in ["\u{200B}", "\u{200C}", "\u{200D}", "\u{061C}", "\u{2028}", "\u{2029}"] {
                    expect(listed).toNot(contain(hidden))
                }
                expect(listed).to(
                    contain("Pay\\u{200B}pal\\u{200C}\\u{200D} \\u{61C}bill\\u{2028}second\\u{2029}third"))
            }
        }

        describe("dates") {
            it("takes an empty --due as no due date, as a script with an empty variable passes it") {
                let added = docket("add", "x", "--due", "", store: folder)
                expect(added.status) == 0
                expect(try Store.open(at: folder).load().state.todos[0].dueDate).to(beNil())
            }
            for typed in [
                "+3000000d", "+99999999999999d", "0000-01-01", "+9223372036854775807d", "+2000000000000000000w",
                "10000-01-01",
            ] {
                it("refuses \(typed) as a usage error and writes nothing") {
                    let added = docket("add", "x", "--due", typed, store: folder)
                    expect(added.status) == 64
                    expect(try Store.open(at: folder).load().state.todos).to(beEmpty())
                }
            }
            it(
                "lets a todo dated at the last millisecond a file holds be edited, completed, removed and committed, also after a hand edit"
            ) {
                let pinned = UUID(uuidString: "AB000000-0000-4000-8000-000000000003")!
                func write(_ text: String) throws {
                    try FileManager.default.createDirectory(
                        at: file(StoreLayout.todo(pinned)).deletingLastPathComponent(),
                        withIntermediateDirectories: true)
                    try Data(
                        todoJSON(pinned, text).replacingOccurrences(
                            of: "\"completed\": false}",
                            with:
                                "\"completed\": false, \"alterDate\": \"9999-12-31T23:59:59.999Z\"}"
                        ).utf8
                    ).write(to: file(StoreLayout.todo(pinned)))
                }
                try write("From the future")
                gitCLI(["add", "-A"], in: folder)
                gitCLI(["commit", "-qm", "From a remote"], in: folder)
                let id = pinned.uuidString.lowercased()
                for command in [
                    ["edit", id, "Edited"], ["priority", id, "high"], ["done", id], ["reopen", id], ["commit"],
                ] {
                    let result = docket(command, store: folder)
                    expect(result.status).to(equal(0), description: "\(command): \(result.stderr)")
                    expect(result.stderr).toNot(contain("EncodingError"))
                }
                expect(try Store.open(at: folder).load().state.todo(id: pinned)?.text) == "Edited"
                try write("Edited by hand")
                expect(docket("commit", store: folder).status) == 0
                expect(docket("rm", id, store: folder).status) == 0
                expect(docket("commit", store: folder).status) == 0
                expect(try Store.open(at: folder).load().state.todo(id: pinned)).to(beNil())
            }

            it(
                "refuses a repeating todo's occurrence no arithmetic can take, and ends a series at the last one or past the year 9999"
            ) {
                let series = "6a000000-0000-4000-8000-000000000001"
                func repeating(_ id: UUID, occurrence: String, due: String) throws {
                    try FileManager.default.createDirectory(
                        at: file(StoreLayout.todo(id)).deletingLastPathComponent(), withIntermediateDirectories: true)
                    try Data(
                        todoJSON(id, "Water plants").replacingOccurrences(
                            of: "\"completed\": false}",
                            with:
                                "\"completed\": false, \"dueDate\": \"\(due)\", \"recurrence\": {\"every\": \"year\", \"series\": \"\(series)\", \"occurrence\": \(occurrence)}}"
                        ).utf8
                    )
                    .write(to: file(StoreLayout.todo(id)))
                }
                let (huge, last, late) = (
                    UUID(uuidString: "AB000000-0000-4000-8000-000000000004")!,
                    UUID(uuidString: "AB000000-0000-4000-8000-000000000005")!,
                    UUID(uuidString: "AB000000-0000-4000-8000-000000000006")!
                )
                try repeating(huge, occurrence: "9223372036854775807", due: "2026-12-01T00:00:00.000Z")
                try repeating(last, occurrence: "1000000000", due: "2026-12-01T00:00:00.000Z")
                try repeating(late, occurrence: "3", due: "9999-06-01T00:00:00.000Z")
                let listed = docket("list", store: folder)
                expect(listed.stderr).to(contain("occurrence 9223372036854775807 is more than 1000000000"))
                expect(docket("done", huge.uuidString.lowercased(), store: folder).status) != 0
                for id in [last, late] {
                    let done = docket("done", id.uuidString.lowercased(), store: folder)
                    expect(done.status).to(equal(0), description: done.stderr)
                }
                let todos = try Store.open(at: folder).load().state.todos
                expect(todos.filter { !$0.completed && $0.text == "Water plants" }).to(beEmpty())
            }

            it("skips a file that holds a key twice, which readers take differently, naming it, and lists the rest") {
                _ = add("Fine")
                let twice = UUID(uuidString: "AB000000-0000-4000-8000-00000000000D")!
                try FileManager.default.createDirectory(
                    at: file(StoreLayout.todo(twice)).deletingLastPathComponent(), withIntermediateDirectories: true)
                // jq and Python read "Sell the car"; a decoder that takes the first value, "Wash the car".
                try Data(
                    todoJSON(twice, "Wash the car").replacingOccurrences(
                        of: "\"completed\"", with: "\"\\u0074ext\": \"Sell the car\", \"completed\""
                    ).utf8
                ).write(to: file(StoreLayout.todo(twice)))
                let listed = docket("list", store: folder)
                expect(listed.status) == 0
                expect(listed.stdout).to(contain("Fine"))
                expect(listed.stdout).toNot(contain("the car"))
                expect(listed.stderr).to(contain(StoreLayout.todo(twice)))
                expect(listed.stderr).to(contain("the key \"text\" is in one object twice"))
            }
            it("skips a file whose date no file can hold, saying why, and still lists the rest") {
                _ = add("Fine")
                let old = UUID(uuidString: "AB000000-0000-4000-8000-000000000002")!
                try FileManager.default.createDirectory(
                    at: file(StoreLayout.todo(old)).deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(todoJSON(old, "Old").replacingOccurrences(of: "2026-11-20T10", with: "0000-11-20T10").utf8)
                    .write(to: file(StoreLayout.todo(old)))
                let listed = docket("list", store: folder)
                expect(listed.status) == 0
                expect(listed.stdout).to(contain("Fine"))
                expect(listed.stderr).to(contain(StoreLayout.todo(old)))
            }
        }

        describe("a project's order key at the largest number there is") {
            it("lets projects be added after it, in order") {
                let project = UUID(uuidString: "CC000000-0000-4000-8000-000000000001")!
                try FileManager.default.createDirectory(
                    at: file(StoreLayout.project(project)).deletingLastPathComponent(),
                    withIntermediateDirectories: true)
                try Data(
                    "{\"id\": \"\(project.uuidString)\", \"title\": \"Far\", \"position\": 9223372036854775807}\n".utf8
                )
                .write(to: file(StoreLayout.project(project)))
                expect(docket("project", "add", "Near", store: folder).status) == 0
                expect(docket("project", "add", "Nearer", store: folder).status) == 0
                expect(try Store.open(at: folder).load().state.projects.map(\.title)) == ["Far", "Near", "Nearer"]
            }
        }

        describe("a lock file left empty by a docket killed as it made it") {
            it("blocks nobody") {
                let store = try Store.open(at: folder)
                _ = FileManager.default.createFile(atPath: store.lockFile, contents: Data())
                expect(docket("add", "x", store: folder, environment: ["DOCKET_LOCK_TIMEOUT": "0.5"]).status) == 0
            }
        }
    }
}
