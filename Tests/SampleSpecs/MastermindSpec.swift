import DocketSpecSupport
import Mastermind
import Nimble
import Quick

/// Seed 003's model requirements, one `it` each, in its words.
final class MastermindSpec: QuickSpec {
    override class func spec() {
        var game: Mastermind!
        beforeEach { game = Mastermind(secret: [1, 2, 3, 4]) }

        describe("a new game") {
            it("creates a new secret combination every time") {
                var generator = SeededGenerator(seed: 3)
                let secrets = (0..<20).map { _ in Mastermind(using: &generator).secret }
                expect(Set(secrets).count) > 1
            }
            it("has a secret combination four numbers long") {
                var generator = SeededGenerator(seed: 4)
                expect(Mastermind(using: &generator).secret.count) == 4
            }
            it("has numbers between 1 and 4 in the secret") {
                var generator = SeededGenerator(seed: 5)
                for _ in 0..<200 {
                    expect(Mastermind(using: &generator).secret.allSatisfy { (1...4).contains($0) }) == true
                }
            }
            it("can repeat numbers in the secret") {
                var generator = SeededGenerator(seed: 6)
                let secrets = (0..<200).map { _ in Mastermind(using: &generator).secret }
                expect(secrets.contains { Set($0).count < 4 }) == true
                expect(Mastermind(secret: [2, 2, 2, 2])?.secret) == [2, 2, 2, 2]
            }
            it("starts with zero attempts") {
                expect(game.attempts) == 0
                expect(game.alter(.play([1, 1, 1, 1]), .newGame(secret: [4, 4, 4, 4])).attempts) == 0
            }
        }

        describe("combinations") {
            it("are accepted at most nine times") {
                let played = (0..<12).reduce(game!) { game, _ in game.alter(.play([4, 3, 2, 1])) }
                expect(Mastermind.maximumAttempts) == 9
                expect(played.attempts) == 9
            }
            it("are accepted only when four numbers long") {
                expect(game.alter(.play([1, 2, 3])).attempts) == 0
                expect(game.alter(.play([1, 2, 3, 4, 1])).attempts) == 0
                expect(game.alter(.play([4, 3, 2, 1])).attempts) == 1
            }
            it("may contain duplicated numbers") {
                expect(game.alter(.play([1, 1, 2, 2])).attempts) == 1
            }
            it("are accepted only with numbers between 1 and 4") {
                expect(game.alter(.play([0, 1, 2, 3])).attempts) == 0
                expect(game.alter(.play([1, 2, 3, 5])).attempts) == 0
            }
            it("each generate a new result when inserted") {
                let played = game.alter(.play([4, 3, 2, 1]), .play([1, 1, 1, 1]))
                expect(played.history.map(\.result)) == ["BBBB", "A"]
            }
            it("get one A per number in the right position and one B per number present elsewhere") {
                expect(game.result(of: [1, 2, 3, 4])) == "AAAA"
                expect(game.result(of: [1, 3, 2, 4])) == "AABB"
                expect(game.result(of: [1, 1, 1, 1])) == "A"
                expect(game.result(of: [2, 1, 1, 1])) == "BB"
                expect(Mastermind(secret: [1, 1, 2, 2])!.result(of: [2, 2, 1, 1])) == "BBBB"
                expect(Mastermind(secret: [1, 1, 2, 2])!.result(of: [1, 2, 4, 4])) == "AB"
            }
        }

        describe("the end of a game") {
            it("accepts no new combination after AAAA") {
                let solved = game.alter(.play([1, 2, 3, 4]))
                expect(solved.isSolved) == true
                expect(solved.alter(.play([4, 3, 2, 1])).attempts) == 1
            }
            it("accepts no new combination after nine attempts without AAAA") {
                let played = (0..<9).reduce(game!) { game, _ in game.alter(.play([4, 3, 2, 1])) }
                expect(played.isOver) == true
                expect(played.isSolved) == false
                expect(played.accepts([1, 2, 3, 4])) == false
            }
        }

        describe("the history") {
            it("gives the ordered pairs of combination and result at any moment") {
                expect(game.history).to(beEmpty())
                let played = game.alter(.play([4, 3, 2, 1]), .play([1, 2, 3, 5]), .play([1, 2, 4, 3]))
                expect(played.history.map(\.combination)) == [[4, 3, 2, 1], [1, 2, 4, 3]]
                expect(played.history.map(\.result)) == ["BBBB", "AABB"]
            }
        }
    }
}
