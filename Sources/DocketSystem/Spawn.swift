import DocketCSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Other programs, started with `posix_spawn` and reaped with `waitpid`.
///
/// NB: not Foundation's `Process`, which on Linux can miss a child's exit
/// while other children run, and must not be used inside libgit2 callbacks.
public enum Spawn {
    /// What a finished program left.
    public struct Outcome: Sendable {
        /// Its exit status (128 + the signal when a signal ended it).
        public let status: Int32
        /// What it wrote to stdout.
        public let output: Data
        /// What it wrote to stderr (empty unless captured).
        public let errors: Data

        /// stdout as text.
        public var text: String { String(decoding: output, as: UTF8.self) }
        /// stderr as text.
        public var errorText: String { String(decoding: errors, as: UTF8.self) }
    }

    /// Runs `arguments[0]` (found on PATH) with the rest as its arguments,
    /// feeding it `input`, and waits for it. stderr is captured when
    /// `captureErrors`, else it goes to /dev/null. `environment` entries are
    /// added to (or, with a nil value, removed from) this process's.
    public static func run(
        _ arguments: [String], input: Data? = nil, environment: [String: String?] = [:],
        captureErrors: Bool = false, folder: String? = nil
    ) throws -> Outcome {
        var inPipe: [Int32] = [0, 0]
        var outPipe: [Int32] = [0, 0]
        var errPipe: [Int32] = [0, 0]
        try systemCall("pipe") { docket_pipe_cloexec(&inPipe) }
        try systemCall("pipe") { docket_pipe_cloexec(&outPipe) }
        try systemCall("pipe") { docket_pipe_cloexec(&errPipe) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        if captureErrors {
            posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        let pid: pid_t
        do {
            pid = try start(arguments, actions: &actions, attributes: nil, environment: environment, folder: folder)
        } catch {
            for fd in inPipe + outPipe + errPipe { close(fd) }
            throw error
        }
        close(inPipe[0])
        close(outPipe[1])
        close(errPipe[1])
        if !captureErrors { close(errPipe[0]) }
        feed(input, to: inPipe[1])
        let (output, errors) = drain(outPipe[0], captureErrors ? errPipe[0] : nil)
        return Outcome(status: wait(pid), output: output, errors: errors)
    }

    /// Runs a program in a process group of its own, feeding it `input`,
    /// with its stdout and stderr captured together (in the order written).
    /// After `timeout` seconds the whole group is killed, so a program that
    /// hangs, or leaves a child holding its output open, cannot hold the caller;
    /// `timedOut` then says so.
    public static func runBounded(
        _ arguments: [String], input: Data?, environment: [String: String?] = [:], folder: String? = nil,
        timeout: TimeInterval
    ) throws -> (outcome: Outcome, timedOut: Bool) {
        var inPipe: [Int32] = [0, 0]
        var outPipe: [Int32] = [0, 0]
        try systemCall("pipe") { docket_pipe_cloexec(&inPipe) }
        try systemCall("pipe") { docket_pipe_cloexec(&outPipe) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        let pid: pid_t
        do {
            pid = try start(
                arguments, actions: &actions, attributes: &attributes, environment: environment, folder: folder)
        } catch {
            for fd in inPipe + outPipe { close(fd) }
            throw error
        }
        close(inPipe[0])
        close(outPipe[1])
        feed(input, to: inPipe[1])
        let deadline = Date().addingTimeInterval(timeout)
        var output = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var timedOut = false
        while true {
            let left = deadline.timeIntervalSinceNow
            if left <= 0 {
                timedOut = true
                kill(-pid, SIGKILL)
                break
            }
            var entry = pollfd(fd: outPipe[0], events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, Int32(min(left * 1000, 1000).rounded(.up)))
            if ready < 0 && errno != EINTR { break }
            if ready <= 0 { continue }
            let count = read(outPipe[0], &buffer, buffer.count)
            if count > 0 { output.append(buffer, count: count) } else if count == 0 || errno != EINTR { break }
        }
        close(outPipe[0])
        // NB: a program may close its output and go on running; it has until the deadline too.
        var status: Int32 = 0
        while !timedOut {
            let done = waitpid(pid, &status, WNOHANG)
            if done == pid { return (Outcome(status: exitStatus(status), output: output, errors: Data()), false) }
            if done < 0 && errno != EINTR { break }
            if Date() >= deadline {
                timedOut = true
                kill(-pid, SIGKILL)
            } else {
                usleep(5_000)
            }
        }
        return (Outcome(status: wait(pid), output: output, errors: Data()), timedOut)
    }

    /// Runs a program on this terminal (stdin, stdout and stderr shared) and waits for it.
    public static func attached(_ arguments: [String], environment: [String: String?] = [:]) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        return wait(try start(arguments, actions: &actions, attributes: nil, environment: environment, folder: nil))
    }

    /// Starts `executable` in a session of its own with stdio on /dev/null,
    /// and does not wait: it goes on after this process ends, and a terminal
    /// closing or Ctrl-C does not stop it. `name` is what `ps` shows it as (its `argv[0]`), the executable's path by
    /// default.
    public static func detached(executable: String, name: String? = nil, _ arguments: [String]) {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(docket_spawn_setsid_flag()))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd in 0...2 {
            posix_spawn_file_actions_addopen(&actions, Int32(fd), "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        let argv = ([name ?? executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        _ = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
    }

    /// Variables holding credentials, which no program docket starts inherits (unless passed on purpose).
    public static let secrets = ["DOCKET_GIT_TOKEN"]

    /// Whether a process with this pid is running (or at least exists).
    public static func isAlive(_ pid: pid_t) -> Bool {
        pid > 0 && (kill(pid, 0) == 0 || errno != ESRCH)
    }

    // MARK: Parts

    static func start(
        _ arguments: [String], actions: inout posix_spawn_file_actions_t, attributes: UnsafePointer<posix_spawnattr_t>?,
        environment: [String: String?], folder: String?
    ) throws -> pid_t {
        var env = ProcessInfo.processInfo.environment
        // NB: the token is for the https server it was given for, never for a hook, an editor or a helper.
        for secret in Spawn.secrets { env[secret] = nil }
        for (key, value) in environment { env[key] = value }
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        // The folder is entered by a shell, as posix_spawn's chdir action is not available here.
        let command = folder.map { ["/bin/sh", "-c", "cd \"$0\" && exec /usr/bin/env \"$@\"", $0] } ?? ["/usr/bin/env"]
        let argv = (command + arguments).map { strdup($0) } + [nil]
        defer {
            envp.forEach { free($0) }
            argv.forEach { free($0) }
        }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, command[0], &actions, attributes, argv, envp)
        guard code == 0 else { throw SystemError("spawn", path: arguments.first, code: code) }
        return pid
    }

    /// Writes `input` to a program's stdin and closes it, from another thread,
    /// so a program that writes a lot before reading all of its input cannot block on a full pipe.
    static func feed(_ input: Data?, to fd: Int32) {
        Thread {
            signal(SIGPIPE, SIG_IGN)
            if let input { input.withUnsafeBytes { try? writeAll(fd, $0) } }
            close(fd)
        }.start()
    }

    static func drain(_ out: Int32, _ err: Int32?) -> (Data, Data) {
        var output = Data()
        var errors = Data()
        var open = [out] + (err.map { [$0] } ?? [])
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !open.isEmpty {
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&fds, nfds_t(fds.count), -1) >= 0 else { if errno == EINTR { continue } else { break } }
            for entry in fds where entry.revents != 0 {
                let count = read(entry.fd, &buffer, buffer.count)
                if count > 0 {
                    if entry.fd == out {
                        output.append(buffer, count: count)
                    } else {
                        errors.append(buffer, count: count)
                    }
                } else if count == 0 || errno != EINTR {
                    close(entry.fd)
                    open.removeAll { $0 == entry.fd }
                }
            }
        }
        return (output, errors)
    }

    static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return exitStatus(status)
    }

    /// A wait status as a shell shows it: the exit code, or 128 + the signal that ended the program.
    static func exitStatus(_ status: Int32) -> Int32 {
        (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }
}
