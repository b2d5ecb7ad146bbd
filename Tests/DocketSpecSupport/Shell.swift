import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The outcome of a command run by a spec.
public struct CommandResult {
    public let status: Int32
    public let stdout: String
    public let stderr: String
}

/// Runs a program (found on PATH) with arguments in a folder, and waits for it.
///
/// NB: spawned with posix_spawn and reaped with waitpid, not Foundation's
/// Process, which on Linux can miss a child's exit while other children run.
@discardableResult
public func runCommand(
    _ program: String, _ arguments: [String], in folder: URL? = nil,
    environment: [String: String] = [:], unsetting: Set<String> = [], input: String? = nil
) -> CommandResult {
    var outPipe: [Int32] = [0, 0]
    var errPipe: [Int32] = [0, 0]
    var inPipe: [Int32] = [0, 0]
    precondition(pipe(&outPipe) == 0 && pipe(&errPipe) == 0 && pipe(&inPipe) == 0)
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
    posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
    posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
    for fd in [inPipe[0], inPipe[1], outPipe[0], outPipe[1], errPipe[0], errPipe[1]] {
        posix_spawn_file_actions_addclose(&actions, fd)
    }
    let env = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }.filter {
        !unsetting.contains($0.key)
    }
    let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
    // The folder is entered by a shell, as posix_spawn's chdir action is not available here.
    let command =
        folder.map { ["/bin/sh", "-c", "cd \"$0\" && exec /usr/bin/env \"$@\"", $0.path, program] } ?? [
            "/usr/bin/env", program,
        ]
    let argv = (command + arguments).map { strdup($0) } + [nil]
    defer {
        envp.forEach { free($0) }
        argv.forEach { free($0) }
    }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, command[0], &actions, nil, argv, envp)
    close(inPipe[0])
    close(outPipe[1])
    close(errPipe[1])
    precondition(spawned == 0, "could not run \(program)")
    if let input { _ = input.withCString { write(inPipe[1], $0, strlen($0)) } }
    close(inPipe[1])
    var out = Data()
    var err = Data()
    var open: [Int32] = [outPipe[0], errPipe[0]]
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while !open.isEmpty {
        var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        guard poll(&fds, nfds_t(fds.count), -1) >= 0 else { if errno == EINTR { continue } else { break } }
        for entry in fds where entry.revents != 0 {
            let count = read(entry.fd, &buffer, buffer.count)
            if count > 0 {
                if entry.fd == outPipe[0] { out.append(buffer, count: count) } else { err.append(buffer, count: count) }
            } else {
                close(entry.fd)
                open.removeAll { $0 == entry.fd }
            }
        }
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    return CommandResult(
        status: exitStatus, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
}

/// Runs git in a folder with a fixed identity.
@discardableResult
public func gitCLI(_ arguments: [String], in folder: URL, environment: [String: String] = [:]) -> CommandResult {
    runCommand(
        "git", arguments, in: folder,
        environment: [
            "GIT_AUTHOR_NAME": "Spec", "GIT_AUTHOR_EMAIL": "spec@example.invalid",
            "GIT_COMMITTER_NAME": "Spec", "GIT_COMMITTER_EMAIL": "spec@example.invalid",
        ].merging(environment) { _, new in new })
}

/// Whether `condition` holds within `seconds`, asked every 50 ms (for what another process does by itself).
public func eventually(within seconds: TimeInterval = 30, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(50_000)
    }
    return false
}

/// A new empty folder under the temporary folder, for one spec.
public func temporaryFolder(_ name: String = "docket-spec") -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
    try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Another process holding the lock file at `path` (`flock(1)` running `sleep`), as a running docket holds
/// the store's lock; it lets go when stopped.
public final class LockHolder {
    let process = Process()

    /// Starts holding the lock, and returns once it is held.
    public init(_ path: String) {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        process.arguments = ["--exclusive", "--no-fork", path, "sleep", "60"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try! process.run()
        let deadline = Date().addingTimeInterval(5)
        while runCommand("flock", ["--nonblock", path, "true"]).status == 0 && Date() < deadline { usleep(20_000) }
    }

    /// The holder's pid.
    public var pid: Int32 { process.processIdentifier }

    /// Lets the lock go.
    public func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    deinit { stop() }
}

/// A program running beside a spec (a `docket sync --watch`), its stdout and
/// stderr going to a log file; started with posix_spawn, stopped with a signal and reaped.
public final class Background {
    /// Its process id.
    public let pid: pid_t
    /// Where its output goes.
    public let log: URL
    private var status: Int32?

    public init(_ program: String, _ arguments: [String], log: URL, environment: [String: String] = [:]) {
        self.log = log
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log.path, O_WRONLY | O_APPEND, 0)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let env = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        defer {
            envp.forEach { free($0) }
            argv.forEach { free($0) }
        }
        var pid: pid_t = 0
        precondition(posix_spawn(&pid, program, &actions, nil, argv, envp) == 0, "could not run \(program)")
        self.pid = pid
    }

    /// What it has written so far.
    public var output: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// Waits up to `seconds` until its output holds `text` `times` times; false if it does not by then.
    @discardableResult
    public func waitFor(_ text: String, times: Int = 1, seconds: Double = 30) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if output.components(separatedBy: text).count - 1 >= times { return true }
            usleep(50_000)
        }
        return false
    }

    /// Whether it has ended (reaping it if so).
    public var hasEnded: Bool {
        if status != nil { return true }
        var raw: Int32 = 0
        if waitpid(pid, &raw, WNOHANG) == pid {
            status = (raw & 0x7F) == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
            return true
        }
        return false
    }

    /// Sends `signal` and waits up to 30 seconds for it to end (then kills it); its exit status.
    @discardableResult
    public func stop(signal: Int32 = SIGTERM) -> Int32 {
        if let status { return status }
        kill(pid, signal)
        let deadline = Date().addingTimeInterval(30)
        while !hasEnded {
            if Date() > deadline { kill(pid, SIGKILL) }
            usleep(20_000)
        }
        return status!
    }

    deinit { _ = stop(signal: SIGKILL) }
}
