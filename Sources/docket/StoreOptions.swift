import ArgumentParser
import Docket
import DocketSystem
import Foundation

/// The store a command works on: the folder given with -C, else $DOCKET_DIR,
/// else $GIT_WORK_TREE, else the store the working folder is in (as git finds
/// its repository), else ~/.docket, which alone is created on first use. A
/// `GIT_DIR` or `GIT_WORK_TREE` naming another repository is refused.
struct StoreOptions: ParsableArguments {
    /// The store's folder option as typed, `-C`: what the front door reads before a command's name without the
    /// parser.
    static let folderOption = "-" + String(folderLetter)
    private static let folderLetter: Character = "C"

    @Option(
        name: .customShort(folderLetter, allowingJoined: true),
        help: ArgumentHelp(
            "The store's folder (default: $DOCKET_DIR, else the store the working folder is in, else ~/.docket).",
            valueName: "dir"))
    var directory: String?

    /// The options as they would be typed: `-C <dir>`, or nothing.
    var arguments: [String] { directory.map { ["-C", $0] } ?? [] }

    /// The folder named by -C or DOCKET_DIR, if any.
    var named: URL? { StoreOptions.named(directory) }

    /// The folder named by `directory` (given with -C), else by DOCKET_DIR, if any.
    static func named(_ directory: String?) -> URL? {
        if let directory { return URL(fileURLWithPath: Home.expand(directory)) }
        if let env = ProcessInfo.processInfo.environment["DOCKET_DIR"], !env.isEmpty {
            return URL(fileURLWithPath: Home.expand(env))
        }
        return nil
    }

    /// The store the working folder is in, if any.
    static var enclosing: URL? { Store.enclosing(WorkingFolder.url) }

    /// The default store, `~/.docket` (with `$HOME` as home).
    static var defaultFolder: URL { Home.folder.appendingPathComponent(".docket") }

    /// The folder for a new store (`init`, `clone`): -C, DOCKET_DIR or the default.
    var folderToCreate: URL { named ?? StoreOptions.defaultFolder }

    /// Opens the store. Only the default folder is created when it is missing
    /// (or empty), with a notice; a folder named by -C or DOCKET_DIR must hold a store.
    func open() throws -> Store {
        let store = try find()
        store.action = StoreOptions.action(Array(CommandLine.arguments.dropFirst()))
        store.hookReport = showHookRun
        store.changeMonitorProgram = "/proc/self/exe"
        return store
    }

    /// The command as `undo --list` names it: "docket done 3f2a", without the store's folder.
    static func action(_ arguments: [String]) -> String {
        var words = ["docket"]
        var skipNext = false
        for word in arguments {
            if skipNext {
                skipNext = false
                continue
            }
            if word == "-C" {
                skipNext = true
                continue
            }
            if word.hasPrefix("-C") && word.count > 2 { continue }
            words.append(word)
        }
        return words.joined(separator: " ")
    }

    private func find() throws -> Store {
        if let named {
            try Store.refuseGitEnvironment(for: named)
            return prepared(try Store.open(at: named))
        }
        // As git: a working tree named in the environment is where to work.
        if let tree = ProcessInfo.processInfo.environment["GIT_WORK_TREE"], !tree.isEmpty {
            let folder = URL(fileURLWithPath: Home.expand(tree))
            try Store.refuseGitEnvironment(for: folder)
            return prepared(try Store.open(at: folder))
        }
        if let enclosing = StoreOptions.enclosing {
            try Store.refuseGitEnvironment(for: enclosing)
            return prepared(try Store.open(at: enclosing))
        }
        let here = WorkingFolder.url
        if let lost = Store.lostMarker(around: here) { throw StoreError.state(.lostMarker(path: lost.path)) }
        let folder = StoreOptions.defaultFolder
        try Store.refuseGitEnvironment(for: folder)
        // In a git repository that is not a store (a project's code, a monorepo's folder), a todo added here goes to
        // the default store: say so, so nobody looks for it in the repository. A home kept in git holds the default
        // store, and is not named.
        if let repository = StoreOptions.gitRepository(around: here),
            !folder.standardizedFileURL.path.hasPrefix(repository.path + "/")
        {
            let shown = Output.safe(repository.path)
            Output.notice(
                "Using the store in \(Output.safe(folder.path)): "
                    + (Store.unsupportedObjectFormat(at: repository).map {
                        "\(shown) is a git repository with \($0) object ids, which Docket cannot keep a store in"
                    } ?? "\(shown) is a git repository but not a Docket store ('docket init \(shown)' makes it one)"))
        }
        let contents = try? FileManager.default.contentsOfDirectory(atPath: folder.path)
        if contents == nil || contents?.isEmpty == true {
            let store = try Store.create(at: folder)
            Output.notice("Created a new Docket store in \(Output.safe(folder.path))")
            return prepared(store, quietly: true)
        }
        return prepared(try Store.open(at: folder))
    }
}

extension StoreOptions {
    /// The top of the git working tree `folder` lies in (the folder holding `.git`, a folder or a linked worktree's
    /// file), if any.
    static func gitRepository(around folder: URL) -> URL? {
        var current = folder.standardizedFileURL
        while true {
            if FileManager.default.fileExists(atPath: current.path + "/.git") { return current }
            let parent = current.deletingLastPathComponent()
            if parent.path == current.path { return nil }
            current = parent
        }
    }
}

/// The running docket's own path, for git to run as the merge driver.
let docketExecutable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path

/// The store, with git's merge driver set up in its clone when its
/// `.gitattributes` names it and the configuration does not (said once).
func prepared(_ store: Store, quietly: Bool = false) -> Store {
    guard store.mergeDriverNeedsSetup(command: docketExecutable) else { return store }
    do {
        if try store.setUpMergeDriver(command: docketExecutable), !quietly {
            Output.notice(
                "Set up git's merge driver in this clone: plain 'git pull' and 'git merge' now merge Docket's files item by item (merge.docket.driver)."
            )
        }
    } catch {
        Output.warning(
            "could not set up git's merge driver (\(error)); plain 'git pull' will merge Docket's files line by line")
    }
    return store
}

/// What every command that reads the whole store does with files that did not read.
func loadWarning(_ snapshot: StoreSnapshot) -> AppState {
    for problem in snapshot.problems {
        Output.warning(problem.warning)
    }
    return snapshot.state
}

/// Shows what a hook wrote (on stderr, so JSON on stdout stays whole) and why one failed.
func showHookRun(_ run: HookRun) {
    ProgressLine.clear()
    for line in run.output { FileHandle.standardError.write(Data((Output.safe(line) + "\n").utf8)) }
    if let warning = hookWarning(run) { Output.warning(warning) }
}

/// Why a hook failed, as a warning says it (without "Warning: "); nil when it did not.
func hookWarning(_ run: HookRun) -> String? {
    guard let problem = run.problem else { return nil }
    // A hook that was not run (not executable, or in the store's folder) did not fail.
    return problem.contains(", so it did not run")
        ? "the \(run.event) hook \(Output.safe(run.path)) \(problem)"
        : "the \(run.event) hook \(Output.safe(run.path)) failed: it \(problem); the change is kept"
}
