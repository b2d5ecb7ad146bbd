import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A free TCP port on 127.0.0.1, found by binding to port 0.
public func freePort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
    }
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Whether something accepts connections on 127.0.0.1:port.
public func isListening(_ port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    } == 0
}

/// Waits until the port accepts connections, for at most `seconds`.
public func waitForPort(_ port: Int, seconds: Double = 10) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if isListening(port) { return true }
        usleep(50_000)
    }
    return false
}

/// A real `git daemon` serving a folder on 127.0.0.1, push enabled; stopped by `stop()`.
public final class GitDaemon {
    public let port: Int
    let process = Process()

    /// Starts serving every repository under `base` (taking pushes unless `pushes` is false); without
    /// `informativeErrors`, a missing repository is "access denied or repository not exported", as by default.
    public init(serving base: URL, pushes: Bool = true, informativeErrors: Bool = true) {
        port = freePort()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "git", "daemon", "--reuseaddr", "--export-all",
            pushes ? "--enable=receive-pack" : "--disable=receive-pack",
            informativeErrors ? "--informative-errors" : "--no-informative-errors",
            "--listen=127.0.0.1", "--port=\(port)", "--base-path=\(base.path)", base.path,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try! process.run()
        precondition(waitForPort(port), "git daemon did not start on port \(port)")
    }

    /// The git:// URL of a repository under the served folder.
    public func url(_ name: String) -> String { "git://127.0.0.1:\(port)/\(name)" }

    /// Stops the daemon.
    public func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    deinit { stop() }
}

/// A real `sshd` on 127.0.0.1 with a generated host key, a user key in
/// `authorized_keys`, and a known_hosts file that lists the host; stopped by `stop()`.
public final class SSHServer {
    public let port: Int
    public let folder: URL
    /// The user's private key (its public half is authorized).
    public let userKey: String
    /// A known_hosts file that lists this server.
    public let knownHosts: String
    /// The login name.
    public let user = NSUserName()
    let process = Process()
    var agent: Process?

    /// An RSA user key, authorized too.
    public let userRSAKey: String
    /// One known_hosts line per host key, in the order of `hostKeyTypes`.
    public let hostKeyLines: [String]

    /// Starts sshd on `port` (a free one by default; 22 for scp-like `user@host:path` URLs, which name no port),
    /// with host keys of `hostKeyTypes`, listed in known_hosts in that order.
    public init(port: Int? = nil, hostKeyTypes: [String] = ["ed25519"]) {
        folder = temporaryFolder("docket-sshd")
        self.port = port ?? freePort()
        userKey = folder.appendingPathComponent("id_ed25519").path
        userRSAKey = folder.appendingPathComponent("id_rsa").path
        knownHosts = folder.appendingPathComponent("known_hosts").path
        runCommand("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", userKey])
        runCommand("ssh-keygen", ["-q", "-t", "rsa", "-b", "2048", "-N", "", "-f", userRSAKey])
        let authorized = [userKey, userRSAKey].map { try! String(contentsOfFile: $0 + ".pub", encoding: .utf8) }
            .joined()
        try! authorized.write(
            toFile: folder.appendingPathComponent("authorized_keys").path, atomically: true, encoding: .utf8)
        let hostName = self.port == 22 ? "127.0.0.1" : "[127.0.0.1]:\(self.port)"
        var hostKeyFiles: [String] = []
        var lines: [String] = []
        for type in hostKeyTypes {
            let hostKey = folder.appendingPathComponent("host_key_\(type)").path
            runCommand("ssh-keygen", ["-q", "-t", type, "-N", "", "-f", hostKey])
            hostKeyFiles.append(hostKey)
            let hostPublic = try! String(contentsOfFile: hostKey + ".pub", encoding: .utf8).split(separator: " ")
                .prefix(2).joined(separator: " ")
            lines.append("\(hostName) \(hostPublic)")
        }
        hostKeyLines = lines
        try! (lines.joined(separator: "\n") + "\n").write(toFile: knownHosts, atomically: true, encoding: .utf8)
        let config = """
            Port \(self.port)
            ListenAddress 127.0.0.1
            \(hostKeyFiles.map { "HostKey \($0)" }.joined(separator: "\n"))
            AuthorizedKeysFile \(folder.path)/authorized_keys
            PidFile \(folder.path)/sshd.pid
            PasswordAuthentication no
            KbdInteractiveAuthentication no
            PubkeyAuthentication yes
            UsePAM no
            StrictModes no
            PermitRootLogin prohibit-password
            """
        try! config.write(to: folder.appendingPathComponent("sshd_config"), atomically: true, encoding: .utf8)
        try? FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true)
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/sshd")
        process.arguments = ["-D", "-e", "-f", folder.appendingPathComponent("sshd_config").path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try! process.run()
        precondition(waitForPort(self.port), "sshd did not start on port \(self.port)")
    }

    /// The ssh:// URL of a repository at an absolute path.
    public func url(_ path: String) -> String { "ssh://\(user)@127.0.0.1:\(port)\(path)" }

    /// Starts an ssh-agent (holding the user key unless `adding` is false) and returns its socket.
    public func startAgent(adding: Bool = true) -> String {
        let socket = folder.appendingPathComponent("agent.sock").path
        let agent = Process()
        agent.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        agent.arguments = ["ssh-agent", "-D", "-a", socket]
        agent.standardOutput = FileHandle.nullDevice
        agent.standardError = FileHandle.nullDevice
        try! agent.run()
        self.agent = agent
        let deadline = Date().addingTimeInterval(5)
        while !FileManager.default.fileExists(atPath: socket) && Date() < deadline { usleep(20_000) }
        if adding { runCommand("ssh-add", ["-q", userKey], environment: ["SSH_AUTH_SOCK": socket]) }
        return socket
    }

    /// Stops sshd and the agent, and removes the keys.
    public func stop() {
        for running in [process, agent].compactMap({ $0 }) where running.isRunning {
            running.terminate()
            running.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: folder)
    }

    deinit { stop() }
}

