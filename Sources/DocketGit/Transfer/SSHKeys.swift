import DocketSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What Docket can tell of ssh credentials before offering them.
enum SSHKeys {
    /// Whether a private key file is protected by a passphrase (PEM with
    /// `ENCRYPTED`, or OpenSSH's format with a cipher other than "none").
    static func isEncrypted(_ path: String) -> Bool {
        guard let data = readKey(path), let text = String(data: data, encoding: .utf8) else { return false }
        if text.contains("ENCRYPTED") { return true }
        guard text.contains("BEGIN OPENSSH PRIVATE KEY") else { return false }
        let body = text.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        guard let blob = Data(base64Encoded: body), blob.count > 19 else { return false }
        // "openssh-key-v1\0", then the cipher's name as a 4-byte length and its bytes.
        let magic = Array("openssh-key-v1\0".utf8)
        guard Array(blob.prefix(magic.count)) == magic else { return false }
        let length = blob[magic.count..<(magic.count + 4)].reduce(0) { $0 << 8 | Int($1) }
        guard blob.count >= magic.count + 4 + length else { return false }
        let cipher = String(decoding: blob[(magic.count + 4)..<(magic.count + 4 + length)], as: UTF8.self)
        return cipher != "none"
    }

    /// A private key file's bytes, through links as OpenSSH reads it; nil when it is not a regular file of at most 1
    /// MiB
    /// (the largest keys OpenSSH makes are under 16 KiB).
    private static func readKey(_ path: String) -> Data? {
        let fd = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return try? readAll(fd, limit: 1 << 20, expected: Int(info.st_size), path: path)
    }

    /// Whether an ssh-agent answers on the socket `SSH_AUTH_SOCK` names (a
    /// variable left from a closed session points at nothing).
    static func agentAnswers(_ socketPath: String?) -> Bool {
        guard let socketPath, !socketPath.isEmpty, socketPath.utf8.count < 108 else { return false }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(socketPath.utf8)
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        } == 0
    }
}
