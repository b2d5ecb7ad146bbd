import DocketGit
import DocketMerge
import DocketSystem
import Foundation

/// A file of the store that could not be read, and why.
public struct StoreProblem: Equatable, Sendable, CustomStringConvertible {
    /// The file, relative to the store's folder.
    public let path: String
    /// Why it was skipped, or shown otherwise than it reads.
    public let reason: String
    /// Whether the item was left out (else it was shown as last committed).
    public var skipped: Bool { reason != StoredItem.shownAsCommittedReason }

    public var description: String { "\(path): \(reason)" }
    /// The warning a command prints for it.
    public var warning: String { skipped ? "skipped \(path): \(reason)" : "\(path) \(reason)" }
}

/// What can go wrong with a store, in four groups, each case saying what was
/// found and what to do: the user's input, the store's state, reading and
/// writing files, and git itself.
public enum StoreError: Error, Equatable, CustomStringConvertible {
    /// What was asked for does not fit the store (an unknown id, a remote that exists…).
    case input(InputError)
    /// The store, or a commit pulled into it, is in a state that stops the command.
    case state(StateError)
    /// A file could not be read or written.
    case io(IOError)
    /// libgit2 failed in a way Docket does not classify.
    case git(GitError)
    /// Talking to a remote failed.
    case transfer(TransferError)

    public var description: String {
        switch self {
        case let .input(error): error.description
        case let .state(error): error.description
        case let .io(error): error.description
        case let .git(error): "git: \(error.description)"
        case let .transfer(error): error.description
        }
    }
}

/// What was asked for does not fit the store.
public enum InputError: Equatable, Sendable, CustomStringConvertible {
    /// No item of this kind has an id starting with the one given.
    case notFound(kind: ItemDecision.Kind, id: String)
    /// More than one item of this kind has an id starting with the one given.
    case ambiguous(kind: ItemDecision.Kind, prefix: String, candidates: [String])
    /// The id given is shorter than the 4 characters a prefix needs.
    case idTooShort(prefix: String)
    /// No project has this id (or a prefix of it) or this title.
    case unknownProject(String)
    /// More than one project has this title.
    case ambiguousProjectTitle(title: String, candidates: [String])
    /// There is no remote of this name.
    case unknownRemote(String)
    /// A remote of this name exists already.
    case remoteExists(String)
    /// The folder to clone into holds files.
    case folderNotEmpty(String)
    /// A name git does not take for a remote.
    case invalidRemoteName(String)
    /// A remote's URL carries a password or token, which Docket never stores.
    case passwordInURL(shown: String)
    case unsafeURL(shown: String, reason: String)
    /// No merge commit in the history has this id.
    case unknownMerge(String)
    /// More than one merge commit has an id starting with the one given.
    case ambiguousMerge(prefix: String, candidates: [String])
    /// No todo and no task has an id starting with the one given.
    case noItem(id: String)
    /// The id given starts ids of todos and of tasks (short ids, as lists show them).
    case todoOrTask(prefix: String, todos: [String], tasks: [String])
    /// A lost value of a field this docket does not know how to put back.
    case cannotRestore(field: String)
    /// `undo` found no change of this machine's to take back.
    case nothingToUndo
    /// `undo` found no change of the user's own to take back, only merges: the last one's name and whose edits it
    /// brought in.
    case nothingOwnToUndo(lastMerge: String, by: String)
    /// `undo --merge` found no merge to take back.
    case nothingMergedToUndo
    /// `merges restore` was given a number the merge does not have.
    case noLostValue(merge: String, number: Int, count: Int)
    /// The folder a calendar sync was given is missing or not a folder.
    case calendarFolder(path: String)
    /// An item was to depend on itself.
    case dependsOnItself(id: String)
    /// A dependency would close a circle: each item in `path` depends on the next, and the last on the first.
    case dependencyCycle(path: [String])

