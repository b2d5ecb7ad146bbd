import ArgumentParser
import Docket
import DocketSystem
import Foundation

struct Init: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Make a folder a Docket store (a git repository with Docket's files).",
        discussion: "Example: docket init ~/lists")

    @Argument(
        help: ArgumentHelp(
            "The folder (default: the one given with -C, else $DOCKET_DIR, else ~/.docket).", valueName: "dir"))
    var directory: String?
    @OptionGroup var store: StoreOptions

    func run() throws {
        let folder = directory.map { URL(fileURLWithPath: Home.expand($0)) } ?? store.folderToCreate
        try Store.refuseGitEnvironment(for: folder)
        let existed = (try? Store.open(at: folder)) != nil
        let store = prepared(try Store.create(at: folder), quietly: true)
        if existed {
            let added = try store.addMergeAttributes()
            _ = prepared(store, quietly: true)
            print(
                "\(Output.safe(store.root.path)) is already a Docket store"
                    + (added ? "; git's merge driver is now set up for it" : ""))
        } else {
            print("Created a Docket store in \(Output.safe(store.root.path))")
        }
    }
}
