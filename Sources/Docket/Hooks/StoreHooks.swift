import DocketGit
import DocketModel
import DocketSystem
import Foundation

// Hooks: programs in the store's `.git/docket/hooks/` (or the folder
// `docket.hooksPath` names) that hear of every item added, changed or
// removed, whether by a command on this machine or by a pull or merge, as
// Taskwarrior's hooks do. They run once the change is in place and the
// store's lock is free; they cannot stop or alter it, and a failing one is
// reported, never undoing the change.
//
// A change's events are written to `.git/docket/hooks-pending/` before the
// hooks run and removed after, so hooks a killed docket did not finish run
// from the next docket command (at least once, in order).

/// Where a change came from, as a hook hears it in `DOCKET_ORIGIN`.
public enum HookOrigin: String, Codable, Sendable {
    /// A command on this machine (add, done, edit, undo, …).
    case edit
    /// A pull or merge that brought other machines' changes.
    case pull
}

/// What one run of a hook program did.
public struct HookRun: Sendable {
    /// The event: `on-add`, `on-modify` or `on-remove`.
    public let event: String
    /// The program.
    public let path: String
    /// What it wrote (stdout and stderr), line by line.
    public let output: [String]
    /// Why it counts as failed, such as "exited with status 3"; nil when it succeeded.
    public let problem: String?
}

/// One item's change as hooks hear of it: its file text before and after.
struct HookedChange {
    let item: StoreLayout.Item
    let old: Data?
    let new: Data?
}

/// The events of one change, waiting for their hooks.
struct HookBatch: Codable {
    struct Event: Codable {
        let event: String
        let lines: [String]
    }

    let origin: HookOrigin
    let commit: String?
    let events: [Event]
}

/// The hook programs a store has, found once per command.
struct HookPrograms {
    /// The folder they are in.
    let folder: String
    /// Per event, the executables whose names are the event's or start with it and a dot (`on-add.notify`), in name
    /// order.
    let programs: [String: [String]]
    /// Files named as hooks that cannot run, for a warning.
    let notExecutable: [String]
    /// Hooks kept (or, through a link, whose program is kept) in the store's working tree, where a pull can put
    /// files: not run, as whoever can push to a remote of the store would choose what runs, for a warning.
    let inWorkingTree: [String]

    static let events = ["on-add", "on-modify", "on-remove"]

    /// Whether there is nothing to run or warn about.
    var isEmpty: Bool { programs.values.allSatisfy(\.isEmpty) && notExecutable.isEmpty && inWorkingTree.isEmpty }

    /// None, as for a docket a hook started.
    static let none = HookPrograms(folder: "", programs: [:], notExecutable: [], inWorkingTree: [])

    /// The hooks in `folder`, leaving out those whose program is in `workingTree` outside its git folders
    /// (`gitFolders`, asked for only when a hook's program is in `workingTree`); none when it does not exist.
    static func find(in folder: String, workingTree: String, gitFolders: () -> [String]) -> HookPrograms {
        var programs: [String: [String]] = [:]
        var notExecutable: [String] = []
        var inWorkingTree: [String] = []
        let real = { (path: String) -> String? in
            guard let resolved = realpath(path, nil) else { return nil }
            defer { free(resolved) }
            return String(cString: resolved)
        }
        let tree = real(workingTree).map { $0 + "/" }
        // NB: asked for only when a hook's program is in the working tree: the common git folder comes from the
        // repository, and opening it (starting libgit2) was 5 M instructions of every change on a store without
        // hooks.
        var git: [String]?
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
        for name in names {
            guard let event = events.first(where: { name == $0 || name.hasPrefix($0 + ".") }) else { continue }
            let path = folder + "/" + name
            var info = stat()
            // NB: stat, not lstat: a hook may be a link to a script kept elsewhere, as git's may.
            guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            if let program = real(path), let tree, program.hasPrefix(tree) {
                let folders = git ?? gitFolders().compactMap(real).map { $0 + "/" }
                git = folders
                if !folders.contains(where: program.hasPrefix) {
                    inWorkingTree.append(path)
                    continue
                }
            }
            if access(path, X_OK) == 0 {
                programs[event, default: []].append(path)
            } else {
                notExecutable.append(path)
            }
        }
        return HookPrograms(
            folder: folder, programs: programs, notExecutable: notExecutable, inWorkingTree: inWorkingTree)
    }
}

