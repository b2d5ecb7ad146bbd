import DocketSystem
import Foundation

/// Why a commit could not be signed as git's configuration asks.
public struct SigningError: Error, Equatable, Sendable {
    /// The program that was to sign (or the format no program here signs).
    public let program: String
    /// What it said.
    public let detail: String
}

/// Signing commits as git does when `commit.gpgsign` is on: with OpenPGP
/// through `gpg.program` (gpg), or with ssh through `gpg.ssh.program`
/// (ssh-keygen) when `gpg.format` is ssh, using `user.signingkey`.
enum CommitSigning {
    /// The signer git's configuration asks for; nil when commits are not signed.
    static func signer(for repository: Repository) -> ((String) throws -> String?)? {
        guard (try? repository.configBool("commit.gpgsign")) == true else { return nil }
        func config(_ name: String) -> String? { (try? repository.configString(name)) ?? nil }
        let key = config("user.signingkey")
        switch config("gpg.format") ?? "openpgp" {
        case "openpgp":
            let program = config("gpg.openpgp.program") ?? config("gpg.program") ?? "gpg"
            let committer = (try? repository.identities().committer) ?? Signature.docket
            return { text in
                let result = try Spawn.run(
                    [program, "--status-fd=2", "-bsau", key ?? "\(committer.name) <\(committer.email)>"],
                    input: Data(text.utf8), captureErrors: true)
                guard result.status == 0, result.errorText.contains("SIG_CREATED") else {
                    throw SigningError(program: program, detail: firstLine(result.errorText))
                }
                return result.text
            }
        case "ssh":
            let program = config("gpg.ssh.program") ?? "ssh-keygen"
            return { text in
                guard let key else { throw SigningError(program: program, detail: "user.signingkey names no key") }
                let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                    "docket-sign-\(UUID().uuidString)")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: folder) }
                var keyFile = Home.expand(key)
                if key.hasPrefix("key::") || key.hasPrefix("ssh-") {
                    keyFile = folder.appendingPathComponent("key.pub").path
                    try Data((key.hasPrefix("key::") ? String(key.dropFirst(5)) : key).utf8).write(
                        to: URL(fileURLWithPath: keyFile))
                }
                let buffer = folder.appendingPathComponent("commit").path
                try Data(text.utf8).write(to: URL(fileURLWithPath: buffer))
                let result = try Spawn.run(
                    [program, "-Y", "sign", "-n", "git", "-f", keyFile, buffer], captureErrors: true)
                guard result.status == 0, let signature = try? String(contentsOfFile: buffer + ".sig", encoding: .utf8)
                else {
                    throw SigningError(program: program, detail: firstLine(result.errorText))
                }
                return signature
            }
        case let format:
            return { _ in
                throw SigningError(program: "gpg.format \(format)", detail: "docket signs only with openpgp or ssh")
            }
        }
    }

    private static func firstLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .first { !$0.isEmpty && !$0.hasPrefix("[GNUPG:]") } ?? "it failed"
    }
}
