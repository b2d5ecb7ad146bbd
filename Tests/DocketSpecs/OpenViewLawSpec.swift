import DocketModel
import DocketSpecSupport
import Foundation
import Nimble
import Quick

@testable import Docket

/// The views of open work read through the todo cache (only the open todos
/// decoded, folders skipped while their names and the monitor vouch for them)
/// must show exactly what a read of every file shows, whatever people, git
/// and Docket do to the files in between.
final class OpenViewLawSpec: QuickSpec {
    override class func spec() {
        describe("the views of open work (the todo cache by folder, open todos only)") {
            it("show what a read of every file shows after every step: edits, git, pulls, undo, damage (seeded)") {
                // 6 seeds of 60 steps here; DOCKET_PROPERTY_SCALE=4 runs 1,440 (scripts/open-view-law).
                forAll(6) { g in OpenViewLaw(seed: g.next(), monitored: Bool.random(using: &g)).run(&g) }
            }
        }
    }
}

/// One seeded run of the law: a store, a bare remote and a plain git peer, and random steps.
private struct OpenViewLaw {
    let seed: UInt64
    let monitored: Bool
    let base = temporaryFolder("docket-open-view")
    var folder: URL { base.appendingPathComponent("store") }
    var peer: URL { base.appendingPathComponent("peer") }
    var remote: URL { base.appendingPathComponent("remote.git") }
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func run(_ g: inout SeededGenerator) -> String? {
        defer {
            if monitored { docket("monitor", "off", store: folder) }
            try? FileManager.default.removeItem(at: base)
        }
        let store = try! Store.create(at: folder)
        let todos = (0..<Int.random(in: 20...120, using: &g)).map { _ in
            RandomValues.todo(&g).alter(.completed(Double.random(in: 0..<1, using: &g) < 0.8))
        }
        try! store.withLock { try store.write(from: AppState(), to: AppState(todos: todos, projects: [], removed: [])) }
        _ = try! store.commit(message: "Start")
        gitCLI(["init", "-q", "--bare", remote.path], in: base)
        gitCLI(["remote", "add", "origin", remote.path], in: folder)
        gitCLI(["push", "-q", "origin", "HEAD:main"], in: folder)
        gitCLI(["branch", "-q", "--set-upstream-to=origin/main"], in: folder)
        gitCLI(["clone", "-q", remote.path, peer.path], in: base)
        if monitored { expect(docket("monitor", "on", store: folder).status) == 0 }
        var conflicted = false
        // What an app's queue keeps: started from the caches, then brought up to date by looking at the files.
        var model = try! StoreModel(reading: store)
        for step in 0..<propertyScaled(60) {
            let action = Int.random(in: 0..<22, using: &g)
            // NB: made before the step, so the step's changes are what its first look must find.
            if Int.random(in: 0..<4, using: &g) == 0 { model = try! StoreModel(reading: store) }
            do {
                try act(action, store: store, conflicted: &conflicted, &g)
            } catch {
                return "step \(step) (action \(action)) threw \(error)"
            }
            if let problem = check(store, openFirst: Bool.random(using: &g), model: model) {
                return "after step \(step) (action \(action)\(monitored ? ", monitored" : "")): \(problem)"
            }
        }
        return nil
    }

    /// The todo files in the working tree.
    func todoFiles() -> [String] {
        ((try? FileManager.default.subpathsOfDirectory(atPath: folder.path + "/todos")) ?? [])
            .filter { $0.hasSuffix(".json") && $0.split(separator: "/").count == 2 }.sorted().map { "todos/" + $0 }
    }