extension Store {
    /// The folder of pending hook events.
    var pendingHooksFolder: String { gitdir + "docket/hooks-pending" }

    /// The hook folder: `docket.hooksPath` (relative to the store's folder, `~` for the home folder), else
    /// `.git/docket/hooks`.
    public var hooksFolder: String {
        guard let configured = configuredHooksPath(), !configured.isEmpty else { return gitdir + "docket/hooks" }
        let expanded = Home.expand(configured)
        return expanded.hasPrefix("/") ? expanded : rootPath + "/" + expanded
    }

    /// `docket.hooksPath` from git's configuration. git is asked only when one
    /// of its configuration files mentions it (or includes another), so a
    /// command on a store without it starts no program and no libgit2.
    private func configuredHooksPath() -> String? {
        let home = Home.folder.path
        let xdg =
            ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home
            + "/.config"
        let files =
            [gitdir + "config", home + "/.gitconfig", xdg + "/git/config"]
            + [ProcessInfo.processInfo.environment["GIT_CONFIG_GLOBAL"]].compactMap { $0 }
        let mentioned = files.contains { file in
            guard let data = try? Folder.readFile(file, limit: 1 << 20) else { return false }
            let text = String(decoding: data, as: UTF8.self).lowercased()
            return text.contains("hookspath") || text.contains("[include")
        }
        guard mentioned else { return nil }
        let found = try? Spawn.run(["git", "config", "--get", "docket.hooksPath"], folder: rootPath)
        guard let found, found.status == 0 else { return nil }
        return found.text.trimmingCharacters(in: .newlines)
    }

    /// The store's hooks, found once per locked operation, so a hook installed while a store object is open (an
    /// app's `StoreQueue`, `sync --watch`) runs from its next operation on. None run for changes made by a
    /// docket a hook started (`DOCKET_HOOK` is set), so a hook that edits the
    /// store cannot set off itself.
    var hooks: HookPrograms {
        if let foundHooks { return foundHooks }
        let found =
            ProcessInfo.processInfo.environment["DOCKET_HOOK"] != nil
            ? HookPrograms.none
            : HookPrograms.find(
                in: hooksFolder, workingTree: rootPath,
                gitFolders: { [gitdir, (try? self.git.repository.commonDir) ?? self.gitdir] })
        foundHooks = found
        return found
    }

    /// Records a change for the hooks (when there are any), to run once the lock is free.
    func noteForHooks(_ changes: [HookedChange], origin: HookOrigin, commit: ObjectID? = nil) {
        let hooks = self.hooks
        if hooks.isEmpty { return }
        var added: [String] = []
        var modified: [String] = []
        var removed: [String] = []
        for change in changes {
            switch (
                change.old.flatMap { Store.hookLine(change.item, $0) },
                change.new.flatMap { Store.hookLine(change.item, $0) }
            ) {
            case let (nil, new?): added.append(new)
            case let (old?, new?) where old != new: modified += [old, new]
            case let (old?, nil): removed.append(old)
            default: break
            }
        }
        let events = [("on-add", added), ("on-modify", modified), ("on-remove", removed)]
            .filter { !$0.1.isEmpty }.map { HookBatch.Event(event: $0.0, lines: $0.1) }
        if events.isEmpty { return }
        let batch = HookBatch(origin: origin, commit: commit?.description, events: events)
        let name = String(format: "%020llu-%d.json", UInt64(Date().timeIntervalSince1970 * 1_000_000_000), getpid())
        // NB: not flushed: a machine that loses power may miss a hook, never a change.
        if (try? AtomicFile.write(try JSONEncoder().encode(batch), to: pendingHooksFolder + "/" + name, durable: false))
            != nil
        {
            pendingHookFiles.append(name)
        } else {
            unsavedHookBatches.append(batch)
        }
    }