    public var description: String {
        switch self {
        case let .notFound(kind, id):
            "no \(kind) has the id \(id); "
                + {
                    switch kind {
                    case .todo: "'docket list --all' shows the todos' ids"
                    case .project: "'docket project list' shows the projects' ids"
                    case .task:
                        "'docket project show <project>' shows a project's tasks with their ids ('docket project list' the projects)"
                    }
                }()
        case let .ambiguous(kind, prefix, candidates):
            "the id \(prefix) matches \(candidates.count) \(kind)s: \(candidates.joined(separator: ", ")); give more of the id"
        case let .idTooShort(prefix):
            "the id \(prefix) is too short; give at least 4 characters of it"
        case let .unknownProject(typed):
            "no project has the id or title \(typed); 'docket project list' shows the projects"
        case let .ambiguousProjectTitle(title, candidates):
            "\(candidates.count) projects have the title \(title): \(candidates.joined(separator: ", ")); give the id of one"
        case let .unknownRemote(name):
            "there is no remote named \(name); 'docket remote list' shows the remotes"
        case let .invalidRemoteName(name):
            "'\(name)' is not a valid remote name; use letters, digits, '-', '_' and '.', such as origin or backup"
        case let .remoteExists(name):
            "a remote named \(name) exists already; 'docket remote remove \(name)' removes it"
        case let .folderNotEmpty(path):
            "\(path) exists and is not empty; clone into a new folder"
        case let .passwordInURL(shown):
            "the address \(shown) carries a user name, password or token before the host, which would be kept in the repository's files and logs; "
                + "give the address without it (https://host/…) and the user name and token in DOCKET_GIT_USERNAME and DOCKET_GIT_TOKEN, or to git's credential helper"
        case let .unsafeURL(shown, reason):
            "the address \(shown) \(reason); nothing was changed; check the address"
        case let .unknownMerge(commit):
            "no merge in the history has the id \(commit); 'docket merges' lists the merges with their ids"
        case let .ambiguousMerge(prefix, candidates):
            "the id \(prefix) matches \(candidates.count) merges: \(candidates.joined(separator: ", ")); give more of the id"
        case let .noItem(id):
            "no todo or task has the id \(id); 'docket list --all' shows the todos with their ids, 'docket project show <project>' a project's tasks"
        case let .todoOrTask(prefix, todos, tasks):
            "the id \(prefix) matches \(todos.count == 1 ? "todo" : "todos") \(todos.joined(separator: ", ")) and \(tasks.count == 1 ? "task" : "tasks") \(tasks.joined(separator: ", ")); give more of the id"
        case let .cannotRestore(field):
            "this docket cannot put back a lost value of '\(field)'; 'docket merges --json' shows the value, to set by hand"
        case let .nothingOwnToUndo(lastMerge, by):
            "there is no change of yours to undo: the changes kept on this machine are merges (the last, \(lastMerge), "
                + "brought in changes by \(by)); 'docket undo --merge' takes a merge back"
        case .nothingMergedToUndo:
            "there is no merge to undo: no merge made on this machine is kept ('docket undo' takes back your own changes)"
        case .nothingToUndo:
            "there is nothing to undo: no change made through docket on this machine is kept (undo keeps the last 50 made here, not those made by plain git or on other machines)"
        case let .noLostValue(merge, number, count):
            count == 0
                ? "merge \(merge) discarded no value, so there is nothing to restore"
                : "merge \(merge) has no lost value \(number); it has \(count == 1 ? "1" : "1 to \(count)") ('docket merges' numbers them)"
        case let .calendarFolder(path):
            "\(path) is not a folder; make it ('mkdir -p \(path)'), or name the folder vdirsyncer syncs"
        case let .dependsOnItself(id):
            "\(id) cannot depend on itself; give the id of another todo or task"
        case let .dependencyCycle(path):
            {
                let around = Array(path.dropFirst()) + [path[0]]
                let chain =
                    "\(around[0]) depends on \(around[1])"
                    + around.dropFirst(2).map { ", which depends on \($0)" }.joined()
                return
                    "\(path[0]) cannot depend on \(path[1]): \(chain), so \(path.count == 2 ? "neither" : "none of them") could ever be started; "
                    + "remove one of those dependencies first ('docket depend <id> -<id>')"
            }()
        }
    }
}

