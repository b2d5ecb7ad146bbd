import Docket
import DocketSpecSupport
import Foundation
import Nimble
import Quick

final class WatchSpec: QuickSpec {
    override class func spec() {
        var root: URL!
        var remote: URL!
        var laptop: Machine!
        var desk: Machine!
        var watchers: [Background] = []
        beforeEach {
            let machines = TwoMachines("docket-watch")
            (root, remote, laptop, desk) = (machines.root, machines.remote, machines.laptop, machines.desk)
            runCommand(docketBinary, ["clone", remote.path, desk.folder.path])
        }
        afterEach {
            for watcher in watchers { watcher.stop(signal: SIGKILL) }
            watchers = []
            try? FileManager.default.removeItem(at: root)
        }

        /// Starts `docket sync --watch` on a machine, returning once it watches.
        func watch(
            _ machine: Machine, _ options: [String] = ["--interval", "2s", "--delay", "0.3s"],
            environment: [String: String] = [:]
        ) -> Background {
            let watcher = Background(
                docketBinary, ["-C", machine.folder.path, "sync", "--watch"] + options,
                log: root.appendingPathComponent("\(machine.folder.lastPathComponent)-\(watchers.count).log"),
                environment: environment)
            watchers.append(watcher)
            expect(watcher.waitFor("Watching \(machine.folder.path)")).to(beTrue(), description: watcher.output)
            return watcher
        }
        let stamped = #"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d "#

        describe("sync --watch") {
            it("keeps two clones in step while both are edited, and stops when told, logging each step with its time") {
                let onLaptop = watch(laptop)
                let onDesk = watch(desk)
                let milk = laptop.id("add", "Buy milk")
                desk.run("add", "Call Anna")
                expect(eventually { Set(laptop.state.todos.map(\.text)) == ["Buy milk", "Call Anna"] }).to(
                    beTrue(), description: onLaptop.output)
                expect(eventually { Set(desk.state.todos.map(\.text)) == ["Buy milk", "Call Anna"] }).to(
                    beTrue(), description: onDesk.output)

                // An edit of the other machine's todo comes back.
                desk.run("done", milk)
                expect(eventually { laptop.state.todos.first { $0.text == "Buy milk" }?.completed == true }).to(
                    beTrue(), description: onLaptop.output)

                expect(onLaptop.stop()) == 0
                expect(onDesk.stop()) == 0
                for watcher in [onLaptop, onDesk] {
                    let lines = watcher.output.split(separator: "\n").map(String.init)
                    expect(lines.allSatisfy { $0.range(of: stamped, options: .regularExpression) != nil }).to(
                        beTrue(), description: watcher.output)
                    expect(watcher.output).to(contain("Committed "))
                    expect(watcher.output).to(contain("Pushed to origin."))
                    expect(lines.last).to(
                        endWith("Stopped watching \(watcher === onLaptop ? laptop.folder.path : desk.folder.path)."))
                }
                expect(desk.run("sync").status) == 0
                expect(laptop.run("sync").status) == 0
                expect(laptop.head) == desk.head
                expect(laptop.git("status", "--porcelain")) == ""
                expect(gitCLI(["fsck", "--strict"], in: remote).status) == 0
            }

            it("logs a refusal of git's pre-commit hook, keeps the edit, and commits it once the hook lets it") {
                let hook = laptop.folder.appendingPathComponent(".git/hooks/pre-commit")
                try! Data("#!/bin/sh\necho 'not today' >&2\nexit 1\n".utf8).write(to: hook)
                chmod(hook.path, 0o755)
                let watcher = watch(laptop)
                laptop.run("add", "Held back by the hook")
                expect(watcher.waitFor("pre-commit hook")).to(beTrue(), description: watcher.output)
                expect(watcher.output).to(contain("not today"))
                expect(laptop.run("status").stdout).to(contain("added todo 'Held back by the hook'"))
                try! FileManager.default.removeItem(at: hook)
                laptop.run("add", "Another")
                expect(
                    eventually {
                        desk.run("pull").status == 0
                            && Set(desk.state.todos.map(\.text)).isSuperset(of: ["Held back by the hook", "Another"])
                    }
                )
                .to(beTrue(), description: watcher.output)
                expect(watcher.stop()) == 0
            }

            it("refuses a second watcher on the same store, naming the first, and --unless-watching leaves quietly") {
                let first = watch(laptop)
                // NB: through timeout(1), so a second watcher that is not refused cannot hold the spec.
                let second = runCommand("timeout", ["20", docketBinary, "-C", laptop.folder.path, "sync", "--watch"])
                expect(second.status) == 1
                expect(second.stderr).to(
                    contain(
                        "another 'docket sync --watch' (pid \(first.pid)) is watching \(laptop.folder.path) already; "
                            + "leave it running, or stop it with 'kill \(first.pid)' and start this one again"))
                let quiet = runCommand(
                    "timeout", ["20", docketBinary, "-C", laptop.folder.path, "sync", "--watch", "--unless-watching"])
                expect(quiet.status) == 0
                expect(quiet.stdout + quiet.stderr) == ""
                // Following the advice: once the first stops, a new one watches.
                expect(runCommand("kill", ["\(first.pid)"]).status) == 0
                expect(eventually { first.hasEnded }).to(beTrue())
                expect(first.stop()) == 0
                expect(first.output).to(contain("Stopped watching"))
                _ = watch(laptop)
            }

            it(
                "waits longer after each failed try while the remote is away, still commits local changes, and syncs once it is back"
            ) {
                let away = root.appendingPathComponent("away.git")
                try! FileManager.default.moveItem(at: remote, to: away)
                let watcher = watch(laptop, ["--interval", "1s", "--delay", "0.3s"])
                expect(watcher.waitFor("Trying again in 4 s")).to(beTrue(), description: watcher.output)
                expect(watcher.output).to(contain("Trying again in 1 s"))
                expect(watcher.output).to(contain("Trying again in 2 s"))
                expect(watcher.output).to(contain("Error: "))

                laptop.run("add", "Buy milk")
                expect(watcher.waitFor("Committed ")).to(beTrue(), description: watcher.output)
                expect(laptop.git("status", "--porcelain")) == ""

                try! FileManager.default.moveItem(at: away, to: remote)
                laptop.run("add", "Call Anna")
                expect(watcher.waitFor("Pushed to origin.")).to(beTrue(), description: watcher.output)
                expect(desk.run("sync").status) == 0
                expect(Set(desk.state.todos.map(\.text))) == ["Buy milk", "Call Anna"]
            }

            it("waits while another docket holds the store, never syncing beside it") {
                let holder = LockHolder(laptop.folder.appendingPathComponent(".git/docket.lock").path)
                let watcher = watch(
                    laptop, ["--interval", "1h", "--delay", "0.3s"], environment: ["DOCKET_LOCK_TIMEOUT": "0.2"])
                expect(watcher.waitFor("changing it); trying again shortly")).to(beTrue(), description: watcher.output)
                expect(watcher.output).to(contain("The store is busy ("))
                expect(watcher.output).toNot(contain("Pushed"))
                holder.stop()
                expect(watcher.waitFor("Pushed to origin.")).to(beTrue(), description: watcher.output)
            }

            it("takes its options only with --watch, and names a time it cannot read") {
                let stray = laptop.run("sync", "--interval", "5m")
                expect(stray.status) != 0
                expect(stray.stderr).to(contain("--interval, --delay, --log and --unless-watching go with --watch"))
                let bad = laptop.run("sync", "--watch", "--interval", "soon")
                expect(bad.status) != 0
                expect(bad.stderr).to(
                    contain("--interval takes a time such as 30s, 5m or 1h (up to a week), not 'soon'"))
            }
        }

        describe("autosync, for a store whose path holds a newline") {
            var crontab: StandInCrontab!
            var store: URL!
            var environment: [String: String] { crontab.environment }
            var table: URL { crontab.table }
            let injected = "lists\n* * * * * touch /tmp/docket-injected"
            beforeEach {
                crontab = StandInCrontab(in: root)
                store = root.appendingPathComponent(injected)
                expect(runCommand(docketBinary, ["init", store.path]).status) == 0
            }

            it("refuses to install, for cron or systemd, and changes nothing") {
                for way in [["--cron"], ["--systemd", "--print"]] {
                    let result = docket(["autosync", "install"] + way, store: store, environment: environment)
                    expect(result.status) == 1
                    expect(result.stderr).to(
                        contain(
                            "holds a control character (such as a newline), which a crontab line or a systemd unit cannot carry"
                        ))
                    expect(result.stdout).toNot(contain("touch"))
                }
                expect(FileManager.default.fileExists(atPath: table.path)) == false
                expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("config").path)) == false
            }

