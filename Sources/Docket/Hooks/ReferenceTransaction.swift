import DocketGit
import Foundation

// git's `reference-transaction` hook (githooks(5)), run around the moves of
// the branch Docket makes itself as git runs it around its own: `prepared`
// once the move is decided (a status other than 0 refuses it, and the hook
// then hears `aborted`), `committed` once the branch moved, `aborted` when the
// move failed after `prepared`. Its input names each reference, git's way:
// "<old> <new> HEAD" and "<old> <new> refs/heads/<branch>", 40 zeros for
// none. `--no-verify` does not skip it, as with git.

extension Store {
    /// Moves `branch` (the one HEAD names) to `target` inside a reference transaction that git's
    /// `reference-transaction` hook hears: `prepared` first, then `work` (a checkout of the target, say), then the
    /// move and `committed`; `aborted` when the hook refuses (nothing of `work` is done then) or `work` or the move
    /// fails.
    func moveBranchReference(
        _ branch: String, to target: ObjectID, message: String, preparing work: () throws -> Void = {}
    ) throws {
        let hooks = try gitClientHooks
        guard hooks.program("reference-transaction") != nil else {
            try work()
            return try git.setReference(branch, to: target, message: message)
        }
        let old = try git.reference(branch)?.description ?? String(repeating: "0", count: 40)
        let input = Data(
            ["HEAD", branch].map { "\(old) \(target) \($0)\n" }.joined().utf8)
        func run(_ state: String) throws -> Int32? {
            try hooks.run("reference-transaction", [state], input: input, show: hookReport)
        }
        if let status = try run("prepared"), status != 0 {
            _ = try? run("aborted")
            throw StoreError.state(
                .gitHookRefused(
                    hook: "reference-transaction", path: hooks.folder + "/reference-transaction", status: status,
                    what: "moving \(branch) to \(target.description.prefix(7))"))
        }
        do {
            try work()
            try git.setReference(branch, to: target, message: message)
        } catch {
            _ = try? run("aborted")
            throw error
        }
        _ = try? run("committed")
    }
}
