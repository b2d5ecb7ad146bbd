import DocketGit
import DocketSystem
import Foundation

// git's own client hooks (githooks(5)), run around Docket's commits, pushes
// and pulls as git runs them around its own: `pre-commit`,
// `prepare-commit-msg`, `commit-msg` and `post-commit` for a commit,
// `pre-push` for a push, `post-merge` after a pull changed the branch.
// They live in `core.hooksPath`, else the repository's `hooks/` folder; only
// executable files run. `--no-verify` skips `pre-commit`, `commit-msg` and
// `pre-push`, as git's does. Docket's own merge commits run none but
// `post-merge` (git runs its merge hooks only for merges it makes).

/// git's client hooks of one store.
struct GitClientHooks {
    /// The folder they are in.
    let folder: String
    /// Where they run: the store's folder.
    let root: String
    /// The repository's git folder, for their environment.
    let gitdir: String

    /// The executable named `name` in the folder, if any.
    func program(_ name: String) -> String? {
        let path = folder + "/" + name
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    /// Runs hook `name`, if there is one, with `arguments` and `input`, as git
    /// would (in the store's folder, with GIT_DIR and GIT_INDEX_FILE set);
    /// its output is handed to `show`. Nil when there is no such hook.
    func run(_ name: String, _ arguments: [String] = [], input: Data? = nil, show: (HookRun) -> Void) throws -> Int32? {
        guard let program = program(name) else { return nil }
        let outcome = try StoreError.gate(writing: false) {
            try Spawn.run(
                [program] + arguments, input: input,
                environment: [
                    "GIT_DIR": gitdir, "GIT_INDEX_FILE": gitdir + "index", "GIT_EDITOR": ":", "GIT_WORK_TREE": nil,
                ],
                captureErrors: true, folder: root)
        }
        let lines = (outcome.text + outcome.errorText).split(separator: "\n", omittingEmptySubsequences: false).map(
            String.init)
        let output = lines.last == "" ? Array(lines.dropLast()) : lines
        if !output.isEmpty { show(HookRun(event: name, path: program, output: output, problem: nil)) }
        return outcome.status
    }

    /// Runs hook `name` and refuses what it refuses (a status other than 0), naming it.
    func require(
        _ name: String, _ arguments: [String] = [], input: Data? = nil, refusing what: String, show: (HookRun) -> Void
    ) throws {
        guard let status = try run(name, arguments, input: input, show: show), status != 0 else { return }
        throw StoreError.state(.gitHookRefused(hook: name, path: folder + "/" + name, status: status, what: what))
    }
}

extension Store {
    /// git's client hooks of this store: `core.hooksPath` (relative to the store's folder), else the repository's
    /// `hooks/`.
    var gitClientHooks: GitClientHooks {
        get throws {
            let configured = try git.configString("core.hooksPath").map(Home.expand)
            let common = Store.commonDir(gitdir)
            let folder = configured.map { $0.hasPrefix("/") ? $0 : rootPath + "/" + $0 } ?? common + "hooks"
            return GitClientHooks(folder: folder, root: rootPath, gitdir: gitdir)
        }
    }

    /// The message a commit gets once git's `prepare-commit-msg` and `commit-msg` hooks have seen (and maybe changed)
    /// it.
    func messageThroughGitHooks(_ message: String, hooks: GitClientHooks) throws -> String {
        guard hooks.program("prepare-commit-msg") != nil || (verifiesWithGitHooks && hooks.program("commit-msg") != nil)
        else { return message }
        let file = gitdir + "COMMIT_EDITMSG"
        try StoreError.gate(writing: true) { try AtomicFile.write(Data(message.utf8), to: file, durable: false) }
        _ = try hooks.run("prepare-commit-msg", [file, "message"], show: hookReport)
        if verifiesWithGitHooks {
            try hooks.require("commit-msg", [file], refusing: "the commit's message", show: hookReport)
        }
        let edited = try StoreError.gate(writing: false) { try Folder.readFile(file, limit: 1 << 20) }
        let text = String(decoding: edited, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? message : text + "\n"
    }
}
