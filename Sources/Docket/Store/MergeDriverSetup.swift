import DocketGit
import DocketSystem
import Foundation

// Plain `git merge`, `git pull` and `git rebase` merge the store's files
// with Docket's rules through a merge driver: `.gitattributes` (committed in
// the store) names it for the store's folders, and each clone's
// `.git/config` says which program runs it.
extension Store {
    /// The lines of `.gitattributes` that give the store's files to Docket's merge driver.
    static let mergeAttributes = [
        "# Docket merges its item files item by item and field by field: docket merge-driver (see the README).",
        "todos/** merge=docket",
        "projects/** merge=docket",
        ".docket/** merge=docket",
    ]

    /// The store's `.gitattributes` with Docket's lines added, or nil when it has them already.
    func attributesWithMergeDriver() -> Data? {
        let existing =
            (try? (try? tree)?.read(".gitattributes", limit: Store.maximumFileSize)).flatMap { $0 }.map {
                String(decoding: $0, as: UTF8.self)
            } ?? ""
        let lines = existing.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let missing = Store.mergeAttributes.dropFirst().filter { !lines.contains($0) }
        guard !missing.isEmpty else { return nil }
        var text = existing
        if !text.isEmpty && !text.hasSuffix("\n") { text += "\n" }
        text += Store.mergeAttributes.joined(separator: "\n") + "\n"
        return Data(text.utf8)
    }

    /// Whether the store's `.gitattributes` gives its files to Docket's merge driver.
    public var namesMergeDriver: Bool {
        guard let data = try? (try? tree)?.read(".gitattributes", limit: Store.maximumFileSize) else { return false }
        return String(decoding: data, as: UTF8.self).contains("merge=docket")
    }

    /// Where this clone notes which program its merge driver runs.
    var mergeDriverNote: String { gitdir + "docket/merge-driver" }

    /// Whether the repository's configuration lacks a driver running `command`
    /// while `.gitattributes` names it (read from a note, without starting libgit2).
    package func mergeDriverNeedsSetup(command: String) -> Bool {
        guard namesMergeDriver else { return false }
        let note = (try? Folder.readFile(mergeDriverNote, limit: 1 << 16)).map { String(decoding: $0, as: UTF8.self) }
        return note != Store.driverLine(command) + "\n"
    }

    /// Sets `merge.docket.driver` (and its name) in the repository's own
    /// configuration to run `command`, unless it runs something else than a
    /// docket's driver: a driver the user chose (a wrapper, say) is kept.
    /// Returns whether it was set.
    @discardableResult
    package func setUpMergeDriver(command: String) throws -> Bool {
        let line = Store.driverLine(command)
        let current = try git.configString("merge.docket.driver")
        let set = current == nil || current.map(Store.isDocketDriverLine) == true
        if set {
            try git.setConfig("merge.docket.name", to: "Docket's item-by-item merge")
            try git.setConfig("merge.docket.driver", to: line)
        }
        try StoreError.gate(writing: true) {
            try AtomicFile.write(Data((line + "\n").utf8), to: mergeDriverNote, durable: false)
        }
        return set
    }

    /// The store, with git's merge driver set up to run the `docket` found on the PATH when this clone has none
    /// (as `docket init` and `docket clone` set it up), so plain `git pull` merges item by item in a store made
    /// through the library. Without a `docket` on the PATH nothing is set: git then merges the files as text,
    /// which a driver it cannot run would not.
    func withMergeDriverFromPath() -> Store {
        guard let program = Store.docketOnPath(), mergeDriverNeedsSetup(command: program),
            !FileManager.default.fileExists(atPath: mergeDriverNote)
        else { return self }
        _ = try? setUpMergeDriver(command: program)
        return self
    }

    /// The first executable `docket` on the PATH, links resolved.
    static func docketOnPath() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for folder in path.split(separator: ":") where !folder.isEmpty {
            let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent("docket")
            if FileManager.default.isExecutableFile(atPath: candidate.path) {
                return candidate.resolvingSymlinksInPath().path
            }
        }
        return nil
    }

    /// Whether a configured driver is one a docket set up: a program, then `merge-driver %O %A %B %P`.
    static func isDocketDriverLine(_ line: String) -> Bool {
        guard line.hasSuffix(" merge-driver %O %A %B %P") else { return false }
        let program = line.dropLast(" merge-driver %O %A %B %P".count).trimmingCharacters(
            in: CharacterSet(charactersIn: "'"))
        return program.split(separator: "/").last == "docket"
    }

    /// The driver's command line: the program's absolute path (quoted when it
    /// has spaces or quotes), then git's placeholders, unquoted.
    static func driverLine(_ command: String) -> String {
        let safe = command.allSatisfy { $0.isLetter || $0.isNumber || "/._-+".contains($0) }
        let program = safe ? command : "'" + command.replacingOccurrences(of: "'", with: "'\\''") + "'"
        return program + " merge-driver %O %A %B %P"
    }
}
