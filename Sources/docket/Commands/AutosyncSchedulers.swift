import DocketSystem
import Foundation

/// Whether the schedulers autosync installs into would run it here, asked of the programs that know:
/// `systemctl` (a systemd user manager answering; systemd running the machine) and `pgrep` (a cron
/// daemon running). Specs put stand-ins for these programs first on the PATH.
enum AutosyncSchedulers {
    /// Whether a cron daemon runs, as far as `pgrep` can tell.
    enum Cron: Equatable {
        case running
        case notRunning
        /// `pgrep` could not say (it is not installed, or failed): why.
        case unknown(String)
    }

    /// The names cron daemons run under: Debian's and Ubuntu's cron, cronie's and busybox's crond, fcron.
    static let cronDaemons = "cron|crond|fcron"

    /// Whether systemd's user manager answers for this user (`systemctl --user` reaches it).
    static var userManagerAnswers: Bool {
        (try? Spawn.run(["systemctl", "--user", "show-environment"], captureErrors: true))?.status == 0
    }

    /// Whether systemd runs this machine: `systemctl is-system-running` names a state other than
    /// "offline" (what it says where systemd is not the init system, as in most containers).
    static var systemdRunsMachine: Bool {
        guard let outcome = try? Spawn.run(["systemctl", "is-system-running"], captureErrors: true) else {
            return false
        }
        let state = outcome.text.trimmingCharacters(in: .whitespacesAndNewlines)
        return !state.isEmpty && state != "offline" && state != "unknown"
    }

    /// Whether a cron daemon runs (any user's: cron runs as root).
    static var cron: Cron {
        let outcome: Spawn.Outcome
        do {
            outcome = try Spawn.run(["pgrep", "-x", cronDaemons], captureErrors: true)
        } catch {
            return .unknown("there is no 'pgrep' here to ask")
        }
        switch outcome.status {
        case 0: return .running
        case 1: return .notRunning
        default:
            let said = outcome.errorText.trimmingCharacters(in: .whitespacesAndNewlines)
            return .unknown("'pgrep' failed" + (said.isEmpty ? "" : ": " + said))
        }
    }

    /// Whether cron's `crontab` program is installed.
    static var hasCrontab: Bool { (try? Spawn.run(["crontab", "-l"], captureErrors: true)) != nil }

    /// The command that starts cron now and at every boot: systemd's where it runs the machine, else the
    /// service script's.
    static var startCron: String {
        systemdRunsMachine ? "sudo systemctl enable --now cron" : "sudo service cron start"
    }
}
