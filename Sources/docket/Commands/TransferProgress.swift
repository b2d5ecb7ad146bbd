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
/// a command has run a second (`DOCKET_PROGRESS_DELAY` seconds, as git's
/// `GIT_PROGRESS_DELAY`), at most ten times a second (the library throttles),
/// and cleared before anything else is printed.
enum ProgressLine {
    nonisolated(unsafe) private static var drawn = false
    /// When docket started; set first thing in `main`.
    nonisolated(unsafe) static var started = Date()

    static func show(_ progress: TransferProgress) {
        guard Date().timeIntervalSince(started) >= delay else { return }
        let verb =
            switch progress.stage {
            case .receiving: "Receiving objects"
            case .sending: "Sending objects"
            case .checking: "Checking files"
            case .writing: "Writing files"
            }
        var text = verb + ": "
        if progress.objectsTotal > 0 {
            text +=
                "\(progress.objectsDone * 100 / progress.objectsTotal)% (\(progress.objectsDone)/\(progress.objectsTotal))"
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

    /// Seconds a command runs before its progress shows.
    static let delay =
        ProcessInfo.processInfo.environment["DOCKET_PROGRESS_DELAY"].flatMap(Double.init).map { max(0, $0) } ?? 1

    /// Clears the line, if one was drawn, so what follows starts on a clean line.
    static func clear() {
        guard drawn else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        drawn = false
    }
}
