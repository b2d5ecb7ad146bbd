import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Crash points for fault specs: when `DOCKET_FAULT` names a point, the
/// process kills itself there, as `kill -9` or a power cut would.
public enum Fault {
    private static let armed = ProcessInfo.processInfo.environment["DOCKET_FAULT"]

    /// Kills the process with SIGKILL when `DOCKET_FAULT` is `name`.
    public static func point(_ name: String) {
        if armed == name { kill(getpid(), SIGKILL) }
    }
}
