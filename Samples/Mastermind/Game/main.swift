// A terminal Mastermind over the Mastermind model: the board of seed 003's
// behaviour section as far as a terminal allows — nine rows, a result column
// at the left, rows played from the top, a reset. Type four numbers and Enter
// to check a row; r starts a new game; q quits. `--secret 1234` fixes the
// secret (for specs and demos).
import Foundation
import Mastermind

let arguments = Array(CommandLine.arguments.dropFirst())
let fixedSecret: [Int]? = arguments.firstIndex(of: "--secret").map { index in
    index + 1 < arguments.count ? arguments[index + 1].compactMap { $0.wholeNumberValue } : []
}
if let secret = fixedSecret, !Mastermind.isCombination(secret) {
    FileHandle.standardError.write(Data("mastermind: --secret takes four numbers from 1 to 4, such as 1234\n".utf8))
    exit(64)
}

@MainActor func newGame() -> Mastermind { fixedSecret.flatMap { Mastermind(secret: $0) } ?? Mastermind() }

let onTerminal = isatty(STDOUT_FILENO) == 1

func board(_ game: Mastermind, message: String) -> String {
    var lines = [
        "MASTERMIND  four numbers from 1 to 4 · Enter checks a row · r resets · q quits", "", "  result | combination",
        "  -------+------------",
    ]
    for row in 0..<Mastermind.maximumAttempts {
        if row < game.history.count {
            let turn = game.history[row]
            lines.append(
                "  " + turn.result.padding(toLength: 6, withPad: " ", startingAt: 0) + " | "
                    + turn.combination.map(String.init).joined(separator: " "))
        } else {
            lines.append("         | " + Array(repeating: "·", count: Mastermind.length).joined(separator: " "))
        }
    }
    lines += ["", message]
    return lines.joined(separator: "\n") + "\n"
}

func prompt(_ game: Mastermind) -> String {
    if game.isSolved {
        return
            "Solved in \(game.attempts) \(game.attempts == 1 ? "attempt" : "attempts")! r starts a new game, q quits."
    }
    if game.isOver {
        return
            "No attempts left: the secret was \(game.secret.map(String.init).joined(separator: " ")). r starts a new game, q quits."
    }
    return "Row \(game.attempts + 1) of \(Mastermind.maximumAttempts): type four numbers and Enter."
}

@MainActor func show(_ game: Mastermind, _ message: String? = nil) {
    if onTerminal { print("\u{1B}[H\u{1B}[2J", terminator: "") }
    print(board(game, message: message ?? prompt(game)), terminator: "")
    print("> ", terminator: "")
    fflush(nil)
}

var game = newGame()
show(game)
while let line = readLine() {
    let input = line.trimmingCharacters(in: .whitespaces).lowercased()
    switch input {
    case "q", "quit":
        print("")
        exit(0)
    case "r", "reset":
        game = game.alter(.newGame(secret: newGame().secret))
        show(game)
    default:
        let combination = input.compactMap { $0.wholeNumberValue }
        let typed = input.filter { !$0.isWhitespace && $0 != "," }
        if game.isOver {
            show(game, "This game is over. " + prompt(game))
        } else if typed.count != Mastermind.length || !Mastermind.isCombination(combination) {
            show(game, "'\(line)' is not four numbers from 1 to 4 (such as 1 2 3 4). " + prompt(game))
        } else {
            game = game.alter(.play(combination))
            show(game)
        }
    }
}
print("")