            it("finds and removes the lines an earlier docket wrote for it, keeping the user's own") {
                let path = store.standardizedFileURL.path
                let written =
                    "*/5 * * * * '\(docketBinary)' '-C' '\(path)' 'sync' '--watch' '--interval' '5m' '--unless-watching' "
                    + "'--log' '\(path)/.git/docket/autosync.log' >/dev/null 2>&1 # docket autosync \(path)"
                try! "0 3 * * * backup\n\(written)\n30 4 * * * other\n".write(
                    to: table, atomically: true, encoding: .utf8)
                let status = docket(["autosync", "status"], store: store, environment: environment)
                expect(status.stdout).to(contain("a crontab line that starts the watcher"))
                expect(status.stdout).to(contain("lists\\n* * * * * touch"))
                let removed = docket(["autosync", "remove"], store: store, environment: environment)
                expect(removed.status) == 0
                expect(removed.stdout).to(contain("Removed the crontab line for "))
                expect(try! String(contentsOf: table, encoding: .utf8)) == "0 3 * * * backup\n30 4 * * * other\n"
            }
        }

        describe("autosync") {
            // The user's own crontab line, in a stand-in crontab: the real one is never touched.
            let own = "0 3 * * * backup\n"
            var crontab: StandInCrontab!
            beforeEach {
                crontab = StandInCrontab(in: root)
                try! own.write(to: crontab.table, atomically: true, encoding: .utf8)
            }
            func listed() -> String { (try? String(contentsOf: crontab.table, encoding: .utf8)) ?? "" }

            it("prints the systemd user unit it would install, changing nothing") {
                let home = root.appendingPathComponent("home")
                let result = laptop.run(
                    "autosync", "install", "--systemd", "--print", "--interval", "10m",
                    environment: crontab.environment.merging(["XDG_CONFIG_HOME": home.path]) { _, new in new })
                expect(result.status) == 0
                expect(result.stdout).to(
                    contain(
                        "ExecStart=\"\(URL(fileURLWithPath: docketBinary).resolvingSymlinksInPath().path)\" \"-C\" \"\(laptop.folder.path)\" \"sync\" \"--watch\" \"--interval\" \"10m\""
                    ))
                expect(result.stdout).to(contain("WantedBy=default.target"))
                expect(result.stdout).to(contain("# \(home.path)/systemd/user/docket-sync-"))
                expect(FileManager.default.fileExists(atPath: home.path)) == false
            }

            it("installs a crontab line whose command starts one watcher, says so in status, and removes both") {
                let installed = laptop.run(
                    "autosync", "install", "--cron", "--interval", "1m", environment: crontab.environment)
                expect(installed.status) == 0
                expect(installed.stdout).to(contain("Added a crontab line"))
                let marker = "# docket autosync \(laptop.folder.path)"
                let line = listed().split(separator: "\n").first { $0.hasSuffix(marker) }.map(String.init)
                expect(line).to(beginWith("*/5 * * * * "))
                expect(line).to(contain("'sync' '--watch' '--interval' '1m' '--unless-watching' '--log'"))
                expect(listed()).to(beginWith(own))

                // What cron would run, run twice: the second leaves at once, as one watcher is running.
                let command = String(line!.dropFirst("*/5 * * * * ".count))
                let started = Background("/bin/sh", ["-c", command], log: root.appendingPathComponent("cron.log"))
                watchers.append(started)
                let log = laptop.folder.appendingPathComponent(".git/docket/autosync.log")
                expect(eventually { ((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("Watching") }).to(
                    beTrue())
                expect(runCommand("/bin/sh", ["-c", command]).status) == 0
                let status = laptop.run("autosync", "status", environment: crontab.environment)
                expect(status.stdout).to(
                    contain("a crontab line that starts the watcher every 5 minutes unless it runs"))
                expect(status.stdout).to(contain("A watcher runs: pid "))

                let removed = laptop.run("autosync", "remove", environment: crontab.environment)
                expect(removed.stdout).to(contain("Removed the crontab line for \(laptop.folder.path)."))
                expect(removed.stdout).to(contain("Stopped the watcher cron started"))
                expect(eventually { started.hasEnded }).to(beTrue())
                expect(listed()).toNot(contain(marker))
                expect(listed()) == own
                expect(laptop.run("autosync", environment: crontab.environment).stdout).to(
                    contain(
                        "Autosync is not set up for \(laptop.folder.path); 'docket autosync install' sets it up.\nNo watcher runs now."
                    ))
                expect((try? String(contentsOf: log, encoding: .utf8)) ?? "").to(contain("Stopped watching"))
            }

            it(
                "sets up nothing where neither systemd's user manager answers nor a cron daemon runs, and says what to start"
            ) {
                crontab = StandInCrontab(in: root, cronDaemonRuns: false)
                let refused = laptop.run("autosync", "install", environment: crontab.environment)
                expect(refused.status) == 1
                expect(refused.stderr).to(
                    contain(
                        "Error: nothing here would run autosync: systemd's user manager does not answer ('systemctl --user' "
                            + "fails) and no cron daemon runs; nothing was set up. Start cron ('sudo service cron start'), "
                            + "then run 'docket autosync install' again; or run 'docket sync --watch' yourself"))
                let asked = laptop.run("autosync", "install", "--cron", environment: crontab.environment)
                expect(asked.status) == 1
                expect(asked.stderr).to(
                    contain(
                        "Error: no cron daemon runs here, so a crontab line would never run; nothing was set up. "
                            + "Start cron ('sudo service cron start'), then run 'docket autosync install --cron' again")
                )
                expect(listed()) == own
                expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("config").path)) == false
                expect(laptop.run("autosync", environment: crontab.environment).stdout).to(
                    contain("Autosync is not set up for \(laptop.folder.path)"))
            }
            it("names systemd's commands to start cron or the user manager where systemd runs the machine") {
                crontab = StandInCrontab(in: root, cronDaemonRuns: false)
                _ = StandInSystemctl(beside: crontab, machine: true, userManager: false)
                let refused = laptop.run("autosync", "install", environment: crontab.environment)
                expect(refused.status) == 1
                expect(refused.stderr).to(
                    contain(
                        "Start cron ('sudo systemctl enable --now cron') or your systemd user manager "
                            + "('loginctl enable-linger'), then run 'docket autosync install' again"))
                let systemd = laptop.run("autosync", "install", "--systemd", environment: crontab.environment)
                expect(systemd.stderr).to(
                    contain(
                        "systemd's user manager cannot be reached here ('systemctl --user' fails); "
                            + "'loginctl enable-linger' starts yours; or use --cron"))
                expect(listed()) == own
            }
            it("installs a systemd user service where the user manager answers, says so in status, and removes it") {
                let systemctl = StandInSystemctl(beside: crontab, machine: true, userManager: true)
                let installed = laptop.run("autosync", "install", environment: crontab.environment)
                expect(installed.status).to(equal(0), description: installed.stderr)
                let named = installed.stdout.range(
                    of: #"(?<=Installed the systemd user service )docket-sync-[0-9a-f]{8}\.service"#,
                    options: .regularExpression)
                expect(named).toNot(beNil(), description: installed.stdout)
                let unit = named.map { String(installed.stdout[$0]) } ?? "none"
                let file = root.appendingPathComponent("config/systemd/user/\(unit)")
                expect((try? String(contentsOf: file, encoding: .utf8)) ?? "").to(contain("\"sync\" \"--watch\""))
                expect(systemctl.made).to(
                    contain("--user daemon-reload", "--user enable \(unit)", "--user restart \(unit)"))
                expect(listed()) == own
                expect(laptop.run("autosync", environment: crontab.environment).stdout).to(
                    contain("the systemd user service \(unit) (active)"))
                let removed = laptop.run("autosync", "remove", environment: crontab.environment)
                expect(removed.stdout).to(contain("Removed the systemd user service \(unit)."))
                expect(FileManager.default.fileExists(atPath: file.path)) == false
                expect(systemctl.made).to(contain("--user disable --now \(unit)"))
            }
            it("says when this machine last synced, and a failure that came after it, with its message") {
                func status() -> String { laptop.run("autosync", environment: crontab.environment).stdout }
                expect(status()).to(contain("Not synced from this machine yet."))
                laptop.run("add", "Buy milk")
                expect(laptop.run("sync").status) == 0
                let synced = #"Last synced \d{4}-\d\d-\d\d \d\d:\d\d with origin\."#
                expect(status()).to(match(synced))
                expect(status()).toNot(contain("failed"))

                let away = root.appendingPathComponent("away.git")
                try! FileManager.default.moveItem(at: remote, to: away)
                let failed = laptop.run("sync")
                expect(failed.status) == 1
                let reason = failed.stderr.replacingOccurrences(of: "Error: ", with: "")
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                expect(status()).to(match(synced))
                expect(status()).to(match(#"The last sync, \d{4}-\d\d-\d\d \d\d:\d\d, failed: "#))
                expect(status()).to(contain("failed: \(reason)"))

                try! FileManager.default.moveItem(at: away, to: remote)
                expect(laptop.run("sync").status) == 0
                expect(status()).toNot(contain("failed"))
            }
            it("says what to use where systemd's user manager cannot be reached") {
                guard runCommand("systemctl", ["--user", "show-environment"]).status != 0 else { return }
                let result = laptop.run("autosync", "install", "--systemd", environment: crontab.environment)
                expect(result.status) == 1
                expect(result.stderr).to(
                    contain(
                        "systemd's user manager cannot be reached here ('systemctl --user' fails); use --cron, or --print to see the unit"
                    ))
                expect(laptop.run("autosync", "install", "--cron", environment: crontab.environment).status) == 0
            }
        }
    }
}

