import Docket
import DocketGit
import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// `StoreError` as an app meets it: a stable code per case, and a message without the command line's advice, which
/// the command line still prints.
final class StoreErrorCodeSpec: QuickSpec {
    override class func spec() {
        describe("a store error's code") {
            it("names its group and case, never its values") {
                expect(StoreError.input(.notFound(kind: .todo, id: "3f2a")).code) == "input.notFound"
                expect(StoreError.input(.notFound(kind: .project, id: "77aa")).code) == "input.notFound"
                expect(StoreError.input(.nothingToUndo).code) == "input.nothingToUndo"
                expect(StoreError.state(.locked(lockFile: "/s/.git/docket.lock", pid: 42)).code) == "state.locked"
                expect(StoreError.state(.noRemote).code) == "state.noRemote"
                expect(StoreError.state(.uncommittedChanges).code) == "state.uncommittedChanges"
                expect(StoreError.io(.write(path: "todos/AB/x.json", reason: "disk full")).code) == "io.write"
                expect(StoreError.transfer(.authentication(url: "ssh://h/r", detail: "denied")).code)
                    == "transfer.authentication"
                expect(StoreError.git(GitError(code: -1, function: "git_x", message: "failed")).code) == "git"
            }
        }

        describe("a store error's message") {
            it("leaves out the command line's advice, which the description keeps") {
                let missing = StoreError.input(.notFound(kind: .todo, id: "3f2a"))
                expect(missing.message) == "no todo has the id 3f2a"
                expect(missing.advice) == "'docket list --all' shows the todos' ids"
                expect(missing.description) == missing.message + "; " + missing.advice
                let noRemote = StoreError.state(.noRemote)
                expect(noRemote.message) == "the store has no remote"
                expect(noRemote.description).to(contain("'docket remote add origin <url>'"))
                let uncommitted = StoreError.state(.uncommittedChanges)
                expect(uncommitted.message) == "the store has uncommitted changes"
                let undo = StoreError.input(.nothingMergedToUndo)
                expect(undo.message) == "there is no merge to undo: no merge made on this machine is kept"
                expect(undo.advice) == "'docket undo' takes back your own changes"
            }
            it("is the whole description when it gives no command-line advice") {
                let locked = StoreError.state(.locked(lockFile: "/s/.git/docket.lock", pid: 42))
                expect(locked.message) == locked.description
                expect(locked.advice) == ""
                let write = StoreError.io(.write(path: "todos/AB/x.json", reason: "disk full"))
                expect(write.message) == "could not write todos/AB/x.json: disk full"
            }
        }
    }
}