/// The store, or a commit pulled into it, is in a state that stops the command.
public enum StateError: Equatable, Sendable, CustomStringConvertible {
    /// A git repository without `.docket/format.json`.
    case notAStore(path: String)
    /// A folder that looks like a Docket store (Docket's own folder in its .git, its merge attributes, or a
    /// .docket folder) whose marker, .docket/format.json, is gone or is no file.
    case lostMarker(path: String)
    /// A folder that is no git repository.
    case notARepository(path: String)
    /// No folder at the path given for the store.
    case missingFolder(path: String)
    /// A cloned repository whose branch holds no Docket store.
    case remoteNotAStore(url: String, branch: String)
    /// Another process is still cloning into the store's folder.
    case cloneRunning(path: String)
    /// A file where the store's folder was expected.
    case storeIsAFile(path: String)
    /// A repository owned by another user, which git will not use.
    case notOwned(path: String)
    /// A repository whose object ids are of a format libgit2 1.5 cannot read (SHA-256).
    case objectFormat(path: String, format: String)
    /// A bare repository, which has no working tree.
    case bareRepository(path: String)
    /// A store of a format newer than this docket reads.
    case newerFormat(path: String, found: Int)
    /// `.docket/format.json` does not decode.
    case unreadableFormat(path: String, reason: String)
    /// Another docket process holds the store's lock.
    case locked(lockFile: String, pid: Int32?)
    /// Files that do not decode as the items their paths name; nothing was committed.
    case undecodable([StoreProblem])
    /// An item file that cannot be read.
    case unreadable(StoreProblem)
    /// A file of this machine's own in `.git/docket/` does not read.
    case unreadableLocalFile(path: String, reason: String, advice: String)
    /// A file in a commit being taken in (pulled, cloned) or sent (pushed) is refused: it does not
    /// decode, is a link, names no item, or has a path git should not write.
    case refusedInCommit(path: String, commit: String, reason: String)
    case objectMissingInCommit(path: String, commit: String, object: String)
    case tooManyFiles(commit: String, limit: Int)
    /// A commit being pulled or cloned would write more bytes of files than Docket takes in at once.
    case tooManyBytes(commit: String, limit: Int)
    /// A commit being pulled names a newer store format.
    case newerFormatInCommit(commit: String, found: Int)
    /// The store has changes that are not committed.
    case uncommittedChanges
    /// A file changed by hand that git is told not to look at (assume-unchanged, skip-worktree) is where a pull would
    /// write.
    case changeGitIgnores(path: String, flag: IndexFlag)
    /// git cannot merge files outside Docket's folders.
    case conflict(paths: [String])
    /// Files outside Docket's folders, changed or made here and not committed, are where a pull would write.
    case filesInTheWay(paths: [String])
    /// The store has no remote.
    case noRemote
    /// An interrupted pull cannot be finished because a file it touches was changed since.
    case interruptedUpdate(path: String, marker: String)
    /// HEAD is on no branch (a rebase, or a commit checked out by itself).
    case detachedHead
    /// A link or a file stands where one of the store's folders should be.
    case notAFolder(path: String)
    /// A running git program holds one of git's lock files.
    case gitLocked(path: String)
    /// git's index (.git/index) does not read: cut short, or its bytes do not match its checksum.
    case damagedIndex(reason: String)
    /// git's index is in a form Docket cannot read (split, sparse, newer).
    case unreadableIndex(UnreadableIndex, root: String)
    /// `GIT_DIR` or `GIT_WORK_TREE` names another repository than the store's.
    case gitEnvironment(variable: String, value: String, root: String)
    /// The repository has grafts (`.git/info/grafts`), which git reads history through and Docket does not.
    case grafts(root: String)
    /// The repository has replacement objects (`git replace`), which git shows in place of those stored and Docket does
    /// not.
    case replaceRefs(root: String)
    /// `core.bare` is true in a store's own configuration.
    case bareSetting(root: String)
    /// git began a merge, rebase, cherry-pick or revert and has not finished it.
    case unfinishedGitOperation(GitOperation)
    /// The clone is shallow and lacks the history a merge needs.
    case shallow
    /// A git rebase is under way and not stopped on a conflict (running `--exec`, or at an `edit` or `break`): git's
    /// to finish; `step` is the last one it took.
    case rebaseUnderWay(step: String?)
    /// The remote's branch was rewritten (force-pushed): `known`, the last of its commits this machine took in, is
    /// no longer in its history, which now ends at `tip`.
    case rewrittenUpstream(remote: String, branch: String, local: String, known: String, tip: String)
    /// A push setting git reads says something Docket cannot do as git would.
    case pushSetting(setting: String, reason: String, remote: String, branch: String)
    /// The clone is partial (`git clone --filter`): it lacks objects a command reads, which libgit2 cannot fetch.
    case partialClone(remote: String, filter: String)
    /// The clone is shallow, and the remote refuses a push whose history stops short.
    case shallowPush
    /// One of git's client hooks (pre-commit, commit-msg, pre-push, reference-transaction) refused.
    case gitHookRefused(hook: String, path: String, status: Int32, what: String)
    /// git's configuration asks for an identity set in it (`user.useConfigOnly`), and none is.
    case identityUnknown(role: String)
    /// git's configuration asks for signed commits (`commit.gpgsign`) and signing failed.
    case signing(program: String, detail: String)
    /// The remote has several branches and none is this store's upstream.
    case ambiguousUpstream(remote: String, branches: [String])
    /// git left conflicts in files outside Docket's folders while merging.
    case unresolvedOutside(paths: [String])
    /// git could not go on with a cherry-pick or revert Docket finished the conflicts of.
    case replayFailed(command: String, detail: String)
    /// git left conflicts in the store with no operation under way (`git stash pop`, say), which a commit would settle
    /// silently.
    case conflictsLeft(paths: [String])