/// A stand-in for cron on the PATH of the docket it is given to: `crontab`,
/// keeping its table in a spec's own folder, and `pgrep`, answering whether a
/// cron daemon runs as the spec says. A spec never touches the user's crontab,
/// nor depends on the machine's own cron daemon.
struct StandInCrontab {
    let table: URL
    let bin: URL
    let root: URL

    init(in root: URL, cronDaemonRuns: Bool = true) {
        self.root = root
        bin = root.appendingPathComponent("bin")
        table = root.appendingPathComponent("crontab")
        try! FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let fake = bin.appendingPathComponent("crontab")
        try! """
        #!/bin/sh
        case "$1" in
          -l) [ -f "$FAKE_CRONTAB" ] && exec cat "$FAKE_CRONTAB"; echo "no crontab for spec" >&2; exit 1 ;;
          -) exec cat > "$FAKE_CRONTAB" ;;
          -r) exec rm -f "$FAKE_CRONTAB" ;;
        esac
        exit 2

        """.write(to: fake, atomically: true, encoding: .utf8)
        chmod(fake.path, 0o755)
        // pgrep's answers: 0 when a process of that name runs, 1 when none does.
        let pgrep = bin.appendingPathComponent("pgrep")
        try! "#!/bin/sh\nexit \(cronDaemonRuns ? 0 : 1)\n".write(to: pgrep, atomically: true, encoding: .utf8)
        chmod(pgrep.path, 0o755)
    }

