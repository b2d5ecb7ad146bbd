import DocketMerge
import DocketModel
import DocketSpecSupport
import Foundation
import Nimble
import Quick

final class ClaimMergeSpec: QuickSpec {
    override class func spec() {
        let start = Date(docketMillisecondsForSpecs: 1_795_339_800_000)
        func at(_ minutes: Double) -> Date { start + minutes * 60 }
        let (idA, idB) = (
            UUID(uuidString: "11111111-1111-4111-8111-111111111111")!,
            UUID(uuidString: "22222222-2222-4222-8222-222222222222")!
        )
        func claim(
            _ holder: String, _ id: UUID, taken: Double, renewed: Double? = nil, expires: Double,
            released: Double? = nil
        ) -> Claim {
            Claim(
                holder: holder, id: id, taken: at(taken), renewed: renewed.map(at), expires: at(expires),
                released: released.map(at))
        }
        /// The todo merged from a base without a claim, each side claiming it as given.
        func merged(_ ours: Claim, _ theirs: Claim, completedOurs: Bool = false) -> MergeResult {
            let world = SeededWorld(seed: 5)
            defer { world.uninstall() }
            let todo = TodoItem(text: "Paint the fence")
            let base = AppState(todos: [todo], projects: [], removed: [])
            world.advance(60)
            var mine = todo.alter(.claim(ours))
            if completedOurs { mine = mine.alter(.completed(true)) }
            world.advance(1)
            let other = todo.alter(.claim(theirs))
            return merge(
                base: base, ours: AppState(todos: [mine], projects: [], removed: []),
                theirs: AppState(todos: [other], projects: [], removed: []))
        }

        describe("the claim merge") {
            context("when both sides hold the same claim") {
                it("keeps its later expiry and heartbeat") {
                    let one = claim("agent-1", idA, taken: 0, renewed: 20, expires: 80)
                    let two = claim("agent-1", idA, taken: 0, expires: 60)
                    expect(ClaimMerge.merged(one, two).kept) == one
                    expect(ClaimMerge.merged(two, one).kept) == one
                }
                it("keeps a release later than the last heartbeat") {
                    let released = claim("agent-1", idA, taken: 0, expires: 60, released: 30)
                    let renewed = claim("agent-1", idA, taken: 0, renewed: 20, expires: 80)
                    let kept = ClaimMerge.merged(released, renewed).kept
                    expect(kept?.released) == at(30)
                    expect(kept?.isLive(at: at(31))) == false
                }
                it("drops a release older than a heartbeat on the other side") {
                    let released = claim("agent-1", idA, taken: 0, expires: 60, released: 10)
                    let renewed = claim("agent-1", idA, taken: 0, renewed: 20, expires: 80)
                    let kept = ClaimMerge.merged(released, renewed).kept
                    expect(kept?.released).to(beNil())
                    expect(kept?.expires) == at(80)
                }
            }

            context("when two claims overlapped in time") {
                it("keeps the one taken first and records the other as lost in the report") {
                    let first = claim("agent-1", idB, taken: 0, expires: 60)
                    let second = claim("agent-2", idA, taken: 5, expires: 65)
                    for result in [merged(first, second), merged(second, first)] {
                        expect(result.state.todos.first?.claim) == first
                        let decision = result.report.items.first?.fields.first { $0.field == "claim" }
                        expect(decision?.rule) == .earlierClaim
                        expect(decision?.lost) == second.fieldText
                        expect(result.report.items.first?.lines.joined()).to(contain("lost \"agent-2 until"))
                    }
                }
                it("keeps the smaller claim id when both were taken on the same millisecond") {
                    let one = claim("agent-2", idA, taken: 0, expires: 60)
                    let two = claim("agent-1", idB, taken: 0, expires: 60)
                    expect(ClaimMerge.merged(one, two).kept) == one
                    expect(ClaimMerge.merged(two, one).kept) == one
                    expect(ClaimMerge.merged(two, one).lost) == two
                }
            }

            context("when one claim ended before the other was taken") {
                it("keeps the later, and records no loss") {
                    let released = claim("agent-1", idA, taken: 0, expires: 60, released: 10)
                    let later = claim("agent-2", idB, taken: 11, expires: 70)
                    let expired = claim("agent-1", idA, taken: 0, expires: 10)
                    for (a, b) in [(released, later), (later, released), (expired, later), (later, expired)] {
                        let result = ClaimMerge.merged(a, b)
                        expect(result.kept) == later
                        expect(result.lost).to(beNil())
                        expect(result.rule) == .laterClaim
                    }
                }
            }

            context("when one side completed the todo and the other claimed it") {
                it("leaves the todo completed and held by no one") {
                    let done = claim("agent-1", idA, taken: 0, expires: 60, released: 1)
                    let held = claim("agent-2", idB, taken: 0.5, expires: 60)
                    let todo = merged(done, held, completedOurs: true).state.todos.first
                    expect(todo?.completed) == true
                    expect(todo?.heldClaim(at: at(2))).to(beNil())
                }
            }

            context("when only one side changed the claim") {
                it("takes that side's claim, as any field") {
                    let world = SeededWorld(seed: 9)
                    defer { world.uninstall() }
                    let todo = TodoItem(text: "x").alter(.claim(claim("agent-1", idA, taken: 0, expires: 60)))
                    world.advance(60)
                    let renewed = todo.alter(.claim(todo.claim!.renewing()))
                    let edited = todo.alter(.text("y"))
                    let result = merge(
                        base: AppState(todos: [todo], projects: [], removed: []),
                        ours: AppState(todos: [renewed], projects: [], removed: []),
                        theirs: AppState(todos: [edited], projects: [], removed: []))
                    expect(result.state.todos.first?.claim) == renewed.claim
                    expect(result.state.todos.first?.text) == "y"
                }
            }

            context("over 1,000 seeded pairs of claims") {
                it("gives the same claim, loser and rule whichever side is which") {
                    forAll(1000) { g in
                        let (a, b) = RandomValues.claimPair(&g)
                        let (one, other) = (ClaimMerge.merged(a, b), ClaimMerge.merged(b, a))
                        return one.kept == other.kept && one.lost == other.lost && one.rule == other.rule
                            ? nil : "merged(a, b) = \(one), merged(b, a) = \(other) for \(a), \(b)"
                    }
                }
                it("gives a claim back when both sides hold it") {
                    forAll(1000) { g in
                        let (a, _) = RandomValues.claimPair(&g)
                        let kept = ClaimMerge.merged(a, a).kept
                        return kept == a ? nil : "merged(a, a) = \(String(describing: kept)) for \(a)"
                    }
                }
                it("is a fixed point: merging the result with either claim again changes nothing") {
                    forAll(1000) { g in
                        let (a, b) = RandomValues.claimPair(&g)
                        let kept = ClaimMerge.merged(a, b).kept
                        for side in [a, b] where ClaimMerge.merged(kept, side).kept != kept {
                            return "merged(merged(a, b), \(side)) moved from \(String(describing: kept))"
                        }
                        return nil
                    }
                }
                it("never keeps a claim taken later than another it overlapped") {
                    forAll(1000) { g in
                        let (a, b) = RandomValues.claimPair(&g)
                        let result = ClaimMerge.merged(a, b)
                        guard a.id != b.id, let kept = result.kept else { return nil }
                        let other = kept.id == a.id ? b : a
                        let overlapped =
                            kept.taken.docketMilliseconds < other.end.docketMilliseconds
                            && other.taken.docketMilliseconds < kept.end.docketMilliseconds
                        if overlapped && kept.taken.docketMilliseconds > other.taken.docketMilliseconds {
                            return "kept \(kept), taken after \(other), which it overlapped"
                        }
                        if overlapped && result.lost != other { return "the loser \(other) is not recorded" }
                        return nil
                    }
                }
            }
        }
    }
}