    public var description: String {
        switch self {
        case let .notAStore(path):
            "\(path) is a git repository but not a Docket store (it has no .docket/format.json); run 'docket init \(path)' to make it one, or choose another folder"
        case let .lostMarker(path):
            "\(path) is a Docket store whose marker .docket/format.json is gone or is no file, so docket will not use ~/.docket in its place; run 'docket init \(path)' to write it again"
        case let .notARepository(path):
            "\(path) is not a Docket store; run 'docket init \(path)' to make one"
        case let .missingFolder(path):
            "there is no folder \(path); check the path, or run 'docket init \(path)' to make a store there"
        case let .cloneRunning(path):
            "a clone into \(path) is still running; wait for it to finish, then run the command again"
        case let .remoteNotAStore(url, branch):
            "\(url) is a git repository but not a Docket store (its branch \(branch) has no .docket/format.json); nothing was cloned. "
                + "To keep a store in it: 'git clone \(url) <dir>', then 'docket init <dir>' and 'docket -C <dir> push'"
        case let .storeIsAFile(path):
            "\(path) is a file, not a store's folder; give the folder that holds the store"
        case let .notOwned(path):
            "\(path) belongs to another user, so git will not use it (a store made with sudo, say); "
                + "if you trust it, run 'git config --global --add safe.directory \(path)', or take it over with 'sudo chown -R $(id -u):$(id -g) \(path)'"
        case let .objectFormat(path, format):
            "\(path) is a git repository with \(format) object ids (extensions.objectformat), and Docket writes git through "
                + "libgit2 1.5, which reads SHA-1 ids only; nothing was changed; keep the store in a repository of its "
                + "own, made with SHA-1 ids ('docket init <another folder>')"
        case let .bareRepository(path):
            "\(path) is a bare git repository, which has no working tree for Docket's files; clone it ('git clone \(path)') and use the clone"
        case let .newerFormat(path, found):
            "\(path) uses store format \(found), newer than this docket understands (format \(Store.format)); upgrade docket to use this store"
        case let .unreadableFormat(path, reason):
            "\(path)/.docket/format.json does not read as a Docket format file (\(reason)); restore it with 'git checkout -- .docket/format.json'"
        case let .locked(lockFile, pid):
            "another docket process\(pid.map { " (pid \($0))" } ?? "") is changing this store (it holds \(lockFile)); wait for it to finish, then try again"
        case let .undecodable(problems):
            "nothing was committed: \(problems.count == 1 ? "a file does" : "\(problems.count) files do") not decode as Docket items; fix or restore \(problems.count == 1 ? "it" : "them") ('git checkout -- <file>'), then commit again:\n"
                + problems.map { "  \($0)" }.joined(separator: "\n")
        case let .unreadable(problem):
            problem.reason == StoredItem.markersReason
                ? "\(problem.path) cannot be read: it \(problem.reason)"
                : "\(problem.path) cannot be read: \(problem.reason); fix or restore it with 'git checkout -- \(problem.path)'"
        case let .unreadableLocalFile(path, reason, advice):
            "\(path) cannot be read: \(reason); \(advice)"
        case let .refusedInCommit(path, commit, reason):
            "\(StoreError.shown(path)) in commit \(commit) \(reason); nothing was changed here; fix or remove the file on the machine that committed it ('git show --stat \(commit)'), then try again"
        case let .tooManyFiles(commit, limit):
            "commit \(commit) brings more than \(StoreError.grouped(limit)) files, more than docket takes in (ten times the largest store it is made for); "
                + "nothing was changed here; take them out of the remote's history with git, or keep them in another repository"
        case let .tooManyBytes(commit, limit):
            "commit \(commit) would write more than \(limit >> 30) GiB of files, more than docket takes in at once (ten times the largest store it is made for); "
                + "nothing was changed here; take them out of the remote's history with git, or keep them in another repository"
        case let .objectMissingInCommit(path, commit, object):
            "\(StoreError.shown(path)) in commit \(commit) is object \(object), which this store's repository lacks; nothing was changed here; "
                + "fetch every object again from the remote ('git fetch --refetch <remote>'), then try again"
        case let .newerFormatInCommit(commit, found):
            "commit \(commit) uses store format \(found), newer than this docket understands (format \(Store.format)); upgrade docket, then pull again; nothing was changed here"
        case .uncommittedChanges:
            "the store has uncommitted changes; commit them ('docket commit') or use 'docket sync', which commits them first"
        case let .conflict(paths):
            "git cannot merge \(paths.count == 1 ? "a file" : "files") outside Docket's folders: \(paths.joined(separator: ", ")); nothing was changed; merge \(paths.count == 1 ? "it" : "them") with git ('git pull'), then run docket again"
        case let .filesInTheWay(paths):
            "the pull would overwrite \(paths.joined(separator: ", ")), which \(paths.count == 1 ? "was" : "were") changed or made here and not committed; commit, move or remove \(paths.count == 1 ? "it" : "them"), then pull again; nothing was changed"
        case .noRemote:
            "the store has no remote; add one with 'docket remote add origin <url>'"
        case let .unfinishedGitOperation(operation):
            switch operation {
            case .merge:
                "a git merge is unfinished (git stopped on a conflict or was told not to commit); run 'docket sync' to finish it with Docket's merge, or 'git merge --abort' to give it up"
            case .rebase:
                "a git rebase is unfinished (git stopped on a conflict); run 'docket sync' to merge the two histories with Docket's merge instead, or 'git rebase --abort' to give it up"
            case .cherryPick:
                "a git cherry-pick is unfinished (git stopped on a conflict); run 'docket sync' to finish it with Docket's merge, or 'git cherry-pick --abort' to give it up"
            case .revert:
                "a git revert is unfinished (git stopped on a conflict); run 'docket sync' to finish it with Docket's merge, or 'git revert --abort' to give it up"
            case .other:
                "git is in the middle of an operation (am or bisect); finish or abort it with git, then run docket again"
            }
        case let .changeGitIgnores(path, flag):
            "\(path) was changed here, but git is told not to look at it (\(flag.name)), so it cannot be committed and a pull would overwrite it; "
                + "to keep the change, run 'git update-index --no-\(flag.name) \(path)' and 'docket sync'; to drop it, run 'git show HEAD:\(path) > \(path)'"
        case .shallowPush:
            "this clone is shallow, and the remote will not take commits whose history stops short; nothing was pushed (your commits are kept here). "
                + "Fetch the rest ('git fetch --unshallow'), then run 'docket sync' again"
        case let .rewrittenUpstream(remote, branch, local, known, tip):
            "\(remote)/\(branch) was rewritten (a forced update: \(known.prefix(7)), which this machine took in, is no longer in its history, "
                + "which now ends at \(tip.prefix(7))); merging would bring the old history back, so nothing was pulled or pushed. "
                + "To take the rewritten history, carrying this machine's unsynced changes onto it, run 'docket sync --accept-rewrite'; "
                + "to put the old history back on \(remote) instead, run 'git push --force \(remote) \(local):\(branch)'"
        case let .pushSetting(setting, reason, remote, branch):
            "\(reason); nothing was pushed (your commits are kept here). "
                + "Push with git ('git push \(remote) \(branch)'), or unset it ('git config --unset-all \(setting)')"
        case let .partialClone(remote, filter):
            "this clone is partial (--filter=\(filter) from \(remote)) and lacks objects this command reads; nothing was changed. "
                + "Run 'docket sync', which fetches them, or 'git config --unset remote.\(remote).partialclonefilter && git fetch --refetch \(remote)', then try again"
        case let .rebaseUnderWay(step):
            "a git rebase is under way and not stopped on a conflict"
                + (step.map { " (its last step: '\(StoreError.shown($0))')" } ?? "")
                + "; docket will not end it. Let it finish ('git rebase --continue') or give it up ('git rebase --abort'), then run docket again"
        case .shallow:
            "this clone is shallow, and the history the merge needs is not in it; fetch the rest ('git fetch --unshallow'), then try again; nothing was changed"
        case let .gitHookRefused(hook, path, status, what) where hook == "reference-transaction":
            "git's \(hook) hook (\(path)) refused \(what) (exit status \(status)), as git's 'ref updates aborted by hook'; the branch and every file stay as they were. "
                + "Do what it says and try again (--no-verify does not skip this hook, as with git)"
        case let .gitHookRefused(hook, path, status, what):
            "git's \(hook) hook (\(path)) refused \(what) (exit status \(status)); nothing was \(hook == "pre-push" ? "pushed" : "committed"), and every change is kept. "
                + "Do what it says and try again, or skip git's hooks once with --no-verify, as with git"
        case let .identityUnknown(role):
            "git's configuration says commits take their identity from it alone (user.useConfigOnly), and it names no \(role); nothing was committed. "
                + "Set one with 'git config --global user.name \"Your Name\"' and 'git config --global user.email you@example.com', then try again"
        case let .signing(program, detail):
            "commit.gpgsign is on, and signing the commit with \(program) failed (\(detail)); nothing was committed; fix git's signing setup (user.signingkey, gpg.format) or turn signing off for this store ('git config commit.gpgsign false')"
        case let .ambiguousUpstream(remote, branches):
            "\(remote) has several branches (\(branches.joined(separator: ", "))) and none is this store's upstream; choose the one to sync with ('git branch --set-upstream-to=\(remote)/\(branches[0])'), then try again"
        case let .unresolvedOutside(paths):
            "git left conflicts in \(paths.joined(separator: ", ")), outside Docket's folders; resolve \(paths.count == 1 ? "it" : "them") with git (edit, then 'git add \(paths.joined(separator: " "))'), then run 'docket sync' again to finish the merge"
        case let .replayFailed(command, detail):
            "Docket merged the files git stopped on, but '\(command)' failed: \(detail.trimmingCharacters(in: .whitespacesAndNewlines)); finish it with git, or give it up ('\(command.replacingOccurrences(of: "--continue", with: "--abort"))'), then run docket again"
        case let .conflictsLeft(paths):
            "git left \(paths.joined(separator: ", ")) conflicted (a 'git stash pop' or 'git checkout -m', say); run 'docket sync', which merges \(paths.count == 1 ? "it" : "them") with Docket's rules and records what the merge discards"
        case let .damagedIndex(reason):
            "git's index (.git/index) is damaged (\(reason)); your files are as they were. Rebuild it from the last commit "
                + "with 'rm .git/index && git reset' in the store's folder (this keeps every file), then run docket again"
        case let .unreadableIndex(reason, root):
            switch reason {
            case .split:
                "git's index in \(root) is split (core.splitIndex), which Docket cannot read; nothing was changed. "
                    + "Join it with 'git -C \(root) config core.splitIndex false && git -C \(root) update-index --no-split-index', then try again"
            case .sparse:
                "git's index in \(root) is a sparse index (index.sparse), which Docket cannot read; nothing was changed. "
                    + "Make it a full index, keeping the sparse checkout, with 'git -C \(root) sparse-checkout reapply --no-sparse-index', then try again"
            case let .unknown(what):
                "git's index in \(root) has \(what), which this docket cannot read (a newer git wrote it); nothing was changed. "
                    + "Write it again in a form every git reads with 'git -C \(root) update-index --index-version 2', then try again"
            }
        case let .gitEnvironment(variable, value, root):
            "\(variable) is set to \(value), but the store is \(root), and Docket works only on the store's own repository; nothing was changed. "
                + "Unset GIT_DIR and GIT_WORK_TREE ('unset GIT_DIR GIT_WORK_TREE') and name the store with -C, then try again"
        case let .grafts(root):
            "\(root) has grafts (.git/info/grafts), through which git reads a history other than the one stored, and Docket reads it as stored; nothing was changed. "
                + "Set them aside with 'mv \(root)/.git/info/grafts \(root)/.git/info/grafts.off', then try again"
        case let .replaceRefs(root):
            "\(root) has replacement objects ('git replace'), which git shows in place of the ones stored, and Docket reads them as stored; nothing was changed. "
                + "Have git read them as stored too with 'git -C \(root) config core.useReplaceRefs false' (or remove them with 'git -C \(root) replace -d $(git -C \(root) replace -l)'), then try again"
        case let .bareSetting(root):
            "git's configuration in \(root) says the repository is bare (core.bare = true), so it has no working tree for Docket's files; nothing was changed. "
                + "Run 'git -C \(root) config core.bare false', then try again"
        case let .gitLocked(path):
            "a running git program is changing the repository (it holds \(path.isEmpty ? "one of git's lock files" : path)); wait for it to finish, then try again"
        case let .notAFolder(path):
            "\(path) is a symbolic link or a file where a folder should be, and Docket never reads or writes through one; remove it ('rm \(path)') and restore the folder ('git checkout -- \(path)'), then try again"
        case .detachedHead:
            "the store's HEAD is on no branch (a rebase or a checkout of a single commit is under way); finish it ('git rebase --continue', or 'git rebase --abort') or go back to a branch ('git switch main'), then run docket again"
        case let .interruptedUpdate(path, marker):
            "an interrupted pull left the store half updated, and \(path) has been changed since; move your version of it out of the store, then run the command again to finish the pull (or delete \(marker) to give the pull up and keep the files as they are)"
        }
    }
}

