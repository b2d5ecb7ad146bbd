import ArgumentParser
import Docket
import Foundation

/// Transfer options from the environment, with progress on stderr when it is a terminal.
func transferOptions() -> TransferOptions {
    var options = TransferOptions.fromEnvironment()
    if isatty(STDERR_FILENO) == 1 { options.progress = { ProgressLine.show($0) } }
    options.serverMessage = { line in
        ProgressLine.clear()
        FileHandle.standardError.write(Data("remote: \(Output.safe(line))\n".utf8))
    }
    options.warning = { text in
        ProgressLine.clear()
        Output.warning(text)
    }
    return options
}

/// One line of progress on a terminal's stderr, redrawn in place: shown once
/// a command has run a second, at most ten times a second (the library
/// throttles), and cleared before anything else is printed.
enum ProgressLine {
    nonisolated(unsafe) private static var drawn = false
    /// When docket started; set first thing in `main`.
    nonisolated(unsafe) static var started = Date()

    static func show(_ progress: TransferProgress) {
        guard Date().timeIntervalSince(started) > 1 else { return }
        let verb = switch progress.stage {
        case .receiving: "Receiving objects"
        case .sending: "Sending objects"
        case .checking: "Checking files"
        case .writing: "Writing files"
        }
        var text = verb + ": "
        if progress.objectsTotal > 0 {
            text += "\(progress.objectsDone * 100 / progress.objectsTotal)% (\(progress.objectsDone)/\(progress.objectsTotal))"
        } else {
            text += "\(progress.objectsDone)"
        }
        if progress.bytes >= 1_048_576 {
            text += String(format: ", %.1f MiB", Double(progress.bytes) / 1_048_576)
        } else if progress.bytes > 0 {
            text += ", \(progress.bytes / 1024) KiB"
        }
        FileHandle.standardError.write(Data("\r\u{1B}[K\(text)".utf8))
        drawn = true
    }

    /// Clears the line, if one was drawn, so what follows starts on a clean line.
    static func clear() {
        guard drawn else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        drawn = false
    }
}

/// Says what a pull did.
func describe(_ outcome: PullOutcome, remote: String) -> String {
    switch outcome {
    case .upToDate: "Already up to date with \(remote)."
    case .remoteEmpty: "\(remote) has nothing to pull yet."
    case let .fastForwarded(to, farAhead):
        "Fast-forwarded to \(to.prefix(7)) from \(remote)." + farAhead.map { "\n  " + Output.safe($0.line) }.joined()
    case let .merged(commit, report): "Merged \(remote) in \(commit.prefix(7)): \(Output.safe(report.summary))."
    case let .finishedReplay(operation, commit, report):
        "Finished git's \(operation == .cherryPick ? "cherry-pick" : "revert") in \(commit.prefix(7))"
            + (report.isEmpty ? "." : ": \(Output.safe(report.summary)).")
    }
}

/// Says what a push did, and how to fix a remote whose HEAD names a branch it does not have.
func say(_ pushed: Pushed) {
    ProgressLine.clear()
    print("Pushed to \(Output.safe(pushed.remote)).")
    if let missing = pushed.remoteHeadNamesMissing {
        Output.warning("\(pushed.remote)'s HEAD names the branch \(missing), which it does not have, so a plain 'git clone' of it checks out nothing; "
            + "on the server, run 'git symbolic-ref HEAD refs/heads/\(pushed.branch)' in the repository")
    }
}

struct Clone: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clone",
        abstract: "Copy a store from a git remote to this machine.",
        discussion: """
            Remotes: a local path, file://, git://, ssh:// or user@host:path (through ssh as git runs it: \
            ~/.ssh/config, the agent and known_hosts apply; GIT_SSH_COMMAND and core.sshCommand are honoured), \
            https:// (git's proxy, certificate and credential-helper settings, or $DOCKET_GIT_USERNAME and $DOCKET_GIT_TOKEN).

            Example: docket clone ssh://me@example.org/srv/lists.git ~/lists
            """)

    @Argument(help: "The remote's URL or path.") var url: String
    @Argument(help: ArgumentHelp("The new store's folder (default: the one given with -C, else $DOCKET_DIR, else ~/.docket).", valueName: "dir")) var directory: String?
    @OptionGroup var store: StoreOptions

    func run() throws {
        let folder = directory.map { URL(fileURLWithPath: Home.expand($0)) } ?? store.folderToCreate
        try Store.refuseGitEnvironment(for: folder)
        let store = prepared(try Store.clone(url: url, into: folder, options: transferOptions()), quietly: true)
        let count = try store.todoIDs().count
        let branch = store.branch.map { $0 == "main" ? "" : ", on its branch \(Output.safe($0))" } ?? ""
        ProgressLine.clear()
        print("Cloned \(Output.safe(RemoteURL.redacted(url))) into \(store.root.path) (\(count) \(count == 1 ? "todo" : "todos")\(branch)).")
    }
}

