import Foundation

/// Crash points for fault specs: when `DOCKET_FAULT` names a point, the
/// process kills itself there, as `kill -9` or a power cut would.
enum Fault {
    static let armed = ProcessInfo.processInfo.environment["DOCKET_FAULT"]

    static func point(_ name: String) {
        if armed == name { kill(getpid(), SIGKILL) }
    }
}
