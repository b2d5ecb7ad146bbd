import ArgumentParser
import Docket
import Foundation

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
    case let .tookRewrite(to, carried):
        "Took \(remote)'s rewritten history (now at \(to.prefix(7)))"
            + (carried.map {
                "; this machine's unsynced changes are carried onto it in \($0.commit.prefix(7))"
                    + ($0.report.isEmpty ? "" : ": \(Output.safe($0.report.summary))")
            } ?? "") + "."
    }
}

/// Says what a push did, and how to fix a remote whose HEAD names a branch it does not have.
func say(_ pushed: Pushed) {
    ProgressLine.clear()
    if let writer = pushed.asWriter {
        return print(
            "Pushed to \(Output.safe(pushed.remote)) as writer \(writer): another machine moved the shared branch first; "
                + "the next sync, here or on any machine, carries this into it.")
    }
    print("Pushed to \(Output.safe(pushed.remote)).")
    if let missing = pushed.remoteHeadNamesMissing {
        Output.warning(
            "\(pushed.remote)'s HEAD names the branch \(missing), which it does not have, so a plain 'git clone' of it checks out nothing; "
                + "on the server, run 'git symbolic-ref HEAD refs/heads/\(pushed.branch)' in the repository")
    }
}

struct Pull: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pull",
        abstract: "Fetch from a remote, then fast-forward or merge item by item (never stopping on a git conflict).",
        discussion:
            "Refuses while there are uncommitted changes: commit them, or use 'docket sync'.\n\nExample: docket pull origin"
    )

    @OptionGroup var store: StoreOptions
    @Argument(help: "The remote (default: origin, or the only one).") var remote: String?

    func run() throws {
        let store = try self.store.open()
        let pulled = try store.pull(remote: remote, options: transferOptions())
        ProgressLine.clear()
        print(describe(pulled.outcome, remote: pulled.remote))
        if let line = setAsideLine(store) { print(Output.safe(line)) }
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
    @Option(
        help: ArgumentHelp(
            "With --watch: how often to sync for other machines' changes (30s, 5m, 1h; default 5m).", valueName: "time")
    )
    var interval: String?
    @Option(
        help: ArgumentHelp(
            "With --watch: how long the store must be still before a change is synced (default 2s).", valueName: "time")
    )
    var delay: String?
    @Option(help: ArgumentHelp("With --watch: append the log to this file instead of printing it.", valueName: "file"))
    var log: String?
    @Flag(help: "With --watch: exit quietly if another watcher runs for this store (for cron).") var unlessWatching =
        false
    @Flag(help: "Skip git's pre-commit, commit-msg and pre-push hooks, as git's --no-verify does.") var noVerify = false
    @Flag(
        help:
            "Take the remote branch's rewritten (force-pushed) history, carrying this machine's unsynced changes onto it."
    )
    var acceptRewrite = false

    func validate() throws {
        if !watch, interval != nil || delay != nil || log != nil || unlessWatching {
            throw ValidationError("--interval, --delay, --log and --unless-watching go with --watch")
        }
    }

    func run() throws {
        if watch { return try runWatching() }
        let store = try self.store.open()
        store.verifiesWithGitHooks = !noVerify
        store.acceptsRewrittenUpstream = acceptRewrite
        let outcome = try store.sync(
            remote: remote, options: transferOptions(),
            onCommit: { committed in
                if case let .committed(id, message) = committed {
                    print("Committed \(id.prefix(7)): \(Output.safe(message))")
                    fflush(nil)
                }
            },
            onLeftOut: { problems in
                for problem in problems {
                    Output.warning(
                        "left uncommitted: \(problem.path) \(problem.reason); fix it, or restore it with "
                            + "'git checkout -- \(problem.path)', then sync again")
                }
            })
        ProgressLine.clear()
        for pull in outcome.pulls { print(describe(pull, remote: outcome.remote)) }
        if let pushed = outcome.pushed { say(pushed) } else { print("Nothing to push.") }
        if let line = setAsideLine(store) { print(Output.safe(line)) }
        store.packInBackgroundIfNeeded()
    }
}

extension Sync {
    func runWatching() throws {
        let store = try self.store.open()
        let watcher = SyncWatcher(
            root: store.root, remote: remote, interval: try WatchInterval.parse(interval ?? "5m", option: "--interval"),
            delay: try WatchInterval.parse(delay ?? "2s", option: "--delay"), log: try WatchLog(file: log))
        do {
            try watcher.run()
        } catch let busy as Store.AlreadyWatched {
            if unlessWatching { return }
            let pid = busy.pid.map(String.init) ?? "unknown"
            throw ShownError(
                message:
                    "another 'docket sync --watch' (pid \(pid)) is watching \(Output.safe(store.root.path)) already; "
                    + "leave it running, or stop it with 'kill \(pid)' and start this one again")
        }
    }
}