    func act(_ action: Int, store: Store, conflicted: inout Bool, _ g: inout SeededGenerator) throws {
        let files = todoFiles()
        let path = files.randomElement(using: &g).map { folder.path + "/" + $0 }
        func text(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
        func flipped(_ text: String) -> String {
            text.contains("\"completed\" : true")
                ? text.replacingOccurrences(of: "\"completed\" : true", with: "\"completed\" : false")
                : text.replacingOccurrences(of: "\"completed\" : false", with: "\"completed\" : true")
        }
        switch action {
        case 0, 1: // Docket adds a todo, open or done.
            let todo = RandomValues.todo(&g).alter(.completed(Bool.random(using: &g)))
            try store.withLock {
                try store.write(from: AppState(), to: AppState(todos: [todo], projects: [], removed: []))
            }
        case 2, 3: // Docket completes or reopens one.
            guard let path,
                let id = UUID(uuidString: URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent),
                let todo = try? store.todo(id)
            else { return }
            let changed = todo.alter(.completed(!todo.completed))
            try store.withLock {
                try store.write(
                    from: AppState(todos: [todo], projects: [], removed: []),
                    to: AppState(todos: [changed], projects: [], removed: []))
            }
        case 4, 5: // A person flips done in place: same inode, perhaps the same size.
            guard let path, let handle = FileHandle(forUpdatingAtPath: path) else { return }
            let flipped = flipped(text(path))
            try handle.truncate(atOffset: 0)
            handle.write(Data(flipped.utf8))
            try handle.close()
        case 6: // An editor writes a new file and renames it over the old one.
            guard let path else { return }
            let edited = flipped(text(path)).replacingOccurrences(of: "\"text\" : \"", with: "\"text\" : \"edited ")
            try Data(edited.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        case 7: // A person removes a file.
            guard let path else { return }
            try FileManager.default.removeItem(atPath: path)
        case 8: // A file is damaged, or a damaged one mended from the last commit.
            guard let path else { return }
            if Bool.random(using: &g) {
                try Data("{ damaged".utf8).write(to: URL(fileURLWithPath: path))
            } else {
                gitCLI(["checkout", "-q", "HEAD", "--", "todos"], in: folder)
            }
        case 9: // A stray file, or a folder inside a shard, comes or goes.
            let shard = folder.appendingPathComponent(
                "todos/" + String(format: "%02X", Int.random(in: 0..<256, using: &g)))
            try FileManager.default.createDirectory(at: shard, withIntermediateDirectories: true)
            let stray = shard.appendingPathComponent(Bool.random(using: &g) ? "notes.txt" : "inner/more.json")
            if FileManager.default.fileExists(atPath: stray.path) {
                try FileManager.default.removeItem(at: stray)
            } else {
                try FileManager.default.createDirectory(
                    at: stray.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data("{}".utf8).write(to: stray)
            }
        case 10: // Docket commits.
            guard !conflicted else { return }
            for stray in ["notes.txt", "inner"] {
                for shard in (try? FileManager.default.contentsOfDirectory(atPath: folder.path + "/todos")) ?? [] {
                    try? FileManager.default.removeItem(atPath: folder.path + "/todos/" + shard + "/" + stray)
                }
            }
            _ = try? store.commit(message: "Step")
        case 11: // Plain git puts back the last commit's todos, or an older one's.
            guard !conflicted else { return }
            gitCLI(["checkout", "-q", Bool.random(using: &g) ? "HEAD" : "HEAD~1", "--", "todos"], in: folder)
        case 12: // Plain git stashes the changes, and later brings them back.
            guard !conflicted else { return }
            if gitCLI(["stash", "list"], in: folder).stdout.isEmpty {
                gitCLI(["stash", "-q", "-u"], in: folder)
            } else {
                gitCLI(["stash", "pop", "-q"], in: folder)
                if !gitCLI(["diff", "--name-only", "--diff-filter=U"], in: folder).stdout.isEmpty {
                    gitCLI(["checkout", "-q", "HEAD", "--", "."], in: folder)
                    gitCLI(["reset", "-q"], in: folder)
                }
            }
        case 13: // Docket undoes its last change.
            guard !conflicted else { return }
            _ = try? store.undo()
        case 14, 15: // The peer completes, reopens or adds todos with plain git, and pushes.
            gitCLI(["pull", "-q", "--no-rebase", "--no-edit"], in: peer)
            let theirs = ((try? FileManager.default.subpathsOfDirectory(atPath: peer.path + "/todos")) ?? [])
                .filter { $0.hasSuffix(".json") }
            for name in theirs.shuffled(using: &g).prefix(Int.random(in: 1...5, using: &g)) {
                let file = peer.path + "/todos/" + name
                try Data(flipped(text(file)).utf8).write(to: URL(fileURLWithPath: file))
            }
            gitCLI(["commit", "-qam", "Peer"], in: peer)
            gitCLI(["push", "-q", "origin", "HEAD:main"], in: peer)
        case 16: // Docket pulls (merging item by item).
            guard !conflicted else { return }
            _ = try? store.commit(message: "Before the pull")
            _ = try? store.pull()
        case 17: // Plain git pulls; a conflict leaves its markers for a while.
            guard !conflicted else { return }
            _ = try? store.commit(message: "Before git pull")
            if gitCLI(["pull", "-q", "--no-rebase", "--no-edit"], in: folder).status != 0 {
                conflicted = !gitCLI(["diff", "--name-only", "--diff-filter=U"], in: folder).stdout.isEmpty
            }
        case 18: // The unfinished git merge is given up.
            guard conflicted else { return }
            gitCLI(["merge", "--abort"], in: folder)
            conflicted = false
        case 19: // The cache is damaged or removed.
            let cache = folder.path + "/.git/docket/todos.cache"
            if Bool.random(using: &g), let data = FileManager.default.contents(atPath: cache) {
                try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: cache))
            } else {
                try? FileManager.default.removeItem(atPath: cache)
            }
        default: // Time passes the file system's clock tick, so the cache keeps what it reads.
            Thread.sleep(forTimeInterval: 0.12)
        }
    }

    /// The views through the cache against a read of every file.
    func check(_ store: Store, openFirst: Bool, model: StoreModel) -> String? {
        let source = try! store.workingTreeOrLastCommit
        var fresh = StoreReader(source)
        let read = try! fresh.everything()
        let expectedProblems = Set(
            (source.problems + fresh.problems).filter { $0.path.hasPrefix("todos/") }.map(\.path))
        let open = read.todos.filter { !$0.completed }
        func compare(openOnly: Bool) -> String? {
            let (todos, problems) = try! store.loadTodos(openOnly: openOnly)
            let expected = openOnly ? open : read.todos
            if todos != expected {
                let shown = Set(todos.map(\.id))
                let wanted = Set(expected.map(\.id))
                return
                    "\(openOnly ? "open" : "all") todos differ: \(todos.count) shown, \(expected.count) in the files; "
                    + "extra \(shown.subtracting(wanted).map(\.uuidString)), missing \(wanted.subtracting(shown).map(\.uuidString))"
                    + (shown == wanted ? " (same ids, other values)" : "")
            }
            if Set(problems.map(\.path)) != expectedProblems {
                return "problems differ: \(problems.map(\.path).sorted()) against \(expectedProblems.sorted())"
            }
            return nil
        }
        for openOnly in openFirst ? [true, false] : [false, true] {
            if let problem = compare(openOnly: openOnly) { return problem }
        }
        let loaded = try! store.load()
        if loaded.state != read { return "load() differs from a read of every file" }
        if loaded.order.positions != fresh.order.positions { return "load()'s order differs" }
        if Set(loaded.problems.map(\.path)) != Set((source.problems + fresh.problems).map(\.path)) {
            return "load()'s problems differ"
        }
        // NB: the queue keeps an item whose file stops reading as it was (and names the file); the rest must agree.
        _ = model.apply(try! model.look(at: store))
        let modelled = model.snapshot
        let unread = Set(modelled.problems.compactMap { StoreLayout.item(at: $0.path).id })
        if modelled.state.todos.filter({ !unread.contains($0.id) }) != read.todos.filter({ !unread.contains($0.id) })
            || modelled.state.projects != read.projects
        {
            let shown = Dictionary(modelled.state.todos.map { ($0.id, $0) }) { a, _ in a }
            let wanted = Dictionary(read.todos.map { ($0.id, $0) }) { a, _ in a }
            let differing = Set(shown.keys).union(wanted.keys).filter {
                shown[$0] != wanted[$0] && !unread.contains($0)
            }
            return "the queue's model differs from a read of every file: "
                + differing.map {
                    "\($0.uuidString): \(shown[$0]?.completed.description ?? "none") against \(wanted[$0]?.completed.description ?? "none")"
                }.joined(separator: ", ")
        }
        // NB: nor does it name a stray file: it holds items.
        if Set(modelled.problems.map(\.path)) != expectedProblems.filter({ StoreLayout.item(at: $0).id != nil }) {
            return
                "the queue's model names other files: \(modelled.problems.map(\.path).sorted()) against \(expectedProblems.sorted())"
        }
        let agenda = try! store.agenda(now: now).agenda
        let expected = Agenda(todos: read.todos, projects: read.projects, now: now)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        if try! encoder.encode(agenda) != encoder.encode(expected) { return "the day's view differs" }
        return nil
    }
}