struct RemoteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remote",
        abstract: "Add, list and remove the git remotes a store syncs with.",
        discussion: "Example: docket remote add origin ssh://me@example.org/srv/lists.git",
        subcommands: [AddRemote.self, ListRemotes.self, RemoveRemote.self])

    struct AddRemote: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a remote.",
                                                        discussion: "Example: docket remote add origin /srv/lists.git")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The remote's name, such as origin.") var name: String
        @Argument(help: "Its URL or path.") var url: String

        func run() throws {
            let added = try store.open().addRemote(name, url: url)
            ProgressLine.clear()
            print("Added remote \(Output.safe(name)): \(Output.safe(RemoteURL.redacted(added.url)))"
                  + (added.followed.map { "; the store follows its branch \(Output.safe($0))" } ?? ""))
            if let problem = added.unreachable {
                Output.warning("\(problem); the remote is kept, and the first 'docket sync' tries it again")
            }
        }
    }

    struct ListRemotes: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the remotes.",
                                                        discussion: "--json prints an array of {name, url}.\n\nExample: docket remote list")
        @OptionGroup var store: StoreOptions
        @Flag(help: "Print JSON for scripts.") var json = false

        struct Shown: Encodable { let name: String; let url: String }

        func run() throws {
            let remotes = try store.open().remotes()
            if json { return try Output.json(remotes.map { Shown(name: $0.name, url: RemoteURL.redacted($0.url)) }) }
            if remotes.isEmpty { return print("No remotes; add one with 'docket remote add origin <url>'.") }
            for remote in remotes { print("\(Output.safe(remote.name))  \(Output.safe(RemoteURL.redacted(remote.url)))") }
        }
    }

    struct RemoveRemote: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a remote.",
                                                        discussion: "Example: docket remote remove origin")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The remote's name.") var name: String

        func run() throws {
            try store.open().removeRemote(name)
            print("Removed remote \(name)")
        }
    }
}

struct Pull: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pull",
        abstract: "Fetch from a remote, then fast-forward or merge item by item (never stopping on a git conflict).",
        discussion: "Refuses while there are uncommitted changes: commit them, or use 'docket sync'.\n\nExample: docket pull origin")

    @OptionGroup var store: StoreOptions
    @Argument(help: "The remote (default: origin, or the only one).") var remote: String?

    func run() throws {
        let store = try self.store.open()
        let pulled = try store.pull(remote: remote, options: transferOptions())
        ProgressLine.clear()
        print(describe(pulled.outcome, remote: pulled.remote))
        store.packInBackgroundIfNeeded()
    }
}

struct Push: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push",
        abstract: "Send the store's commits to a remote.",
        discussion: "If someone pushed first the push is refused: run 'docket sync'.\n\nExample: docket push")

    @OptionGroup var store: StoreOptions
    @Argument(help: "The remote (default: origin, or the only one).") var remote: String?
    @Flag(help: "Skip git's pre-push hook, as 'git push --no-verify' does.") var noVerify = false

    func run() throws {
        let store = try self.store.open()
        store.verifiesWithGitHooks = !noVerify
        say(try store.push(remote: remote, options: transferOptions()))
    }
}

struct Sync: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Commit local changes, pull, and push: the one command to keep machines in step.",
        discussion: """
            Pulls again (up to 5 times) if another machine pushed in between.

            With --watch it keeps running: it syncs when the store changes (once it has been \
            still for --delay) and every --interval for other machines' changes, waiting longer \
            after each failed try (up to an hour) while the remote cannot be reached. One watcher \
            runs per store; each line it logs starts with the time. Ctrl-C (or SIGTERM) lets the \
            sync under way finish, then stops. 'docket autosync install' runs it as a service.

            Examples:
              docket sync
              docket sync --watch --interval 10m
            """)

    @OptionGroup var store: StoreOptions
    @Argument(help: "The remote (default: origin, or the only one).") var remote: String?
    @Flag(help: "Keep running, syncing when the store changes and every --interval.") var watch = false
    @Option(help: ArgumentHelp("With --watch: how often to sync for other machines' changes (30s, 5m, 1h; default 5m).", valueName: "time"))
    var interval: String?
    @Option(help: ArgumentHelp("With --watch: how long the store must be still before a change is synced (default 2s).", valueName: "time"))
    var delay: String?
    @Option(help: ArgumentHelp("With --watch: append the log to this file instead of printing it.", valueName: "file"))
    var log: String?
    @Flag(help: "With --watch: exit quietly if another watcher runs for this store (for cron).") var unlessWatching = false
    @Flag(help: "Skip git's pre-commit, commit-msg and pre-push hooks, as git's --no-verify does.") var noVerify = false

    func validate() throws {
        if !watch, interval != nil || delay != nil || log != nil || unlessWatching {
            throw ValidationError("--interval, --delay, --log and --unless-watching go with --watch")
        }
    }

    func run() throws {
        if watch { return try runWatching() }
        let store = try self.store.open()
        store.verifiesWithGitHooks = !noVerify
        let outcome = try store.sync(remote: remote, options: transferOptions()) { committed in
            if case let .committed(id, message) = committed {
                print("Committed \(id.prefix(7)): \(Output.safe(message))")
                fflush(nil)
            }
        }
        ProgressLine.clear()
        for pull in outcome.pulls { print(describe(pull, remote: outcome.remote)) }
        if let pushed = outcome.pushed { say(pushed) } else { print("Nothing to push.") }
        store.packInBackgroundIfNeeded()
    }
}

