import ArgumentParser
import Docket
import DocketSystem
import Foundation

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