/// A file could not be read or written.
public enum IOError: Equatable, Sendable, CustomStringConvertible {
    /// Reading failed.
    case read(path: String, reason: String)
    /// Writing (or removing) failed.
    case write(path: String, reason: String)

    public var description: String {
        switch self {
        case let .read(path, reason): "could not read \(path): \(reason)"
        case let .write(path, reason): "could not write \(path): \(reason)"
        }
    }
}

extension StoreError {
    /// A failure of a lower layer as a store error: git's, a transfer's, a
    /// lock's, or the system's while `writing` (else reading).
    static func wrapping(_ error: Error, writing: Bool) -> Error {
        switch error {
        case let error as StoreError: error
        case let error as SigningError: StoreError.state(.signing(program: error.program, detail: error.detail))
        case let error as IdentityUnknown: StoreError.state(.identityUnknown(role: error.role))
        case let error as ShallowHistory: StoreError.state(error.pushing ? .shallowPush : .shallow)
        // NB: which lock file is found by looking (`Store.heldGitLocks`) where the repository is known (`StoreGit`).
        case let error as GitError where error.isLocked: StoreError.state(.gitLocked(path: ""))
        case let error as GitError where error.isDamagedIndex: StoreError.state(.damagedIndex(reason: error.message))
        case let error as GitError: StoreError.git(error)
        case let error as TransferError: StoreError.transfer(error)
        case let error as MergeConflict: StoreError.state(.conflict(paths: error.paths))
        case let error as FilesInTheWay: StoreError.state(.filesInTheWay(paths: error.paths))
        case let error as FileLock.Busy: StoreError.state(.locked(lockFile: error.path, pid: error.pid))
        case let error as SystemError:
            StoreError.io(
                writing
                    ? .write(path: error.path ?? "", reason: error.reason)
                    : .read(path: error.path ?? "", reason: error.reason))
        case let FileProblem.notAFolder(path) as FileProblem:
            StoreError.state(.notAFolder(path: path))
        case let FileProblem.system(error) as FileProblem:
            wrapping(error, writing: writing)
        default: error
        }
    }
}

