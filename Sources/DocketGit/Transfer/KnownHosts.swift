import DocketSystem
import Foundation

/// The ssh hosts a person has accepted, read with `ssh-keygen -F`, which knows hashed names and ports.
enum KnownHosts {
    enum Verdict { case match, unknown, mismatch }

    static func check(host: String, url: String, key: String, file: String) -> Verdict {
        guard FileManager.default.fileExists(atPath: file) else { return .unknown }
        let port = URLComponents(string: url)?.port
        let name = port.map { $0 == 22 ? host : "[\(host)]:\($0)" } ?? host
        // NB: not Foundation's Process: this runs inside a libgit2 callback,
        // where Process on Linux may never see its child exit.
        guard let text = try? Spawn.run(["ssh-keygen", "-F", name, "-f", file]).text else { return .unknown }
        let keys = text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line -> String? in
            let fields = line.split(separator: " ")
            return fields.count >= 3 ? String(fields[2]) : nil
        }
        if keys.isEmpty { return .unknown }
        return keys.contains(key) ? .match : .mismatch
    }
}
