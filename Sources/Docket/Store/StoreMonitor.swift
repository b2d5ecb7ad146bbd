import DocketGit
import DocketSystem
import Foundation

// `docket monitor`: a process that watches the store so status and commit
// look only where something changed (see `ChangeMonitor`).
extension Store {
    /// The folder of the monitor's socket, lock and log.
    var monitorHome: String { gitdir + "docket" }

    /// Whether the store's change monitor is on (`docket.monitor` in git's configuration).
    public var monitorIsOn: Bool {
        get throws { try git.repository.monitorsChanges }
    }

    /// Lets a repository start a monitor when the monitor is on and none answers.
    func useChangeMonitor(_ repository: Repository) {
        guard repository.startChangeMonitor == nil, let program = changeMonitorProgram else { return }
        let root = rootPath
        repository.startChangeMonitor = {
            Spawn.detached(executable: program, name: "docket", ["-C", root, "monitor", "run", "--background"])
        }
    }

    /// The monitor's folder when the monitor is on (another process may have turned it on or off since the store was
    /// opened: the setting is read again when git's configuration changed); nil when it is off.
    func monitorFolderIfOn() throws -> String? {
        try git.repository.monitorsChanges ? monitorHome : nil
    }

    /// Turns the monitor on or off in the store's configuration (it is started or stopped separately).
    public func setMonitor(on: Bool) throws {
        try StoreError.gate(writing: true) { try git.repository.setConfig("docket.monitor", to: on ? "true" : "false") }
    }

    /// What the running monitor says of itself, or nil when none runs.
    package var runningMonitor: String? { ChangeMonitor.describe(in: monitorHome) }

    /// Why the last monitor started in the background stopped or could not start, if it said.
    public var monitorProblem: String? {
        guard let data = try? Folder.readFile(monitorHome + "/monitor.log", limit: 1 << 16) else { return nil }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").last.map(String.init)
    }

    /// Starts the monitor in the background with `program` (this docket) and
    /// waits up to 5 s until it answers; false when it did not.
    package func startMonitor(program: String) -> Bool {
        if runningMonitor != nil { return true }
        Spawn.detached(executable: program, name: "docket", ["-C", rootPath, "monitor", "run", "--background"])
        for _ in 0..<250 {
            if runningMonitor != nil { return true }
            usleep(20_000)
        }
        return false
    }

    /// Stops the running monitor; false when none ran.
    @discardableResult
    package func stopMonitor() -> Bool { ChangeMonitor.stop(in: monitorHome) }

    /// Runs the monitor in this process until it is stopped. In the
    /// `background`, why it stops early is written to `.git/docket/monitor.log` instead of thrown.
    package func runMonitor(background: Bool) throws {
        try StoreError.gate(writing: true) { try AtomicFile.makeFolders(monitorHome) }
        let log = monitorHome + "/monitor.log"
        do {
            let run = try ChangeMonitorRun(root: rootPath, folders: StoreLayout.folders, home: monitorHome)
            if background { unlink(log) }
            run.run()
        } catch ChangeMonitorRun.Failure.running where background {
            return
        } catch {
            guard background else { throw error }
            try? AtomicFile.write(
                Data("\(ISO8601DateFormatter().string(from: Date())) The change monitor stopped: \(error)\n".utf8),
                to: log, durable: false)
        }
    }
}