extension StoreError {
    /// A path from a commit as a message shows it: whole up to 200 characters, else its start and end around "…".
    static func shown(_ path: String) -> String {
        path.count <= 200 ? path : path.prefix(120) + "…" + path.suffix(60)
    }
}

// MARK: Codes and messages for apps

extension StoreError {
    /// `number` with its thousands apart, in English: 1,000,000.
    static func grouped(_ number: Int) -> String {
        let digits = String(number.magnitude)
        let head = digits.count % 3 == 0 ? 3 : digits.count % 3
        var text = String(digits.prefix(head))
        var rest = digits.dropFirst(head)
        while !rest.isEmpty {
            text += "," + rest.prefix(3)
            rest = rest.dropFirst(3)
        }
        return (number < 0 ? "-" : "") + text
    }

    /// A stable code for the error, for an app to act on and to map (to an HTTP status, say): the group and the case,
    /// as `input.notFound`, `state.locked`, `io.write`, `transfer.authentication`, or `git` for a libgit2 failure
    /// Docket does not classify. A code names the case, never its values, and stays as long as the case does.
    public var code: String {
        switch self {
        case let .input(error): "input." + StoreError.caseName(error) { error.plainCase }
        case let .state(error): "state." + StoreError.caseName(error) { error.plainCase }
        case let .io(error): "io." + StoreError.caseName(error) { nil }
        case .git: "git"
        case let .transfer(error): "transfer." + StoreError.caseName(error) { nil }
        }
    }

