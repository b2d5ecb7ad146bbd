import DocketGit
import DocketModel
import DocketSystem
import Foundation

/// A file a remote brought that Docket could not take in (it does not decode, is of the wrong kind, or sits where
/// no file may), set aside instead of stopping the pull: the item keeps this machine's last good version, or stays
/// absent when this machine never had one; the file stays in the history, in the commit that brought it.
///
/// A pull that sets files aside makes a commit on top of the remote's that puts this machine's versions back, so
/// the next push carries them and every machine converges. The commit's message records each file; `docket merges`
/// shows it. On this machine the record stays until it is settled: by the next edit of the item, on any machine,
/// or by `docket merges restore`.
public struct SetAsideFile: Codable, Equatable, Sendable {
    /// The file's path in the store.
    public let path: String
    /// Why it was not taken in.
    public let reason: String
    /// The commit that brought it.
    public let commit: String
    /// What that commit holds at the path (for `git show`); nil when it removed the file (the store's format).
    public let object: String?
    /// The blob this machine kept in its place; nil when it had none, and the path was left empty.
    public let kept: String?

    /// One line: what was set aside, from where, why, and what stands in its place.
    public var line: String {
        SetAsideHistory.oneLine(path) + " from \(ObjectID(hex: commit) == nil ? commit : String(commit.prefix(7))) "
            + SetAsideHistory.oneLine(reason) + "; "
            + (kept == nil ? "left out, as this machine never had it" : "kept this machine's version")
    }
}

/// A commit that set files aside, as `docket merges` shows it.
public struct SetAsideRecord: Encodable, Sendable {
    /// The commit that set the files aside.
    public let commit: String
    /// When it was made.
    @MillisecondDate public var date: Date
    /// The files it set aside.
    public let files: [SetAsideFile]
}

enum SetAsideHistory {
    /// The trailer that carries a set-aside commit's files.
    static let trailer = "Docket-Set-Aside: "

    /// "Set aside 2 files from origin/main that docket cannot take in", one line per file, and the files as a trailer.
    static func message(_ files: [SetAsideFile], from remoteBranch: String) -> String {
        let count = files.count == 1 ? "1 file" : "\(files.count) files"
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = (try? encoder.encode(files)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
        return
            (["Set aside \(count) from \(remoteBranch) that docket cannot take in", ""]
            + files.map { "- " + oneLine($0.line) } + ["", trailer + json, ""])
            .joined(separator: "\n")
    }

    /// `text` with control characters (a newline a file's name or value brought, say) as spaces.
    static func oneLine(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : $0 }))
    }

    /// The files a commit's message says it set aside; nil when it set none aside.
    static func files(in message: String) -> [SetAsideFile]? {
        guard let line = message.split(separator: "\n").last(where: { $0.hasPrefix(trailer) }) else { return nil }
        return try? JSONDecoder().decode([SetAsideFile].self, from: Data(line.dropFirst(trailer.count).utf8))
    }
}

extension StoreGit {
    /// `theirs`, or a commit on top of it in which every file since `base` that Docket cannot take in (see
    /// `IntakeCheck`), and a store format file removed or damaged, is set aside: replaced by `ours`'s version, or
    /// removed where `ours` has none. The files set aside come back too (empty when none).
    func settingAside(_ theirs: ObjectID, ours: ObjectID?, since base: ObjectID?, remoteBranch: String) throws -> (
        commit: ObjectID, files: [SetAsideFile]
    ) {
        let git = self
        let theirTree = try git.tree(ofCommit: theirs)
        // A newer docket's format is refused whole, as `refuseNewerFormat` says, not set aside.
        let theirFormat = try format(in: theirs)
        if let found = theirFormat.format, found > Store.format {
            throw StoreError.state(.newerFormatInCommit(commit: theirs.short, found: found))
        }
        let ourTree = try ours.map { try git.tree(ofCommit: $0) }
        var refused: [(path: String, reason: String, commit: ObjectID)] = []
        for refusal in try IntakeCheck(git: git).refusals(in: theirs, since: base) {
            // A file inside a folder at an item's path: the item's path is what is set aside (its folder whole), so
            // the item is not taken as removed.
            let parts = refusal.path.split(separator: "/", omittingEmptySubsequences: false)
            let itemPath = (1..<max(1, parts.count)).lazy.map { parts[..<$0].joined(separator: "/") }.first {
                StoreLayout.item(at: $0) != .other
            }
            let path = itemPath ?? refusal.path
            guard !refused.contains(where: { $0.path == path }) else { continue }
            refused.append(
                (path, itemPath == nil ? refusal.reason : "is a folder where the item's file belongs", refusal.commit))
        }
        // The store's format describes the whole store: a newer one is refused whole (`refuseNewerFormat`), but one
        // removed or damaged never turns this store into a folder that is no store.
        if let ourTree, let ourFormat = try git.entry(inTree: ourTree, at: StoreLayout.format),
            try git.entry(inTree: base.map { try git.tree(ofCommit: $0) } ?? ourTree, at: StoreLayout.format)
                != git.entry(inTree: theirTree, at: StoreLayout.format)
        {
            if let reason = theirFormat.problem,
                try git.entry(inTree: theirTree, at: StoreLayout.format)?.id != ourFormat.id,
                !refused.contains(where: { $0.path == StoreLayout.format })
            {
                refused.append((StoreLayout.format, reason, try introducer(ofFormat: theirs, since: base)))
            }
        }
        guard !refused.isEmpty else { return (theirs, []) }
        var files: [SetAsideFile] = []
        var removing: [String] = []
        var setting: [String: ObjectID] = [:]
        for refusal in refused.sorted(by: { $0.path < $1.path }) {
            let theirEntry = try git.entry(inTree: theirTree, at: refusal.path)
            // This machine's version, where it is one Docket takes in (a plain file).
            let own = try ourTree.flatMap { try git.entry(inTree: $0, at: refusal.path) }.flatMap {
                $0.mode == .file || $0.mode == .executable ? $0.id : nil
            }
            if theirEntry != nil { removing.append(refusal.path) }
            if let own { setting[refusal.path] = own }
            files.append(
                SetAsideFile(
                    path: refusal.path, reason: refusal.reason, commit: refusal.commit.description,
                    object: theirEntry?.id.description, kept: own?.description))
        }
        let tree = try git.tree(theirTree, removing: removing, setting: setting)
        let commit = try git.commit(
            tree: tree, parents: [theirs], message: SetAsideHistory.message(files, from: remoteBranch))
        return (commit, files)
    }