/// A TCP proxy (Tests/scripts/cutting-proxy.py) that cuts each connection after
/// `bytes` in one direction, as a server killed mid-transfer would.
public final class CuttingProxy {
    public let port: Int
    let process = Process()

    /// Forwards 127.0.0.1:port to `target`, cutting `direction` ("up" or "down") after `bytes`.
    public init(to target: Int, direction: String, bytes: Int) {
        port = freePort()
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/cutting-proxy.py").path
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, "\(port)", "\(target)", direction, "\(bytes)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try! process.run()
        precondition(waitForPort(port), "the proxy did not start")
    }

    public func stop() {
        if process.isRunning { process.terminate() }
    }

    deinit { stop() }
}

/// A TCP server (Tests/scripts/misbehaving-server.py) on 127.0.0.1 that misbehaves in one way: "silent" never
/// speaks, "close" closes each connection once the client has spoken, "reset" resets it, "redirect" sends every
/// http request back to itself. It stops with `stop()`, and by itself after 2 minutes.
public final class MisbehavingServer {
    public let port: Int
    let process = Process()

    public init(_ mode: String) {
        port = freePort()
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/misbehaving-server.py").path
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, "\(port)", mode]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try! process.run()
        precondition(waitForPort(port), "the misbehaving server did not start")
    }

    public func stop() {
        if process.isRunning { process.terminate() }
    }

    deinit { stop() }
}

/// A real web server, lighttpd, running `git http-backend` (as CGI) behind TLS
/// and basic auth on 127.0.0.1, with a self-signed certificate for localhost and
/// 127.0.0.1; under `/static/` it serves the same folder as plain files (a
/// "dumb" http remote). It stops with `stop()`, and by itself after 10 minutes.
public final class HTTPSGitServer {
    public let port: Int
    /// The certificate to trust (pass as GIT_SSL_CAINFO).
    public let certificate: String
    public let user = "docket"
    public let token = "s3cret-token-\(UUID().uuidString.prefix(8))"
    let folder: URL
    let process = Process()

    /// Whether this serves plain http (no TLS).
    public let plain: Bool

