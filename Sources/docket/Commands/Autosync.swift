import ArgumentParser
import Docket
import DocketSystem
import Foundation

struct Autosync: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "autosync",
        abstract: "Run 'docket sync --watch' for this store by itself: as a systemd user service, else from cron.",
        discussion: """
            install sets it up and starts it; remove stops it and takes it out; status (the default) says \
            what is set up, whether a watcher runs, when this machine last synced the store, and the \
            last failure if one came after. A systemd user service is used when 'systemctl --user' \
            reaches a user manager, else a crontab line that starts the watcher every 5 minutes unless \
            one runs (it logs to .git/docket/autosync.log in the store). Where neither would run it (no \
            user manager answers and no cron daemon runs), install sets up nothing and says what to start.

            Examples:
              docket autosync install
              docket autosync install --interval 15m --cron
              docket autosync install --print
              docket autosync remove
            """,
        subcommands: [Install.self, Remove.self, Status.self],
        defaultSubcommand: Status.self)

    struct Install: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "install", abstract: "Set up and start syncing by itself.",
            discussion: "Example: docket autosync install --interval 10m")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The remote (default: origin, or the only one).") var remote: String?
        @Option(help: ArgumentHelp("How often to sync for other machines' changes (30s, 5m, 1h).", valueName: "time"))
        var interval = "5m"
        @OptionGroup var way: AutosyncWay

        func run() throws {
            _ = try WatchInterval.parse(interval, option: "--interval")
            let store = try self.store.open()
            let plan = AutosyncPlan(root: store.root.path, remote: remote, interval: interval)
            try plan.refuseUncarriable()
            switch try way.chosen() {
            case .systemd: try plan.installService(printing: way.print)
            case .cron:
                if way.print { return try plan.installCronLine(printing: true) }
                let cron = AutosyncSchedulers.cron
                if cron == .notRunning { throw way.noCronDaemon }
                try plan.installCronLine(printing: false)
                if case let .unknown(why) = cron {
                    Output.warning(
                        "docket could not tell whether a cron daemon runs (\(why)); the line runs only while one does "
                            + "(\(AutosyncSchedulers.startCron) starts one)")
                }
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove", abstract: "Stop syncing by itself and take the setup out.",
            discussion: "Example: docket autosync remove")
        @OptionGroup var store: StoreOptions

        func run() throws {
            let store = try self.store.open()
            let plan = AutosyncPlan(root: store.root.path, remote: nil, interval: "")
            var removed = false
            if FileManager.default.fileExists(atPath: plan.unitPath) {
                try plan.removeService()
                removed = true
            }
            if try plan.removeCronLine() {
                removed = true
                if let pid = store.watcher, pid > 0, AutosyncPlan.startedByCron(pid) {
                    kill(pid, SIGTERM)
                    print("Stopped the watcher cron started (pid \(pid)).")
                }
            }
            if !removed { print("Autosync is not set up for \(Output.safe(store.root.path)); nothing to remove.") }
        }
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status", abstract: "Say what is set up and whether a watcher runs (the default).",
            discussion: "Example: docket autosync status")
        @OptionGroup var store: StoreOptions

        func run() throws {
            let store = try self.store.open()
            let plan = AutosyncPlan(root: store.root.path, remote: nil, interval: "")
            var setUp: [String] = []
            if FileManager.default.fileExists(atPath: plan.unitPath) {
                let state =
                    (try? Spawn.run(["systemctl", "--user", "is-active", plan.unitName]))?.text
                    .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
                setUp.append(
                    "the systemd user service \(plan.unitName) (\(state.isEmpty ? "state unknown" : state)); "
                        + "its log: journalctl --user -u \(plan.unitName)")
            }
            if let crontab = try? AutosyncPlan.crontab(),
                !plan.ownLines(of: crontab.split(separator: "\n").map(String.init)).isEmpty
            {
                setUp.append(
                    "a crontab line that starts the watcher every 5 minutes unless it runs ('crontab -l' shows it); its log: \(plan.logPath)"
                )
            }
            print(
                setUp.isEmpty
                    ? "Autosync is not set up for \(Output.safe(store.root.path)); 'docket autosync install' sets it up."
                    : "Autosync for \(Output.safe(store.root.path)): " + setUp.joined(separator: "; and "))
            if let pid = store.watcher {
                print(pid > 0 ? "A watcher runs: pid \(pid)." : "A watcher runs.")
            } else {
                print("No watcher runs now.")
            }
            let last = store.lastSync()
            if let succeeded = last.succeeded {
                print(
                    "Last synced \(DateInput.show(succeeded))"
                        + (last.remote.map { " with \(Output.safe($0))" } ?? "") + ".")
            } else {
                print("Not synced from this machine yet.")
            }
            if let failing = last.failingSince {
                print("The last sync, \(DateInput.show(failing.date)), failed: \(Output.safeLines(failing.reason))")
            }
        }
    }
}

/// --systemd, --cron and --print.
struct AutosyncWay: ParsableArguments {
    @Flag(help: "Use a systemd user service (the default where systemd's user manager runs).") var systemd = false
    @Flag(help: "Use a crontab line (the default elsewhere).") var cron = false
    @Flag(help: "Print what would be set up, and change nothing.") var print = false

    enum Way { case systemd, cron }

    /// The way asked for, else systemd where its user manager answers, else cron.
    func chosen() throws -> Way {
        if systemd && cron { throw ValidationError("choose --systemd or --cron, not both") }
        if cron { return .cron }
        let reachable = AutosyncSchedulers.userManagerAnswers
        if systemd {
            if !reachable && !print {
                throw ShownError(
                    message: "systemd's user manager cannot be reached here ('systemctl --user' fails); "
                        + (AutosyncSchedulers.systemdRunsMachine ? "'loginctl enable-linger' starts yours; or " : "")
                        + "use --cron, or --print to see the unit")
            }
            return .systemd
        }
        return reachable ? .systemd : .cron
    }

    /// Why nothing was set up where cron was to run the watcher and no cron daemon runs, and what to start.
    var noCronDaemon: ShownError {
        let start =
            AutosyncSchedulers.hasCrontab
            ? "Start cron ('\(AutosyncSchedulers.startCron)')"
            : "Install and start cron ('sudo apt-get install cron', then '\(AutosyncSchedulers.startCron)')"
        if cron {
            return ShownError(
                message: "no cron daemon runs here, so a crontab line would never run; nothing was set up. "
                    + "\(start), then run 'docket autosync install --cron' again")
        }
        let linger = AutosyncSchedulers.systemdRunsMachine
        return ShownError(
            message: "nothing here would run autosync: systemd's user manager does not answer ('systemctl --user' "
                + "fails) and no cron daemon runs; nothing was set up. \(start)"
                + (linger ? " or your systemd user manager ('loginctl enable-linger')" : "")
                + ", then run 'docket autosync install' again; or run 'docket sync --watch' yourself")
    }
}
