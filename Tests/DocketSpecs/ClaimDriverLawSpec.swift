import Docket
import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// The claim rule as git's merge driver applies it (`FileMerge`, what `docket merge-driver` runs for `git merge`):
/// over 1,000 seeded pairs of claims on one todo's file, the merged file holds the claim `docket pull`'s merge keeps,
/// whichever side is ours.
final class ClaimDriverLawSpec: QuickSpec {
    override class func spec() {
        it("merges two claims in a todo's file as docket pull does, over 1,000 seeded pairs, either way round") {
            forAll(1000) { g in
                let world = SeededWorld(seed: g.next())
                defer { world.uninstall() }
                let todo = TodoItem(text: "Paint the fence")
                let (a, b) = RandomValues.claimPair(&g)
                world.advance(1)
                let ours = todo.alter(.claim(a))
                world.advance(Double(Int.random(in: 0...1, using: &g)))
                let theirs = todo.alter(.claim(b))
                let path = StoreLayout.todo(todo.id)
                let pulled = merge(
                    base: AppState(todos: [todo], projects: [], removed: []),
                    ours: AppState(todos: [ours], projects: [], removed: []),
                    theirs: AppState(todos: [theirs], projects: [], removed: [])
                ).state.todos.first?.claim
                for (one, other) in [(ours, theirs), (theirs, ours)] {
                    guard
                        case let .merged(data, _) = FileMerge.merge(
                            path: path, base: try! DocketJSON.encode(todo), ours: try! DocketJSON.encode(one),
                            theirs: try! DocketJSON.encode(other))
                    else { return "the driver did not merge the todo's file" }
                    let merged = try? DocketJSON.decode(TodoItem.self, from: data).claim
                    if merged != pulled {
                        return
                            "the driver kept \(String(describing: merged)), docket pull \(String(describing: pulled))"
                    }
                }
                return nil
            }
        }
    }
}