    /// Serves the repositories under `root`, over https (a certificate for localhost and 127.0.0.1), or plain http.
    public init(serving root: URL, plain: Bool = false) {
        folder = temporaryFolder("docket-https")
        port = freePort()
        self.plain = plain
        certificate = folder.appendingPathComponent("cert.pem").path
        let key = folder.appendingPathComponent("key.pem").path
        runCommand(
            "openssl",
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate, "-days", "1",
                "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
            ])
        let users = folder.appendingPathComponent("users")
        try! "\(user):\(token)\n".write(to: users, atomically: true, encoding: .utf8)
        let backend =
            runCommand("git", ["--exec-path"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            + "/git-http-backend"
        let tls =
            plain
            ? ""
            : """
            ssl.engine = "enable"
            ssl.pemfile = "\(certificate)"
            ssl.privkey = "\(key)"
            """
        let config = """
            server.modules = ("mod_alias", "mod_setenv", "mod_auth", "mod_authn_file", "mod_cgi", "mod_openssl")
            server.document-root = "\(root.path)"
            server.bind = "127.0.0.1"
            server.port = \(port)
            server.errorlog = "\(folder.path)/error.log"
            \(tls)
            auth.backend = "plain"
            auth.backend.plain.userfile = "\(users.path)"
            auth.require = ( "/" => ( "method" => "basic", "realm" => "lists", "require" => "valid-user" ) )
            $HTTP["url"] =~ "^/static/" {
                alias.url = ( "/static/" => "\(root.path)/" )
            } else {
                alias.url = ( "/" => "\(backend)/" )
                cgi.assign = ( "" => "" )
                setenv.add-environment = ( "GIT_PROJECT_ROOT" => "\(root.path)", "GIT_HTTP_EXPORT_ALL" => "" )
            }
            """
        let file = folder.appendingPathComponent("lighttpd.conf")
        try! config.write(to: file, atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        process.arguments = ["600", "/usr/sbin/lighttpd", "-D", "-f", file.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try! process.run()
        precondition(
            waitForPort(port),
            "lighttpd did not start: \((try? String(contentsOf: folder.appendingPathComponent("error.log"), encoding: .utf8)) ?? "")"
        )
    }

    /// The https (or http) URL of a repository under the served folder.
    public func url(_ name: String, host: String = "localhost") -> String {
        "\(plain ? "http" : "https")://\(host):\(port)/\(name)"
    }

    public func stop() {
        // NB: not waited for: Foundation's Process can miss an exit while other children run.
        if process.isRunning { process.terminate() }
        try? FileManager.default.removeItem(at: folder)
    }

    deinit { stop() }
}

/// An http proxy (Tests/scripts/connect-proxy.py) on 127.0.0.1 that relays CONNECT
/// tunnels and logs each target, so a spec can tell it was used.
public final class ConnectProxy {
    public let port: Int
    public let log: String
    let process = Process()

    public init() {
        port = freePort()
        log = temporaryFolder("docket-proxy").appendingPathComponent("log").path
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/connect-proxy.py").path
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, "\(port)", log]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try! process.run()
        precondition(waitForPort(port), "the proxy did not start")
    }

    /// The targets it was asked to reach, one "CONNECT host:port" per line.
    public var requests: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    public func stop() {
        if process.isRunning { process.terminate() }
    }

    deinit { stop() }
}

/// A Radicale CalDAV server on 127.0.0.1 with one task collection, and
/// vdirsyncer pairs between folders of `.ics` files and it, set up as the
/// guide's recommended setup sets them (`conflict_resolution = "b wins"`, the
/// server being b). Everything lives under `root`; `stop()` ends the server.
public final class CalendarServer {
    private let radicale: Background
    private let config: URL
    private let home: URL
    /// Whether the server answered on its port.
    public let isRunning: Bool

    /// Starts Radicale and writes vdirsyncer's configuration with one pair per named folder.
    public init(root: URL, pairs: [(name: String, folder: URL)]) {
        let port = freePort()
        let storage = root.appendingPathComponent("radicale")
        let collection = storage.appendingPathComponent("collection-root/docket/tasks")
        try? FileManager.default.createDirectory(at: collection, withIntermediateDirectories: true)
        try? #"{"C:supported-calendar-component-set": "VTODO", "tag": "VCALENDAR"}"#
            .write(to: collection.appendingPathComponent(".Radicale.props"), atomically: true, encoding: .utf8)
        let settings = root.appendingPathComponent("radicale.cfg")
        try?
            "[server]\nhosts = 127.0.0.1:\(port)\n[auth]\ntype = none\n[storage]\nfilesystem_folder = \(storage.path)\n[logging]\nlevel = warning\n"
            .write(to: settings, atomically: true, encoding: .utf8)
        radicale = Background(
            "/usr/bin/radicale", ["--config", settings.path], log: root.appendingPathComponent("radicale.log"))
        isRunning = waitForPort(port)
        home = root.appendingPathComponent("home")
        config = root.appendingPathComponent("vdirsyncer.cfg")
        var text = "[general]\nstatus_path = \"\(root.path)/vdirsyncer-status/\"\n\n"
        for (name, folder) in pairs {
            try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            text += """
                [pair \(name)]
                a = "\(name)_folder"
                b = "\(name)_server"
                collections = null
                conflict_resolution = "b wins"
                [storage \(name)_folder]
                type = "filesystem"
                path = "\(folder.path)/"
                fileext = ".ics"
                [storage \(name)_server]
                type = "caldav"
                url = "http://127.0.0.1:\(port)/docket/tasks/"
                username = "docket"
                password = "docket"


                """
        }
        try? text.write(to: config, atomically: true, encoding: .utf8)
    }

    /// The environment vdirsyncer and todoman run in: a scratch home, UTC, UTF-8.
    public var environment: [String: String] {
        ["HOME": home.path, "TZ": "UTC", "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8"]
    }

    /// Runs vdirsyncer with this configuration.
    @discardableResult
    public func vdirsyncer(_ arguments: [String]) -> CommandResult {
        runCommand("vdirsyncer", ["-c", config.path] + arguments, environment: environment, input: "")
    }

    /// Stops Radicale.
    public func stop() { radicale.stop() }
}