extension Sync {
    func runWatching() throws {
        let store = try self.store.open()
        let watcher = SyncWatcher(root: store.root, remote: remote, interval: try WatchInterval.parse(interval ?? "5m", option: "--interval"),
                                  delay: try WatchInterval.parse(delay ?? "2s", option: "--delay"), log: try WatchLog(file: log))
        do {
            try watcher.run()
        } catch let busy as Store.AlreadyWatched {
            if unlessWatching { return }
            let pid = busy.pid.map(String.init) ?? "unknown"
            throw ShownError(message: "another 'docket sync --watch' (pid \(pid)) is watching \(store.root.path) already; "
                + "leave it running, or stop it with 'kill \(pid)' and start this one again")
        }
    }
}

struct Merges: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merges",
        abstract: "Show what past merges decided, with the values that lost; restore one.",
        discussion: """
            Each value a merge discarded is numbered, [1], [2]…; 'docket merges restore <merge> <n>' \
            puts it back as a new edit, which commits and syncs like any other.

            --json prints an array of {commit, date, summary, report}; the report lists, per item, \
            the fields taken from each side, the losing values, removals weighed against edits, and slips stopped.

            Examples:
              docket merges -n 3
              docket merges restore 9c1e2f0 1
            """,
        subcommands: [ShowMerges.self, RestoreLost.self],
        defaultSubcommand: ShowMerges.self)

    struct ShowMerges: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Show the last merges and their decisions (the default).")

        @OptionGroup var store: StoreOptions
        @Option(name: .customShort("n"), help: "How many merges to show.") var count = 10
        @Flag(help: "Print JSON for scripts.") var json = false

        func run() throws {
            let merges = try store.open().merges(limit: count)
            if json { return try Output.json(merges) }
            if merges.isEmpty { return print("No merges yet.") }
            for merge in merges {
                print("\(Output.yellow(String(merge.commit.prefix(7))))  \(DateInput.show(merge.date))  \(Output.safe(merge.report.summary))"
                    + (merge.madeByGit ? Output.dim("  (merged by git with Docket's rules)") : ""))
                let lost = merge.report.lostValues
                for item in merge.report.items {
                    let removalNumber = lost.first { $0.item == item && $0.field == nil }?.number
                    // NB: an item's lines are its fields', in order, then its removal's, then its stopped slips'.
                    for (index, line) in item.lines.enumerated() {
                        let number = index < item.fields.count
                            ? lost.first { $0.item == item && $0.field == item.fields[index] }?.number
                            : (index == item.fields.count && item.removal != nil ? removalNumber : nil)
                        print("  " + (number.map { Output.bold("[\($0)]") + " " } ?? "") + Output.safe(line))
                    }
                }
                for line in merge.report.farAhead.map(\.line) { print("  " + Output.safe(line)) }
            }
        }
    }

    struct RestoreLost: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "restore", abstract: "Put back a value a merge discarded, as a new edit.",
            discussion: "The numbers are those 'docket merges' shows.\n\nExample: docket merges restore 9c1e2f0 1")

        @OptionGroup var store: StoreOptions
        @Argument(help: "The merge commit's id or a prefix of it (7 characters, as 'docket merges' shows).") var merge: String
        @Argument(help: "The number of the lost value.") var number: Int

        func run() throws {
            let restored = try store.open().restoreLost(merge: merge, number: number)
            let what = restored.lost.field.map { "\($0.field) \"\($0.lost ?? "")\"" } ?? "the edit the removal won over"
            print("Restored \(restored.lost.item.kind) '\(Output.safe(restored.label))' \(Output.safe(what)); commit and sync to share it")
        }
    }
}
