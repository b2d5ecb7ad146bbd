import ArgumentParser
import Docket
import DocketSystem
import Foundation

struct Clone: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clone",
        abstract: "Copy a store from a git remote to this machine.",
        discussion: """
            Remotes: a local path, file://, git://, ssh:// or user@host:path (through ssh as git runs it: \
            ~/.ssh/config, the agent and known_hosts apply; GIT_SSH_COMMAND and core.sshCommand are honoured), \
            https:// (git's proxy, certificate and credential-helper settings, or $DOCKET_GIT_USERNAME and $DOCKET_GIT_TOKEN).

            Example: docket clone ssh://me@example.org/srv/lists.git ~/lists
            """)

    @Argument(help: "The remote's URL or path.") var url: String
    @Argument(
        help: ArgumentHelp(
            "The new store's folder (default: the one given with -C, else $DOCKET_DIR, else ~/.docket).",
            valueName: "dir")) var directory: String?
    @OptionGroup var store: StoreOptions

    func run() throws {
        let folder = directory.map { URL(fileURLWithPath: Home.expand($0)) } ?? store.folderToCreate
        try Store.refuseGitEnvironment(for: folder)
        let store = prepared(try Store.clone(url: url, into: folder, options: transferOptions()), quietly: true)
        let count = try store.todoIDs().count
        let branch = store.branch.map { $0 == "main" ? "" : ", on its branch \(Output.safe($0))" } ?? ""
        ProgressLine.clear()
        print(
            "Cloned \(Output.safe(RemoteURL.redacted(url))) into \(Output.safe(store.root.path)) (\(count) \(count == 1 ? "todo" : "todos")\(branch))."
        )
    }
}