    /// What went wrong, for an app to show: the description without the command line's advice (the clauses that
    /// name a `docket` command to run). The command line prints `description`, advice and all.
    public var message: String { StoreError.split(description).message }

    /// The command line's advice that `description` adds to `message` (as "'docket list --all' shows the todos'
    /// ids"); empty when it adds none.
    public var advice: String { StoreError.split(description).advice }

    /// `text` as its message and the clauses of command-line advice: a clause (between "; " or after ". ") that
    /// names a docket command is advice.
    static func split(_ text: String) -> (message: String, advice: String) {
        var message = ""
        var advice: [String] = []
        var inAdvice = false
        var separators: [String] = []
        var rest = Substring(text)
        while !rest.isEmpty {
            let semicolon = rest.range(of: "; ")
            let stop = rest.range(of: ". ")
            let end = [semicolon, stop].compactMap { $0 }.min { $0.lowerBound < $1.lowerBound }
            let clause = end.map { rest[..<$0.lowerBound] } ?? rest
            let separator = end.map { String(rest[$0]) } ?? ""
            rest = end.map { rest[$0.upperBound...] } ?? ""
            // NB: what follows a clause of advice belongs to it ("run 'docket sync'. Then …").
            if inAdvice {
                advice.append(String(clause))
                continue
            }
            let (kept, told) = StoreError.takingAdvice(from: clause)
            if let told { advice.append(told) }
            if let kept {
                message += kept + separator
                separators.append(separator)
            } else {
                inAdvice = true
            }
        }
        if let last = separators.last { message.removeLast(last.count) }
        return message.isEmpty ? (text, "") : (message, advice.joined(separator: "; "))
    }

