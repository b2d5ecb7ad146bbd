import Foundation

/// A file in a crafted commit: any path, any mode, any bytes.
public struct CraftedFile: Encodable {
    public let path: String
    public let mode: String
    public let content: String?
    public let hex: String?
    public let delete: Bool?
    /// A blob of this many zero bytes (for a file far larger than any spec should hold in memory).
    public var zeros: Int? = nil

    /// A plain file with this text.
    public static func file(_ path: String, _ content: String) -> CraftedFile {
        CraftedFile(path: path, mode: "100644", content: content, hex: nil, delete: nil)
    }
    /// A plain file of these bytes.
    public static func bytes(_ path: String, _ data: Data) -> CraftedFile {
        CraftedFile(
            path: path, mode: "100644", content: nil, hex: data.map { String(format: "%02x", $0) }.joined(), delete: nil
        )
    }
    /// A plain file of `count` zero bytes, which compresses to almost nothing.
    public static func zeros(_ path: String, count: Int) -> CraftedFile {
        var file = CraftedFile(path: path, mode: "100644", content: nil, hex: nil, delete: nil)
        file.zeros = count
        return file
    }
    /// A symbolic link to `target`.
    public static func link(_ path: String, to target: String) -> CraftedFile {
        CraftedFile(path: path, mode: "120000", content: target, hex: nil, delete: nil)
    }
    /// A submodule entry naming `commit`.
    public static func submodule(_ path: String, commit: String) -> CraftedFile {
        CraftedFile(path: path, mode: "160000", content: commit, hex: nil, delete: nil)
    }
    /// An executable file with this text.
    public static func executable(_ path: String, _ content: String) -> CraftedFile {
        CraftedFile(path: path, mode: "100755", content: content, hex: nil, delete: nil)
    }
    /// The path removed.
    public static func removed(_ path: String) -> CraftedFile {
        CraftedFile(path: path, mode: "100644", content: nil, hex: nil, delete: true)
    }
}

/// Writes a commit of these files on top of `branch` straight into the
/// repository's objects (Tests/scripts/craft-commit.py), as a hostile remote
/// would serve it, and returns its id. git's own commands would refuse many of these trees.
@discardableResult
public func craftCommit(in repository: URL, branch: String = "main", _ files: [CraftedFile]) -> String {
    let spec = temporaryFolder("docket-craft").appendingPathComponent("entries.json")
    defer { try? FileManager.default.removeItem(at: spec.deletingLastPathComponent()) }
    try! JSONEncoder().encode(files).write(to: spec)
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/craft-commit.py").path
    let result = runCommand("python3", [script, repository.path, branch, spec.path])
    precondition(result.status == 0, "craft-commit failed: \(result.stderr)")
    return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
}
