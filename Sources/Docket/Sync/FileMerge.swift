import DocketGit
import DocketMerge
import DocketModel
import DocketSystem
import Foundation

/// Docket's merge of one store file, as git's merge driver runs it: the
/// file's base, ours and theirs versions in, the merged file out, with the
/// decisions taken. Pure: it reads and writes no file.
public enum FileMerge {
    /// What merging one file gave.
    public enum Outcome: Equatable {
        /// The merged file's text, and what the merge decided.
        case merged(Data, MergeReport)
        /// The versions are not Docket items (or one does not read): git's own merge must do.
        case notItems(reason: String)
    }

    /// Merges the three versions of the store file at `path` (`base` is nil when it was added on both sides).
    ///
    /// With the dates of the commits that hold each side (`dates`), a side
    /// that changed the item since the base without moving its alterDate (an
    /// edit by hand or another tool, committed with git) is dated as made at
    /// its commit, as Docket's own merge dates it.
    public static func merge(
        path: String, base: Data?, ours: Data, theirs: Data, dates: (ours: Date, theirs: Date)? = nil
    ) -> Outcome {
        let kind = StoreLayout.item(at: path)
        guard kind != .other else { return .notItems(reason: "\(path) is not a Docket item's file") }
        let sides: [StoredItem?]
        do {
            // NB: a base that does not read (a file set aside on both sides) is taken as none, as Docket's merge takes it.
            sides = [
                base.flatMap { try? StoredItem.decode($0, at: kind) }, try StoredItem.decode(ours, at: kind),
                try StoredItem.decode(theirs, at: kind),
            ]
        } catch let error as StoredItem.Unreadable {
            return .notItems(reason: "\(path) \(error.reason)")
        } catch {
            return .notItems(reason: "\(path): \(error)")
        }
        var (b, o, t) = (sides[0], sides[1]!, sides[2]!)
        if let b, let dates {
            o = o.stampedIfHandEdited(since: b, now: dates.ours) ?? o
            t = t.stampedIfHandEdited(since: b, now: dates.theirs) ?? t
        }
        let merged: StoredItem
        var report = MergeReport(items: [])
        switch (o, t) {
        case let (.todo(ours), .todo(theirs)):
            let result = DocketMerge.merge(
                base: b?.todo.map { AppState(todos: [$0], projects: [], removed: []) },
                ours: AppState(todos: [ours], projects: [], removed: []),
                theirs: AppState(todos: [theirs], projects: [], removed: []))
            merged = .todo(result.state.todos.first ?? ours)
            report = result.report
        case let (.project(ours, op), .project(theirs, tp)):
            let result = DocketMerge.merge(
                base: b?.project.map { AppState(todos: [], projects: [$0], removed: []) },
                ours: AppState(todos: [], projects: [ours], removed: []),
                theirs: AppState(todos: [], projects: [theirs], removed: []))
            merged = .header(result.state.projects.first ?? ours, position: pick(b?.position, op, tp))
            report = result.report
        case let (.task(ours, project, op), .task(theirs, _, tp)):
            func holding(_ task: ProjectTask) -> AppState {
                AppState(
                    todos: [], projects: [Project(id: project, title: "", tasks: [task], alterDate: nil)], removed: [])
            }
            let result = DocketMerge.merge(base: b?.task.map(holding), ours: holding(ours), theirs: holding(theirs))
            merged = .task(
                result.state.projects.first?.task(id: ours.id) ?? ours, project: project,
                position: pick(b?.position, op, tp))
            report = result.report
        case let (.tombstone(ours), .tombstone(theirs)):
            merged = .tombstone(ours.removedDate >= theirs.removedDate ? ours : theirs)
        case let (.format(ours), .format(theirs)):
            merged = .format(max(ours, theirs))
        default:
            return .notItems(reason: "\(path) holds different kinds of item on the two sides")
        }
        do {
            return .merged(try merged.text(keeping: unknownKeys(base: base, ours: ours, theirs: theirs)), report)
        } catch {
            return .notItems(reason: "\(path): \(error)")
        }
    }

    /// Merges the three files git hands its driver (`%O %A %B`) for the store
    /// file at `path`, each read as a store file is: no link, at most
    /// `Store.maximumFileSize`. An empty or missing base is a file added on both sides.
    public static func merge(
        path: String, baseFile: String, oursFile: String, theirsFile: String,
        dates: (ours: Date, theirs: Date)? = nil
    ) -> Outcome {
        let base = try? Folder.readFile(baseFile, limit: Store.maximumFileSize)
        do {
            let ours = try Folder.readFile(oursFile, limit: Store.maximumFileSize)
            let theirs = try Folder.readFile(theirsFile, limit: Store.maximumFileSize)
            return merge(
                path: path, base: base?.isEmpty == false ? base : nil, ours: ours, theirs: theirs, dates: dates)
        } catch {
            return .notItems(reason: "\(path): \(error)")
        }
    }

    /// When exactly one side of an item's file reads, that side, and why the other does not: a merge never takes in
    /// what docket cannot read (the other side is set aside, as a pull sets it aside); nil otherwise.
    public static func readableSide(path: String, ours: Data, theirs: Data) -> (keepsOurs: Bool, reason: String)? {
        guard StoreLayout.item(at: path) != .other else { return nil }
        func problem(_ data: Data) -> String? {
            do {
                _ = try StoredItem.decode(data, at: StoreLayout.item(at: path))
                return nil
            } catch let error as StoredItem.Unreadable {
                return error.reason
            } catch {
                return "does not decode (\(error))"
            }
        }
        switch (problem(ours), problem(theirs)) {
        case (nil, let reason?): return (true, reason)
        case (let reason?, nil): return (false, reason)
        default: return nil
        }
    }

