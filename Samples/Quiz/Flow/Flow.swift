/// Seed 004's quiz flow ("Test Driven Development: Simple Flow Object"): it
/// asks its router to show each question in turn and, once the last is
/// answered, the result: every question with its answer.
public protocol Router {
    /// Shows `question`; calls `didAnswerQuestion` with the answer given.
    func navigateTo(_ question: String, didAnswerQuestion: @escaping (String) -> Void)
    /// Shows the result: each question with its answer.
    func navigateTo(_ result: [String: String])
}

/// The flow of a quiz through its questions to its result.
public final class Flow {
    private let router: Router
    private let questions: [String]
    private var result: [String: String] = [:]

    /// A flow over `questions`, shown through `router`.
    public init(router: Router, questions: [String]) {
        self.router = router
        self.questions = questions
    }

    /// Shows the first question; with no questions, nothing.
    public func start() {
        guard let firstQuestion = questions.first else { return }
        router.navigateTo(firstQuestion, didAnswerQuestion: navigateToNextQuestion(firstQuestion))
    }

    private func navigateToNextQuestion(_ question: String) -> (String) -> Void {
        return { [weak self] answer in
            guard let self else { return }
            self.result[question] = answer
            if let index = self.questions.firstIndex(of: question), index + 1 < self.questions.count {
                let nextQuestion = self.questions[index + 1]
                self.router.navigateTo(nextQuestion, didAnswerQuestion: self.navigateToNextQuestion(nextQuestion))
            } else {
                self.router.navigateTo(self.result)
            }
        }
    }
}