    /// The store format `commit` names, read as every store file is read (a regular file, within the size limit);
    /// or why its format file cannot stand (it is gone, no file, too large, or does not decode).
    private func format(in commit: ObjectID) throws -> (format: Int?, problem: String?) {
        let source = try CommitSource(git: self, commit: commit)
        let data: Data
        do {
            data = try source.read(StoreLayout.format)
        } catch FileProblem.missing {
            return (nil, "removes the store's format file, which marks the folder as a store")
        } catch let problem as FileProblem {
            return (nil, problem.description)
        }
        do {
            return (try DocketJSON.decode(FormatFile.self, from: data).format, nil)
        } catch {
            return (nil, "does not decode (\(decodingReason(error)))")
        }
    }

    /// The newest commit since `base` whose format file differs from its first parent's.
    private func introducer(ofFormat target: ObjectID, since base: ObjectID?) throws -> ObjectID {
        let git = self
        let now = try git.entry(inTree: try git.tree(ofCommit: target), at: StoreLayout.format)
        for commit in try git.commits(from: target, excluding: base.map { [$0] } ?? [], limit: 10_000) {
            guard try git.entry(inTree: try git.tree(ofCommit: commit), at: StoreLayout.format) == now else { continue }
            let parents = try git.parents(of: commit)
            let parentsHoldIt = try parents.contains {
                try git.entry(inTree: try git.tree(ofCommit: $0), at: StoreLayout.format) == now
            }
            if !parentsHoldIt { return commit }
        }
        return target
    }

}

extension Store {
    /// The file on this machine that lists what pulls set aside and is not settled yet.
    static let setAsideFile = "set-aside.json"

    /// Adds `files`, to this machine's record of files not settled yet.
    func noteSetAside(_ files: [SetAsideFile]) {
        // NB: a format file set aside is settled as it is set aside: this machine's stands, and no edit follows.
        let files = files.filter { $0.path != StoreLayout.format }
        guard !files.isEmpty else { return }
        let known = (try? recordedSetAside()) ?? []
        let kept = known.filter { old in !files.contains { $0.path == old.path } } + files
        if let data = try? DocketJSON.encode(kept) {
            try? writeLocalText(String(decoding: data, as: UTF8.self), to: Self.setAsideFile)
        }
    }

    /// Notes a file git's merge driver set aside: `unreadable` did not read, `kept` stands in its place.
    public func noteSetAsideByDriver(path: String, reason: String, commit: String?, unreadable: Data, kept: Data) {
        noteSetAside([
            SetAsideFile(
                path: path, reason: reason, commit: commit ?? "the merge",
                object: (try? Repository.blobID(of: unreadable))?.description,
                kept: (try? Repository.blobID(of: kept))?.description)
        ])
    }

    private func recordedSetAside() throws -> [SetAsideFile] {
        guard let text = try localText(Self.setAsideFile) else { return [] }
        return (try? DocketJSON.decode([SetAsideFile].self, from: Data(text.utf8))) ?? []
    }

    /// The files pulls set aside on this machine that are not settled yet: the item at each path is still what
    /// this machine kept in its place. A file settled since (the item was edited, here or on another machine, or
    /// restored) leaves the record.
    public func setAsideFiles() throws -> [SetAsideFile] {
        let recorded = try recordedSetAside()
        guard !recorded.isEmpty else { return [] }
        let tree = try git.head().map { try git.tree(ofCommit: $0) }
        let open = try recorded.filter { file in
            let now = try tree.flatMap { try git.entry(inTree: $0, at: file.path) }
            return now?.id.description == file.kept
        }
        if open.count != recorded.count {
            if open.isEmpty {
                removeLocalFile(Self.setAsideFile)
            } else if let data = try? DocketJSON.encode(open) {
                try? writeLocalText(String(decoding: data, as: UTF8.self), to: Self.setAsideFile)
            }
        }
        return open
    }

    /// Settles the set-aside file at `path`: this machine's version stands, and the record goes.
    func settleSetAside(path: String) {
        guard let recorded = try? recordedSetAside(), recorded.contains(where: { $0.path == path }) else { return }
        let open = recorded.filter { $0.path != path }
        if open.isEmpty {
            removeLocalFile(Self.setAsideFile)
        } else if let data = try? DocketJSON.encode(open) {
            try? writeLocalText(String(decoding: data, as: UTF8.self), to: Self.setAsideFile)
        }
    }

    /// The commits that set files aside, newest first.
    public func setAsideRecords(limit: Int, scanning: Int = 10_000) throws -> [SetAsideRecord] {
        guard let head = try git.head() else { return [] }
        return try git.log(from: head, limit: limit, scanning: scanning) {
            SetAsideHistory.files(in: $0.message) != nil
        }.map {
            SetAsideRecord(commit: $0.id.description, date: $0.date, files: SetAsideHistory.files(in: $0.message)!)
        }
    }
}
