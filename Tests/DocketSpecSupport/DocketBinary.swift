import Foundation

/// The built `docket` tool, beside the test runner in the build folder.
public let docketBinary: String = {
    let runner = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for folder in [runner, runner.deletingLastPathComponent()] {
        let candidate = folder.appendingPathComponent("docket").path
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    fatalError("the docket tool is not built next to \(runner.path); run 'swift build --build-tests' first")
}()

/// Runs `docket` with the store in `folder` (through DOCKET_DIR) and waits for it.
@discardableResult
public func docket(_ arguments: String..., store folder: URL, environment: [String: String] = [:]) -> CommandResult {
    docket(arguments, store: folder, environment: environment)
}

/// Runs `docket` with these arguments and the store in `folder`, from the working folder `cwd` (the test's own by
/// default).
@discardableResult
public func docket(_ arguments: [String], store folder: URL, environment: [String: String] = [:], in cwd: URL? = nil)
    -> CommandResult
{
    runCommand(
        docketBinary, arguments, in: cwd,
        environment: ["DOCKET_DIR": folder.path].merging(environment) { _, new in new })
}

/// A new store in a new folder, made as a user makes one (`docket init`).
public func temporaryStore(_ name: String = "docket-spec") -> URL {
    let folder = temporaryFolder(name)
    let made = runCommand(docketBinary, ["init", folder.path])
    precondition(made.status == 0, "docket init failed: \(made.stderr)")
    return folder
}
