import Foundation

/// The outcome of a command run by a spec.
public struct CommandResult {
    public let status: Int32
    public let stdout: String
    public let stderr: String
}

/// Runs a program (found on PATH) with arguments in a folder, and waits for it.
@discardableResult
public func runCommand(_ program: String, _ arguments: [String], in folder: URL? = nil,
                environment: [String: String] = [:], unsetting: Set<String> = [], input: String? = nil) -> CommandResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [program] + arguments
    if let folder { process.currentDirectoryURL = folder }
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }.filter { !unsetting.contains($0.key) }
    let out = Pipe(), err = Pipe(), inPipe = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = inPipe
    try! process.run()
    if let input { inPipe.fileHandleForWriting.write(Data(input.utf8)) }
    try? inPipe.fileHandleForWriting.close()
    // Read both pipes before waiting, so a chatty command cannot fill a pipe and hang.
    final class Box: @unchecked Sendable { var data = Data() }
    let stdoutBox = Box()
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async { stdoutBox.data = out.fileHandleForReading.readDataToEndOfFile(); group.leave() }
    let stderrData = err.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    let stdoutData = stdoutBox.data
    process.waitUntilExit()
    return CommandResult(status: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self),
                         stderr: String(decoding: stderrData, as: UTF8.self))
}

/// Runs git in a folder with a fixed identity.
@discardableResult
public func gitCLI(_ arguments: [String], in folder: URL) -> CommandResult {
    runCommand("git", arguments, in: folder, environment: [
        "GIT_AUTHOR_NAME": "Spec", "GIT_AUTHOR_EMAIL": "spec@example.invalid",
        "GIT_COMMITTER_NAME": "Spec", "GIT_COMMITTER_EMAIL": "spec@example.invalid",
    ])
}

/// A new empty folder under the temporary folder, for one spec.
public func temporaryFolder(_ name: String = "docket-spec") -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
    try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
