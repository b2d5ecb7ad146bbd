// A terminal quiz over seed 004's Flow: the questions come from a JSON file
// (an array of strings); each is asked in turn, and the answers are shown at
// the end. Usage: quiz <questions.json>
import Foundation
import QuizFlow

/// Shows questions and the result on the terminal, reading answers from standard input.
final class TerminalRouter: Router {
    private let order: [String]
    private(set) var finished = false

    init(questions: [String]) { order = questions }

    func navigateTo(_ question: String, didAnswerQuestion: @escaping (String) -> Void) {
        let number = (order.firstIndex(of: question) ?? 0) + 1
        print("Question \(number) of \(order.count): \(question)")
        print("> ", terminator: "")
        fflush(nil)
        guard let answer = readLine() else {
            print("\nNo answer: the quiz stops here.")
            return
        }
        didAnswerQuestion(answer.trimmingCharacters(in: .whitespaces))
    }

    func navigateTo(_ result: [String: String]) {
        finished = true
        print("\nYour answers:")
        for question in order { print("  \(question)  \(result[question] ?? "")") }
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 1 else {
    FileHandle.standardError.write(
        Data("usage: quiz <questions.json>  (a JSON array of questions, such as Samples/Quiz/questions.json)\n".utf8))
    exit(64)
}
let questions: [String]
do {
    questions = try JSONDecoder().decode([String].self, from: Data(contentsOf: URL(fileURLWithPath: arguments[0])))
} catch {
    FileHandle.standardError.write(
        Data("quiz: \(arguments[0]) does not read as a JSON array of questions (\(error.localizedDescription))\n".utf8))
    exit(1)
}
if questions.isEmpty {
    print("No questions in \(arguments[0]).")
    exit(0)
}
let router = TerminalRouter(questions: questions)
let flow = Flow(router: router, questions: questions)
flow.start()
exit(router.finished ? 0 : 1)
