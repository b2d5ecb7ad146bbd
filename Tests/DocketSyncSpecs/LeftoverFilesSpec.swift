import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// Runs docket as a process that got the pid of one killed while writing a pack: a read-only unfinished pack named
/// with that pid (as docket named them, `tmp_docket_<pid>.pack`) is put into each of `packFolders` first, then the
/// shell that put them there becomes docket (`exec` keeps the pid), as in a container, where docket gets the same pid
/// each run. Run as root, docket runs without the power to write read-only files, as any other user would.
private func asHeirOfKilledWriter(_ machine: Machine, _ arguments: [String], packFolders: [URL]) -> CommandResult {
    let plant = #"for folder in "$@"; do install -m 0444 /dev/null "$folder/tmp_docket_$$.pack"; done; "#
    // NB: where even root may not drop a power (a container without CAP_SETPCAP), docket runs with it.
    let drops = getuid() == 0 && runCommand("setpriv", ["--bounding-set=-dac_override", "true"]).status == 0
    let become = drops ? "exec setpriv --bounding-set=-dac_override " : "exec "
    let command = ([docketBinary] + arguments).map { "'\($0)'" }.joined(separator: " ")
    return runCommand(
        "/bin/sh", ["-c", plant + become + command, "sh"] + packFolders.map(\.path),
        in: machine.folder, environment: ["DOCKET_DIR": machine.folder.path])
}

/// The unfinished packs in a pack folder.
private func leftovers(_ folder: URL) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasPrefix("tmp_") }
}

/// Temporary files that a killed docket left are never in a later one's way, and go.
final class LeftoverFilesSpec: QuickSpec {
    override class func spec() {
        var machines: TwoMachines!
        beforeEach { machines = TwoMachines("docket-leftovers") }
        afterEach { try? FileManager.default.removeItem(at: machines.root) }
        let packs = { (repository: URL) in repository.appendingPathComponent("objects/pack") }

        it("a large commit, a push and a fetch get past the unfinished pack of a killed docket that had their pid") {
            let laptopPacks = packs(machines.laptop.folder.appendingPathComponent(".git"))
            let deskPacks = packs(machines.desk.folder.appendingPathComponent(".git"))
            // The remote's branch exists: docket pushes to it by itself, not through git receive-pack.
            machines.laptop.run("add", "First")
            expect(machines.laptop.run("sync").status) == 0
            expect(runCommand(docketBinary, ["clone", machines.remote.path, machines.desk.folder.path]).status) == 0
            try! (1...150).map { "Task \($0)" }.joined(separator: "\n")
                .write(to: machines.root.appendingPathComponent("todo.txt"), atomically: true, encoding: .utf8)

            // 150 new files: the commit writes their blobs as one pack.
            let imported = asHeirOfKilledWriter(
                machines.laptop, ["import", "todotxt", machines.root.appendingPathComponent("todo.txt").path],
                packFolders: [laptopPacks])
            expect(imported.stderr) == ""
            expect(imported.status) == 0
            // More than 100 objects to the folder remote: pushed as one pack.
            let pushed = asHeirOfKilledWriter(machines.laptop, ["sync"], packFolders: [packs(machines.remote)])
            expect(pushed.stderr) == ""
            expect(pushed.status) == 0
            // And fetched from it as one pack.
            let pulled = asHeirOfKilledWriter(machines.desk, ["pull"], packFolders: [deskPacks])
            expect(pulled.stderr) == ""
            expect(pulled.status) == 0

            expect(machines.desk.state.todos.count) == 151
            for folder in [laptopPacks, packs(machines.remote), deskPacks] {
                expect(leftovers(folder)).to(equal([]), description: folder.path)
            }
            expect(gitCLI(["fsck", "--strict"], in: machines.desk.folder).status) == 0
        }
    }
}
