import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The home every spec runs in, and every program a spec starts: a scratch
/// folder, so no spec reads or writes the real `~/.ssh`, `~/.gitconfig`,
/// `~/.docket` or the shells' start-up files. `crontab`, `systemctl` and
/// `pgrep` on the PATH are stand-ins that refuse, so nothing reaches the
/// user's crontab or systemd, and no spec depends on which daemons run on the
/// machine; a spec that needs them brings its own (`StandInCrontab`,
/// `StandInSystemctl`).
/// Removed when the run ends.
public enum ScratchHome {
    nonisolated(unsafe) private static var folder: String?

    /// Sets `HOME` (and the XDG folders) to a new scratch folder and puts the refusing stand-ins first on the PATH.
    public static func install() {
        let home = temporaryFolder("docket-specs-home")
        let bin = home.appendingPathComponent(".spec-bin")
        try! FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        for (program, why) in [
            ("crontab", "it would change this machine"), ("systemctl", "it would change this machine"),
            ("pgrep", "its answer would depend on what runs on this machine"),
        ] {
            let path = bin.appendingPathComponent(program).path
            try! "#!/bin/sh\necho \"a spec ran \(program) without its own stand-in; \(why)\" >&2\nexit 1\n"
                .write(toFile: path, atomically: true, encoding: .utf8)
            chmod(path, 0o755)
        }
        setenv("HOME", home.path, 1)
        for variable in [
            "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR", "DOCKET_DIR", "GIT_DIR",
            "GIT_WORK_TREE", "SSH_AUTH_SOCK",
        ] {
            unsetenv(variable)
        }
        setenv("PATH", bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"), 1)
        folder = home.path
        atexit {
            if let folder = ScratchHome.folder { try? FileManager.default.removeItem(atPath: folder) }
        }
    }
}
