import ArgumentParser
import Docket
import Foundation

/// The store a command works on.
struct StoreOptions: ParsableArguments {
    @Option(name: .customShort("C"), help: ArgumentHelp("The store's folder (default: $DOCKET_DIR, else ~/.docket).", valueName: "dir"))
    var directory: String?

    /// The folder chosen by -C, DOCKET_DIR, or the default.
    var folder: URL {
        if let directory { return URL(fileURLWithPath: (directory as NSString).expandingTildeInPath) }
        if let env = ProcessInfo.processInfo.environment["DOCKET_DIR"], !env.isEmpty {
            return URL(fileURLWithPath: (env as NSString).expandingTildeInPath)
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".docket")
    }

    /// Opens the store; a folder that does not exist yet (or is empty) becomes a new store, with a notice.
    func open() throws -> Store {
        let folder = self.folder
        let contents = try? FileManager.default.contentsOfDirectory(atPath: folder.path)
        if contents == nil || contents?.isEmpty == true {
            let store = try Store.create(at: folder)
            Output.notice("Created a new Docket store in \(folder.path)")
            return prepared(store, quietly: true)
        }
        return prepared(try Store.open(at: folder))
    }
}

/// The running docket's own path, for git to run as the merge driver.
let docketExecutable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path

/// The store, with git's merge driver set up in its clone when its
/// `.gitattributes` names it and the configuration does not (said once).
func prepared(_ store: Store, quietly: Bool = false) -> Store {
    guard store.mergeDriverNeedsSetup(command: docketExecutable) else { return store }
    do {
        try store.setUpMergeDriver(command: docketExecutable)
        if !quietly {
            Output.notice("Set up git's merge driver in this clone: plain 'git pull' and 'git merge' now merge Docket's files item by item (merge.docket.driver).")
        }
    } catch {
        Output.warning("could not set up git's merge driver (\(error)); plain 'git pull' will merge Docket's files line by line")
    }
    return store
}

/// What every command that reads the whole store does with files that did not read.
func loadWarning(_ snapshot: StoreSnapshot) -> AppState {
    for problem in snapshot.problems {
        Output.warning(problem.warning)
    }
    return snapshot.state
}