    /// A clause without its command-line advice, and the advice: the clause as it is when it names no docket
    /// command; its words outside a parenthesis that names one; else none of it.
    private static func takingAdvice(from clause: Substring) -> (kept: String?, advice: String?) {
        func namesDocket(_ text: Substring) -> Bool { text.contains("'docket ") || text.contains("'docket'") }
        guard namesDocket(clause) else { return (String(clause), nil) }
        if let open = clause.range(of: " ("), let close = clause[open.upperBound...].lastIndex(of: ")"),
            case let inside = clause[open.upperBound..<close], namesDocket(inside),
            case let outside = clause[..<open.lowerBound] + clause[clause.index(after: close)...],
            !namesDocket(Substring(outside))
        {
            return (String(outside), String(inside))
        }
        return (nil, String(clause))
    }

    /// The name of an enum value's case: its payload's label, or `plain` for a case without one.
    private static func caseName<T>(_ value: T, plain: () -> String?) -> String {
        Mirror(reflecting: value).children.first?.label ?? plain() ?? "\(T.self)"
    }
}

extension InputError {
    /// The name of a case that has no payload.
    fileprivate var plainCase: String? {
        switch self {
        case .nothingToUndo: "nothingToUndo"
        case .nothingMergedToUndo: "nothingMergedToUndo"
        default: nil
        }
    }
}

extension StateError {
    /// The name of a case that has no payload.
    fileprivate var plainCase: String? {
        switch self {
        case .uncommittedChanges: "uncommittedChanges"
        case .noRemote: "noRemote"
        case .detachedHead: "detachedHead"
        case .shallow: "shallow"
        case .shallowPush: "shallowPush"
        default: nil
        }
    }
}
