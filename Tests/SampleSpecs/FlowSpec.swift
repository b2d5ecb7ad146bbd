import Nimble
import Quick
import QuizFlow

/// Seed 004's cases for the quiz Flow, with its RouterSpy, plus the two it leaves as homework.
final class FlowSpec: QuickSpec {
    override class func spec() {
        var router: RouterSpy!
        beforeEach { router = RouterSpy() }

        describe("Flow") {
            it("does not navigate anywhere when there are no questions") {
                let sut = Flow(router: router, questions: [])
                sut.start()
                expect(router.questions).to(beEmpty())
            }
            it("shows no result either when there are no questions") {
                let sut = Flow(router: router, questions: [])
                sut.start()
                expect(router.result).to(beNil())
            }
            it("navigates to the question when it has one") {
                let sut = Flow(router: router, questions: ["Question1"])
                sut.start()
                expect(router.questions) == ["Question1"]
            }
            it("navigates to the first question when it has two") {
                let sut = Flow(router: router, questions: ["Question1", "Question2"])
                sut.start()
                expect(router.questions) == ["Question1"]
            }
            it("navigates to the second question once the first of two is answered") {
                let sut = Flow(router: router, questions: ["Question1", "Question2"])
                sut.start()
                router.didAnswerQuestion("Answer1")
                expect(router.questions) == ["Question1", "Question2"]
            }
            it("navigates to the third question once the first and second of three are answered") {
                let sut = Flow(router: router, questions: ["Question1", "Question2", "Question3"])
                sut.start()
                router.didAnswerQuestion("Answer1")
                router.didAnswerQuestion("Answer2")
                expect(router.questions) == ["Question1", "Question2", "Question3"]
            }
            it("shows no result while a question is unanswered") {
                let sut = Flow(router: router, questions: ["Question1", "Question2"])
                sut.start()
                router.didAnswerQuestion("Answer1")
                expect(router.result).to(beNil())
            }
            it("navigates to the result with the answers once all questions are answered") {
                let sut = Flow(router: router, questions: ["Question1", "Question2"])
                sut.start()
                router.didAnswerQuestion("Answer1")
                router.didAnswerQuestion("Answer2")
                expect(router.result) == ["Question1": "Answer1", "Question2": "Answer2"]
            }
        }
    }
}

/// Records where the flow navigates, and answers for the user.
final class RouterSpy: Router {
    var questions: [String] = []
    var result: [String: String]?
    var didAnswerQuestion: (String) -> Void = { _ in }

    func navigateTo(_ question: String, didAnswerQuestion: @escaping (String) -> Void) {
        questions.append(question)
        self.didAnswerQuestion = didAnswerQuestion
    }

    func navigateTo(_ result: [String: String]) {
        self.result = result
    }
}
