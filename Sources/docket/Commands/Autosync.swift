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

/// What autosync sets up for one store.
struct AutosyncPlan {
    let root: String
    let remote: String?
    let interval: String

    /// A name for the store's service, from its folder.
    var unitName: String {
        var hash: UInt32 = 2_166_136_261
        for byte in root.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return "docket-sync-" + String(format: "%08x", hash) + ".service"
    }

    var unitFolder: String {
        let config =
            ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? Home.folder.path + "/.config"
        return config + "/systemd/user"
    }

    var unitPath: String { unitFolder + "/" + unitName }
    var logPath: String { root + "/.git/docket/autosync.log" }
    /// Ends the store's crontab line.
    var marker: String { "# docket autosync " + root }

    /// Refuses a command line a crontab line or a unit file could not carry:
    /// one with a control character (a newline would start a line of its own,
    /// which cron runs as a command of its own).
    func refuseUncarriable() throws {
        for (what, word) in [
            ("the store's path", root), ("the remote's name", remote ?? ""), ("docket's own path", docketExecutable),
        ] {
            if word.unicodeScalars.contains(where: {
                $0.properties.generalCategory == .control || $0.value == 0x2028 || $0.value == 0x2029
            }) {
                throw ShownError(
                    message:
                        "\(what), \(Output.safe(word)), holds a control character (such as a newline), which a crontab line "
                        + "or a systemd unit cannot carry; nothing was set up; move the store to a folder whose path has none "
                        + "(or run 'docket sync --watch' there yourself)")
            }
        }
    }

    /// The lines of the crontab that are this store's: the line that ends with the marker, or, for a
    /// store path holding a newline (written by a docket that did not refuse one), the lines it was cut into.
    func ownLines(of lines: [String]) -> Set<Int> {
        var own = Set(lines.indices.filter { lines[$0].hasSuffix(marker) })
        let breaks = root.filter { $0 == "\n" }.count
        guard breaks > 0 else { return own }
        // Its command names the path twice (-C and --log) and the marker once: three times the path's line breaks.
        let span = 3 * breaks
        for end in lines.indices where end >= span {
            let block = lines[(end - span)...end].joined(separator: "\n")
            if block.hasPrefix("*/5 * * * * "), block.hasSuffix(marker) { own.formUnion((end - span)...end) }
        }
        return own
    }

    /// The watcher's command line.
    func command(forCron: Bool) -> [String] {
        [docketExecutable, "-C", root, "sync"] + (remote.map { [$0] } ?? []) + ["--watch", "--interval", interval]
            + (forCron ? ["--unless-watching", "--log", logPath] : [])
    }

    var unitText: String {
        let quoted = command(forCron: false).map { word in
            "\""
                + word.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                .replacingOccurrences(of: "%", with: "%%").replacingOccurrences(of: "$", with: "$$") + "\""
        }
        return """
            # Made by 'docket autosync install'; 'docket autosync remove' takes it out.
            [Unit]
            Description=Docket: sync \(root.replacingOccurrences(of: "%", with: "%%"))
            Wants=network-online.target
            After=network-online.target

            [Service]
            ExecStart=\(quoted.joined(separator: " "))
            Restart=on-failure
            RestartSec=30

            [Install]
            WantedBy=default.target

            """
    }

    var cronLine: String {
        let quoted = command(forCron: true).map {
            "'" + $0.replacingOccurrences(of: "'", with: "'\\''").replacingOccurrences(of: "%", with: "\\%") + "'"
        }
        return "*/5 * * * * " + quoted.joined(separator: " ") + " >/dev/null 2>&1 " + marker
    }

    func installService(printing: Bool) throws {
        if printing {
            print("# \(unitPath)")
            print(unitText, terminator: "")
            print("# then: systemctl --user daemon-reload && systemctl --user enable --now \(unitName)")
            return
        }
        try FileManager.default.createDirectory(atPath: unitFolder, withIntermediateDirectories: true)
        try Data(unitText.utf8).write(to: URL(fileURLWithPath: unitPath), options: .atomic)
        try systemctl(["daemon-reload"])
        try systemctl(["enable", unitName])
        try systemctl(["restart", unitName])
        print(
            "Installed the systemd user service \(unitName) (\(unitPath)); it runs 'docket sync --watch' for \(root) "
                + "now and at every login. Its log: journalctl --user -u \(unitName). "
                + "To keep it running while you are logged out: loginctl enable-linger")
    }

    func removeService() throws {
        _ = try? systemctl(["disable", "--now", unitName])
        try FileManager.default.removeItem(atPath: unitPath)
        _ = try? systemctl(["daemon-reload"])
        print("Removed the systemd user service \(unitName).")
    }

    private func systemctl(_ arguments: [String]) throws {
        let outcome = try Spawn.run(["systemctl", "--user"] + arguments, captureErrors: true)
        guard outcome.status == 0 else {
            throw ShownError(
                message: "'systemctl --user \(arguments.joined(separator: " "))' failed: "
                    + Output.safe(outcome.errorText.trimmingCharacters(in: .whitespacesAndNewlines)))
        }
    }

    func installCronLine(printing: Bool) throws {
        if printing {
            print(cronLine)
            return
        }
        let current = try AutosyncPlan.crontab().split(separator: "\n").map(String.init)
        let own = ownLines(of: current)
        let lines = current.indices.filter { !own.contains($0) }.map { current[$0] }
        try AutosyncPlan.setCrontab((lines + [cronLine]).joined(separator: "\n") + "\n")
        print(
            "Added a crontab line that starts 'docket sync --watch' for \(root) within 5 minutes, and again whenever it is not running. "
                + "Its log: \(logPath)")
    }

    /// Takes the store's line out of the crontab; false when it had none.
    func removeCronLine() throws -> Bool {
        guard let current = try? AutosyncPlan.crontab() else { return false }
        let lines = current.split(separator: "\n").map(String.init)
        let own = ownLines(of: lines)
        let kept = lines.indices.filter { !own.contains($0) }.map { lines[$0] }
        if kept.count == lines.count { return false }
        try AutosyncPlan.setCrontab(kept.isEmpty ? "" : kept.joined(separator: "\n") + "\n")
        print("Removed the crontab line for \(Output.safe(root)).")
        return true
    }

    /// The user's crontab ("" when there is none).
    static func crontab() throws -> String {
        let outcome: Spawn.Outcome
        do {
            outcome = try Spawn.run(["crontab", "-l"], captureErrors: true)
        } catch {
            throw ShownError(message: "there is no 'crontab' program here; install cron ('sudo apt-get install cron')")
        }
        if outcome.status == 0 { return outcome.text }
        if outcome.errorText.contains("no crontab") { return "" }
        throw ShownError(
            message:
                "'crontab -l' failed: \(Output.safe(outcome.errorText.trimmingCharacters(in: .whitespacesAndNewlines)))"
        )
    }

    static func setCrontab(_ text: String) throws {
        let outcome = try Spawn.run(["crontab", "-"], input: Data(text.utf8), captureErrors: true)
        guard outcome.status == 0 else {
            throw ShownError(
                message:
                    "'crontab -' failed: \(Output.safe(outcome.errorText.trimmingCharacters(in: .whitespacesAndNewlines)))"
            )
        }
    }

    /// Whether a watcher was started by autosync's crontab line.
    static func startedByCron(_ pid: Int32) -> Bool {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
        return data.split(separator: 0).contains { String(decoding: $0, as: UTF8.self) == "--unless-watching" }
    }
}
