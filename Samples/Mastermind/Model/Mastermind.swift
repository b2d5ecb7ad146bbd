/// Mastermind as seed 003 ("BDD – Mastermind: internal design") specifies its
/// model: a secret of four numbers from 1 to 4 (repeats allowed), at most nine
/// attempts, each accepted combination answered with one "A" per number in
/// the right place and one "B" per number present elsewhere.
///
/// A Docket-style module: an immutable value, changed only through its
/// Change DSL (`alter`), with one output: the game's `history`.
public struct Mastermind: Hashable, Sendable {
    /// How many numbers a combination has.
    public static let length = 4
    /// The numbers a combination may hold.
    public static let numbers = 1...4
    /// How many combinations a game accepts at most.
    public static let maximumAttempts = 9
    /// The result of a combination equal to the secret.
    public static let solved = "AAAA"

    /// One accepted combination and its result.
    public struct Turn: Hashable, Sendable {
        /// The combination played.
        public let combination: [Int]
        /// "A" per number in the right place, then "B" per number elsewhere: "AAB".
        public let result: String
    }

    /// The Change DSL of a game.
    public enum Change: Hashable, Sendable {
        /// Plays a combination; one the game does not accept changes nothing.
        case play([Int])
        /// Ends this game and starts a new one with this secret.
        case newGame(secret: [Int])
    }

    /// The combination to find.
    public let secret: [Int]
    /// Every accepted combination with its result, in the order played.
    public let history: [Turn]

    /// A new game with this secret (specs choose it); nil unless it is a combination the game accepts.
    public init?(secret: [Int]) {
        guard Mastermind.isCombination(secret) else { return nil }
        self.init(checkedSecret: secret, history: [])
    }

    /// A new game with a new random secret.
    public init<G: RandomNumberGenerator>(using generator: inout G) {
        self.init(checkedSecret: Mastermind.randomSecret(using: &generator), history: [])
    }

    /// A new game with a new random secret from the system's generator.
    public init() {
        var generator = SystemRandomNumberGenerator()
        self.init(using: &generator)
    }

    private init(checkedSecret: [Int], history: [Turn]) {
        secret = checkedSecret
        self.history = history
    }

    /// A secret of four numbers from 1 to 4.
    public static func randomSecret<G: RandomNumberGenerator>(using generator: inout G) -> [Int] {
        (0..<length).map { _ in Int.random(in: numbers, using: &generator) }
    }

    /// How many combinations were accepted.
    public var attempts: Int { history.count }

    /// Whether the last result is "AAAA".
    public var isSolved: Bool { history.last?.result == Mastermind.solved }

    /// Whether the game accepts no more combinations: solved, or nine attempts made.
    public var isOver: Bool { isSolved || attempts >= Mastermind.maximumAttempts }

    /// Whether `combination` is four numbers from 1 to 4.
    public static func isCombination(_ combination: [Int]) -> Bool {
        combination.count == length && combination.allSatisfy(numbers.contains)
    }

    /// Whether the game would accept `combination` now.
    public func accepts(_ combination: [Int]) -> Bool { !isOver && Mastermind.isCombination(combination) }

    /// The result `combination` gets against the secret.
    public func result(of combination: [Int]) -> String {
        let exact = zip(combination, secret).filter { $0 == $1 }.count
        let common = Mastermind.numbers.reduce(0) { total, number in
            total + min(combination.filter { $0 == number }.count, secret.filter { $0 == number }.count)
        }
        return String(repeating: "A", count: exact) + String(repeating: "B", count: common - exact)
    }

    /// The game after the changes, applied in order.
    public func alter(_ changes: Change...) -> Mastermind {
        changes.reduce(self) { $0.applying($1) }
    }

    private func applying(_ change: Change) -> Mastermind {
        switch change {
        case let .play(combination):
            guard accepts(combination) else { return self }
            return Mastermind(
                checkedSecret: secret,
                history: history + [Turn(combination: combination, result: result(of: combination))])
        case let .newGame(secret):
            return Mastermind(secret: secret) ?? self
        }
    }
}
