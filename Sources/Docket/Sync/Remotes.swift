import DocketGit
import Foundation

extension Store {
    /// The configured remotes.
    public func remotes() throws -> [RemoteInfo] { try git.remotes() }

    /// Adds a remote.
    public func addRemote(_ name: String, url: String) throws {
        if try remotes().contains(where: { $0.name == name }) { throw StoreError.input(.remoteExists(name)) }
        try git.addRemote(name, url: url)
    }

    /// Removes a remote.
    public func removeRemote(_ name: String) throws {
        guard try remotes().contains(where: { $0.name == name }) else { throw StoreError.input(.unknownRemote(name)) }
        try git.removeRemote(name)
    }

    /// The remote to use: the one named, else origin, else the only one.
    public func remoteName(_ name: String?) throws -> String {
        let all = try remotes().map(\.name)
        if let name {
            guard all.contains(name) else { throw StoreError.input(.unknownRemote(name)) }
            return name
        }
        if all.contains("origin") { return "origin" }
        if all.count == 1 { return all[0] }
        throw all.isEmpty ? StoreError.state(.noRemote) : StoreError.input(.unknownRemote("origin"))
    }

    /// Clones the store at `url` into `folder`; an empty remote becomes a new store there.
    public static func clone(url: String, into folder: URL, options: TransferOptions = .fromEnvironment()) throws -> Store {
        let path = folder.standardizedFileURL.path
        if let contents = try? FileManager.default.contentsOfDirectory(atPath: path), !contents.isEmpty {
            throw StoreError.input(.folderNotEmpty(path))
        }
        let repository: Repository
        do {
            repository = try StoreError.gate(writing: true) { try Repository.clone(url: url, to: path, options: options) }
        } catch {
            try? FileManager.default.removeItem(atPath: path)
            throw error
        }
        let git = StoreGit(repository: repository)
        if try git.head() == nil {
            // NB: a bare remote made by 'git init --bare' may name a HEAD branch
            // that does not exist (master); take its main branch, or its only one.
            let branches = try git.references(startingWith: "refs/remotes/origin/").filter { $0.key != "refs/remotes/origin/HEAD" }
            let chosen = branches["refs/remotes/origin/main"].map { ("main", $0) }
                ?? (branches.count == 1 ? branches.first.map { (String($0.key.dropFirst("refs/remotes/origin/".count)), $0.value) } : nil)
            if let (name, commit) = chosen {
                try git.setReference("refs/heads/\(name)", to: commit, message: "docket: clone")
                try git.setHead("refs/heads/\(name)")
                try git.checkout(commit)
                try git.noteIndexHolds(try git.tree(ofCommit: commit))
                return try open(at: folder)
            }
            // An empty remote: start the store here, on main, as 'docket init' would.
            try git.setHead("refs/heads/main")
            return try create(at: folder)
        }
        // A fresh clone's index was just made from HEAD's tree.
        try git.noteIndexHolds(try git.tree(ofCommit: try git.head()!))
        return try open(at: folder)
    }
}