    /// Runs the hooks of the changes this store object made, then those a
    /// killed docket left, oldest first; each batch's file goes once its hooks ran.
    func runPendingHooks() {
        let mine = pendingHookFiles
        let unsaved = unsavedHookBatches
        pendingHookFiles = []
        unsavedHookBatches = []
        var names = mine
        var info = stat()
        if lstat(pendingHooksFolder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            names += claimAbandonedHookBatches()
        }
        if names.isEmpty && unsaved.isEmpty { return }
        warnAboutHooksThatDoNotRun()
        for batch in unsaved { run(batch) }
        for name in names.sorted() {
            let path = pendingHooksFolder + "/" + name
            if let data = try? Folder.readFile(path, limit: 1 << 30),
                let batch = try? JSONDecoder().decode(HookBatch.self, from: data)
            {
                run(batch)
            }
            unlink(path)
        }
    }

    /// The batches whose docket is gone, renamed as this process's so no other takes them too.
    private func claimAbandonedHookBatches() -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: pendingHooksFolder) else { return [] }
        var claimed: [String] = []
        for name in names where name.hasSuffix(".json") && !pendingHookFiles.contains(name) {
            let parts = name.dropLast(5).split(separator: "-")
            guard parts.count == 2, let pid = pid_t(parts[1]), pid != getpid(), !Spawn.isAlive(pid) else { continue }
            let mine = "\(parts[0])-\(getpid()).json"
            if rename(pendingHooksFolder + "/" + name, pendingHooksFolder + "/" + mine) == 0 { claimed.append(mine) }
        }
        return claimed
    }

    private func warnAboutHooksThatDoNotRun() {
        guard !warnedAboutHooks else { return }
        warnedAboutHooks = true
        for path in hooks.notExecutable {
            let event = HookPrograms.events.first { (path as NSString).lastPathComponent.hasPrefix($0) } ?? "hook"
            hookReport(
                HookRun(
                    event: event, path: path, output: [],
                    problem: "is not executable, so it did not run; make it executable with 'chmod +x \(path)'"))
        }
        for path in hooks.inWorkingTree {
            let event = HookPrograms.events.first { (path as NSString).lastPathComponent.hasPrefix($0) } ?? "hook"
            hookReport(
                HookRun(
                    event: event, path: path, output: [],
                    problem:
                        "is in the store's folder, where a pull can put files, so it did not run; keep hooks outside "
                        + "the store (docket.hooksPath) or in .git/docket/hooks"))
        }
    }

    /// Runs each hook of each event of `batch`, with the event's lines on stdin.
    private func run(_ batch: HookBatch) {
        let timeout = ProcessInfo.processInfo.environment["DOCKET_HOOK_TIMEOUT"].flatMap(TimeInterval.init) ?? 60
        for event in batch.events {
            let input = Data((event.lines.joined(separator: "\n") + "\n").utf8)
            for program in hooks.programs[event.event] ?? [] {
                var environment: [String: String?] = [
                    "DOCKET_HOOK": event.event, "DOCKET_STORE": rootPath, "DOCKET_DIR": rootPath,
                    "DOCKET_ORIGIN": batch.origin.rawValue,
                ]
                if let commit = batch.commit { environment["DOCKET_COMMIT"] = commit }
                let problem: String?
                var output: [String] = []
                do {
                    let (outcome, timedOut) = try Spawn.runBounded(
                        [program], input: input, environment: environment,
                        folder: rootPath, timeout: timeout)
                    output = outcome.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                    if output.last == "" { output.removeLast() }
                    problem =
                        timedOut
                        ? "did not finish in \(Int(timeout)) s and was stopped (DOCKET_HOOK_TIMEOUT sets the limit)"
                        : outcome.status == 127
                            ? "could not be run (check its first line names an interpreter that exists)"
                            : outcome.status != 0 ? "exited with status \(outcome.status)" : nil
                } catch {
                    problem = "could not be run (\(error))"
                }
                hookReport(HookRun(event: event.event, path: program, output: output, problem: problem))
            }
        }
    }

    /// An item's file text as one line of a hook's input:
    /// `{"kind":"todo","id":"…","item":{…}}`, with `"project"` for a task; nil for files that are not items.
    static func hookLine(_ item: StoreLayout.Item, _ data: Data) -> String? {
        let kind: String
        var envelope: [String: Any] = [:]
        switch item {
        case .todo: kind = "todo"
        case .project: kind = "project"
        case let .task(_, project):
            kind = "task"
            envelope["project"] = StoreLayout.name(project)
        case .tombstone, .format, .other: return nil
        }
        guard let id = item.id, var fields = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            return nil
        }
        fields["position"] = nil
        envelope["kind"] = kind
        envelope["id"] = StoreLayout.name(id)
        envelope["item"] = fields
        guard
            let line = try? JSONSerialization.data(
                withJSONObject: envelope, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return nil }
        return String(decoding: line, as: UTF8.self)
    }

    /// The changes from `old` to `new` among the items they hold, as files would hold them.
    static func itemChanges(from old: AppState, to new: AppState) -> [HookedChange] {
        var changes: [HookedChange] = []
        func text(_ item: StoredItem) -> Data? { try? item.text(keeping: nil) }
        let oldTodos = Dictionary(old.todos.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let newTodoIDs = Set(new.todos.map(\.id))
        for todo in new.todos where oldTodos[todo.id] != todo {
            changes.append(
                HookedChange(
                    item: .todo(todo.id), old: oldTodos[todo.id].flatMap { text(.todo($0)) }, new: text(.todo(todo))))
        }
        for todo in old.todos where !newTodoIDs.contains(todo.id) {
            changes.append(HookedChange(item: .todo(todo.id), old: text(.todo(todo)), new: nil))
        }
        let oldProjects = Dictionary(old.projects.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let newProjectIDs = Set(new.projects.map(\.id))
        for project in new.projects {
            let previous = oldProjects[project.id]
            if previous.map(ProjectHeader.init) != ProjectHeader(project: project) {
                changes.append(
                    HookedChange(
                        item: .project(project.id), old: previous.flatMap { text(.header($0, position: nil)) },
                        new: text(.header(project, position: nil))))
            }
            let oldTasks = Dictionary((previous?.tasks ?? []).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            for task in project.tasks where oldTasks[task.id] != task {
                changes.append(
                    HookedChange(
                        item: .task(task.id, project: project.id),
                        old: oldTasks[task.id].flatMap { text(.task($0, project: project.id, position: nil)) },
                        new: text(.task(task, project: project.id, position: nil))))
            }
            let taskIDs = Set(project.tasks.map(\.id))
            for task in previous?.tasks ?? [] where !taskIDs.contains(task.id) {
                changes.append(
                    HookedChange(
                        item: .task(task.id, project: project.id),
                        old: text(.task(task, project: project.id, position: nil)), new: nil))
            }
        }
        for project in old.projects where !newProjectIDs.contains(project.id) {
            changes.append(
                HookedChange(item: .project(project.id), old: text(.header(project, position: nil)), new: nil))
            for task in project.tasks {
                changes.append(
                    HookedChange(
                        item: .task(task.id, project: project.id),
                        old: text(.task(task, project: project.id, position: nil)), new: nil))
            }
        }
        return changes
    }
}