    /// The environment that finds the stand-in first, and keeps systemd units in the spec's folder too.
    var environment: [String: String] {
        [
            "PATH": bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
            "FAKE_CRONTAB": table.path, "XDG_CONFIG_HOME": root.appendingPathComponent("config").path,
        ]
    }
}

/// A stand-in for `systemctl` in a StandInCrontab's folder of programs, answering as systemd would where
/// it runs the machine (`machine`) and where this user's manager answers (`userManager`), and noting each
/// call in a file of the spec's own: a spec never touches the machine's systemd.
struct StandInSystemctl {
    let calls: URL

    init(beside crontab: StandInCrontab, machine: Bool, userManager: Bool) {
        calls = crontab.root.appendingPathComponent("systemctl-calls")
        let fake = crontab.bin.appendingPathComponent("systemctl")
        try! """
        #!/bin/sh
        echo "$*" >> '\(calls.path)'
        if [ "$1" = is-system-running ]; then
          \(machine ? "echo running; exit 0" : "echo offline; exit 1")
        fi
        if [ "$1" = --user ]; then
          \(userManager ? "" : "echo 'Failed to connect to bus: No medium found' >&2; exit 1")
          [ "$2" = is-active ] && echo active
          exit 0
        fi
        exit 0

        """.write(to: fake, atomically: true, encoding: .utf8)
        chmod(fake.path, 0o755)
    }

    /// Each call's arguments, in order.
    var made: [String] {
        ((try? String(contentsOf: calls, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }
}