    /// The one commit git names in `GITHEAD_<id>` as the one it merges in, if it names one.
    public static func mergedCommit(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        let named = environment.keys.filter { $0.hasPrefix("GITHEAD_") }.map { String($0.dropFirst(8)) }
        return named.count == 1 ? named[0] : nil
    }

    /// The dates of the two commits git is merging, for the driver to date hand edits as Docket's merge does:
    /// HEAD's, and that of the one commit git names in `GITHEAD_<id>` (what `git merge` and `git pull` merge);
    /// nil when git names none, or not one.
    public static func sideDates(
        inRepositoryAt folder: String, environment: [String: String] = ProcessInfo.processInfo.environment
    )
        -> (ours: Date, theirs: Date)?
    {
        let named = environment.keys.filter { $0.hasPrefix("GITHEAD_") }.compactMap {
            ObjectID(hex: String($0.dropFirst(8)))
        }
        guard named.count == 1, let repository = try? Repository.open(at: folder), let head = try? repository.head(),
            let ours = try? repository.commitInfo(head), let theirs = try? repository.commitInfo(named[0])
        else { return nil }
        return (ours.date, theirs.date)
    }

    /// Whether git runs the driver in a merge that ends in a merge commit
    /// (`git merge` without `--squash`, and the merge `git pull` runs), where
    /// `docket merges` works the driver's decisions out again from the
    /// commit's parents. Anything else replays changes without such a commit
    /// (cherry-pick, revert, rebase, am, `stash apply`/`pop`, `merge --squash`,
    /// `checkout -m`, `merge-tree`), and a value the driver discarded there
    /// would be lost without a record.
    ///
    /// NB: git tells a driver nothing of what runs it; the nearest git process
    /// above this one says (its command line, in /proc). Where that cannot be
    /// read, or names anything else (an alias, say), the answer is no: git is
    /// stopped on the file, and `docket sync` finishes with a record.
    public static func runsInsideMergeCommit() -> Bool {
        var pid = getppid()
        for _ in 0..<4 {
            guard pid > 1, let arguments = commandLine(of: pid) else { return false }
            let program = arguments.first.map { $0.split(separator: "/").last.map(String.init) ?? $0 } ?? ""
            if program == "git" {
                let command = gitSubcommand(Array(arguments.dropFirst()))
                return command.first == "merge" && !command.contains("--squash")
            }
            guard let parent = parentProcess(of: pid) else { return false }
            pid = parent
        }
        return false
    }

    /// A git command line's subcommand and its arguments, past git's own options (`-C dir`, `-c name=value`,
    /// `--no-pager`…).
    static func gitSubcommand(_ arguments: [String]) -> [String] {
        var i = 0
        while i < arguments.count, arguments[i].hasPrefix("-") {
            i +=
                ["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env"].contains(
                    arguments[i]) ? 2 : 1
        }
        return Array(arguments.dropFirst(min(i, arguments.count)))
    }

    /// The command line of process `pid`, from /proc.
    private static func commandLine(of pid: pid_t) -> [String]? {
        guard let data = try? Folder.readFile("/proc/\(pid)/cmdline", limit: 1 << 16), !data.isEmpty else { return nil }
        return data.split(separator: 0, omittingEmptySubsequences: false).dropLast().map {
            String(decoding: $0, as: UTF8.self)
        }
    }

    /// The parent of process `pid`, from /proc (the field after the command's name, which may hold spaces and
    /// parentheses).
    private static func parentProcess(of pid: pid_t) -> pid_t? {
        guard let data = try? Folder.readFile("/proc/\(pid)/stat", limit: 1 << 12) else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        return fields.count > 1 ? pid_t(fields[1]) : nil
    }

    /// git's line merge of three files into `ours` (`git merge-file`), with
    /// conflict markers where both sides changed the same lines: for files
    /// that are not Docket items. Returns whether it merged without conflicts.
    public static func textMerge(ours: String, base: String, theirs: String) -> Bool {
        (try? Spawn.run(["git", "merge-file", "-L", "ours", "-L", "base", "-L", "theirs", ours, base, theirs]).status)
            == 0
    }

    /// An order key merged three ways: the side that changed it, else the greater.
    private static func pick(_ base: Int??, _ ours: Int?, _ theirs: Int?) -> Int? {
        let base = base ?? nil
        if ours == theirs || base == theirs { return ours }
        if base == ours { return theirs }
        return max(ours ?? .min, theirs ?? .min)
    }

    /// A file holding the keys Docket does not know from either side, merged three ways key by key.
    private static func unknownKeys(base: Data?, ours: Data, theirs: Data) -> Data? {
        func object(_ data: Data?) -> [String: JSONValue] {
            data.flatMap { try? JSONDecoder().decode([String: JSONValue].self, from: $0) } ?? [:]
        }
        let (b, o, t) = (object(base), object(ours), object(theirs))
        var merged = o
        for key in Set(o.keys).union(t.keys) {
            let (bv, ov, tv) = (b[key], o[key], t[key])
            if ov == tv || bv == tv { continue }
            if bv == ov {
                merged[key] = tv
                continue
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let oText = ov.flatMap { try? encoder.encode($0) }.map { String(decoding: $0, as: UTF8.self) } ?? ""
            let tText = tv.flatMap { try? encoder.encode($0) }.map { String(decoding: $0, as: UTF8.self) } ?? ""
            merged[key] = oText >= tText ? ov : tv
        }
        return try? JSONEncoder().encode(merged)
    }
}

extension StoredItem {
    /// The order key a project or task file carries.
    var position: Int? {
        switch self {
        case let .project(_, position), let .task(_, _, position): position
        default: nil
        }
    }
}
