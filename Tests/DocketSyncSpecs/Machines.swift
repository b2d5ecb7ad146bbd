import Docket
import DocketSpecSupport
import Foundation

// The machines sync specs drive: one store each, driven through the docket
// tool, and the usual set-up of two of them around a bare remote.

/// A machine with a store, driven through the docket tool.
struct Machine {
    let folder: URL
    @discardableResult
    func run(_ arguments: String..., environment: [String: String] = [:]) -> CommandResult {
        docket(arguments, store: folder, environment: environment)
    }
    func id(_ arguments: String...) -> String {
        docket(arguments, store: folder).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
    var state: AppState { (try? Store.open(at: folder).load().state) ?? AppState() }
    @discardableResult
    func git(_ arguments: String...) -> String { gitCLI(arguments, in: folder).stdout }
    var head: String { git("rev-parse", "HEAD").trimmingCharacters(in: .newlines) }
}

/// A bare remote on main, a laptop that cloned it, and a desk that has not yet.
struct TwoMachines {
    let root: URL
    let remote: URL
    let laptop: Machine
    let desk: Machine

    init(_ name: String) {
        root = temporaryFolder(name)
        remote = root.appendingPathComponent("remote.git")
        gitCLI(["init", "-q", "--bare", "-b", "main", remote.path], in: root)
        laptop = Machine(folder: root.appendingPathComponent("laptop"))
        desk = Machine(folder: root.appendingPathComponent("desk"))
        runCommand(docketBinary, ["clone", remote.path, laptop.folder.path])
    }
}
