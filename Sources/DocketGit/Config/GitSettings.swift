import DocketSystem
import Foundation

/// What git's configuration and environment say about talking to one remote,
/// read as git reads them, so a remote that works with the git CLI works with Docket.
struct GitSettings {
    /// The command that carries ssh (`GIT_SSH_COMMAND`, `core.sshCommand`, `GIT_SSH`, else `ssh`), as an argv prefix;
    /// nil when there is none.
    var sshCommand: [String]?
    /// The proxy for an http(s) remote, and where that came from; nil for none.
    var proxy: (url: String, source: String)?
    /// The certificate authorities to trust (`http.sslCAInfo`, `GIT_SSL_CAINFO`, `SSL_CERT_FILE`) and the setting that named them.
    var caFile: (path: String, source: String)?
    /// A folder of certificates (`http.sslCAPath`, `GIT_SSL_CAPATH`).
    var caPath: String?
    /// False when `http.sslVerify` is false or `GIT_SSL_NO_VERIFY` is set.
    var sslVerify = true
    /// The git program, used for credential helpers; nil when not installed.
    var git: String?

    /// The settings for `url`, from `folder`'s repository (nil: the user's and system's only) and `environment`.
    static func read(for url: String, in folder: String?, environment: [String: String], needs ssh: Bool) -> GitSettings
    {
        var settings = GitSettings()
        settings.git = Executables.find("git", environment: environment)
        let lower = url.lowercased()
        if ssh {
            if let command = environment["GIT_SSH_COMMAND"], !command.isEmpty {
                settings.sshCommand = shell(command)
            } else if let command = settings.config(["--get", "core.sshCommand"], in: folder)?.trimmingCharacters(
                in: .newlines), !command.isEmpty
            {
                settings.sshCommand = shell(command)
            } else if let program = environment["GIT_SSH"], !program.isEmpty {
                settings.sshCommand = [program]
            } else if let ssh = Executables.find("ssh", environment: environment) {
                settings.sshCommand = [ssh] + userConfig(environment)
            }
        }
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://") else { return settings }
        // NB: 'git config --get-urlmatch' applies http.<url>.* sections and includes exactly as git does.
        var http: [String: String] = [:]
        for line in (settings.config(["--get-urlmatch", "http", url], in: folder) ?? "").split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            http[String(parts[0]).lowercased()] = parts.count > 1 ? String(parts[1]) : ""
        }
        if let verify = http["http.sslverify"], ["false", "no", "off", "0"].contains(verify.lowercased()) {
            settings.sslVerify = false
        }
        if let noVerify = environment["GIT_SSL_NO_VERIFY"], !noVerify.isEmpty { settings.sslVerify = false }
        // NB: git's order: the environment over the configuration; SSL_CERT_FILE is OpenSSL's, used when git names
        // none.
        if let file = environment["GIT_SSL_CAINFO"], !file.isEmpty {
            settings.caFile = (file, "GIT_SSL_CAINFO")
        } else if let file = http["http.sslcainfo"], !file.isEmpty {
            settings.caFile = (Home.expand(file), "http.sslCAInfo")
        } else if let file = environment["SSL_CERT_FILE"], !file.isEmpty {
            settings.caFile = (file, "SSL_CERT_FILE")
        }
        settings.caPath =
            environment["GIT_SSL_CAPATH"].flatMap { $0.isEmpty ? nil : $0 } ?? http["http.sslcapath"].map(Home.expand)
        settings.proxy = proxy(for: url, configured: http["http.proxy"], environment: environment)
        return settings
    }

    /// The proxy git would use: `http.proxy` (an empty value means none), else
    /// `https_proxy`/`HTTPS_PROXY` (or `http_proxy` for http) and `all_proxy`, unless `no_proxy` names the host.
    static func proxy(for url: String, configured: String?, environment: [String: String]) -> (
        url: String, source: String
    )? {
        func withScheme(_ proxy: String) -> String { proxy.contains("://") ? proxy : "http://" + proxy }
        if let configured { return configured.isEmpty ? nil : (withScheme(configured), "http.proxy") }
        let https = url.lowercased().hasPrefix("https://")
        let names = (https ? ["https_proxy", "HTTPS_PROXY"] : ["http_proxy"]) + ["all_proxy", "ALL_PROXY"]
        guard let name = names.first(where: { !(environment[$0] ?? "").isEmpty }), let value = environment[name] else {
            return nil
        }
        let host = (URLComponents(string: url)?.host ?? "").lowercased().trimmingCharacters(
            in: CharacterSet(charactersIn: "[]"))
        let exceptions = (environment["no_proxy"] ?? environment["NO_PROXY"] ?? "").lowercased()
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        for pattern in exceptions {
            if pattern == "*" { return nil }
            let domain = pattern.hasPrefix(".") ? String(pattern.dropFirst()) : pattern
            let bare = domain.split(separator: ":").first.map(String.init) ?? domain
            if host == bare || host.hasSuffix("." + bare) { return nil }
        }
        return (withScheme(value), name)
    }

    /// `ssh -F $HOME/.ssh/config` when `$HOME` is not the home the passwd entry
    /// names (OpenSSH reads the latter): `$HOME` is what users and tests mean.
    static func userConfig(_ environment: [String: String]) -> [String] {
        guard let home = environment["HOME"], home.hasPrefix("/"), let entry = getpwuid(getuid()),
            URL(fileURLWithPath: String(cString: entry.pointee.pw_dir)).standardizedFileURL.path
                != URL(fileURLWithPath: home).standardizedFileURL.path
        else { return [] }
        let config = home + "/.ssh/config"
        return FileManager.default.fileExists(atPath: config) ? ["-F", config] : []
    }

    /// A command line as git runs `GIT_SSH_COMMAND`: through the shell, with the arguments after it.
    static func shell(_ command: String) -> [String] { ["/bin/sh", "-c", command + " \"$@\"", command] }

    /// `git config <arguments>`'s output, run in `folder`; nil when unset or git is missing.
    func config(_ arguments: [String], in folder: String?) -> String? {
        guard let git else { return nil }
        // NB: Spawn, not Process: this may run inside a libgit2 callback.
        guard let outcome = try? Spawn.run([git, "config"] + arguments, folder: folder ?? "/"), outcome.status == 0
        else { return nil }
        return outcome.text
    }
}

/// Programs found on `PATH`.
enum Executables {
    static func find(_ name: String, environment: [String: String]) -> String? {
        if name.contains("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }
}
