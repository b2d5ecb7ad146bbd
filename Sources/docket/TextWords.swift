import ArgumentParser
import Foundation

/// A text given as words, quoted or not (`docket add Buy bread` is "Buy
/// bread"), as people type it after `task add` or `t add`. A word that starts
/// with a dash is text too ("-5 pushups"), unless it looks like a mistyped
/// option (`--dew`), which is refused rather than written into the text.
enum TextWords {
    /// The words joined by spaces; a usage error when there is no text or a word looks like an option
    /// (with the nearest of the options `command` declares).
    static func join(_ words: [String], what: String, command: ParsableCommand.Type? = nil) throws -> String {
        let end = words.firstIndex(of: "--") ?? words.endIndex
        if let option = words[..<end].first(where: looksLikeOption) {
            let example = command == Add.self ? ": docket add -- \(Output.safe(option))" : ""
            throw ValidationError(
                try UnknownOption.message(option, of: command)
                    + " (text that starts with dashes goes after '--'\(example))")
        }
        let text = words.enumerated().filter { $0.offset != end }.map(\.element).joined(separator: " ")
        if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw ValidationError("\(what) cannot be empty")
        }
        return text
    }

    /// `--word` or `-x` alone (one letter): what an option looks like.
    static func looksLikeOption(_ word: String) -> Bool {
        if word.hasPrefix("--") { return word.count > 2 && word.dropFirst(2).first!.isLetter && !word.contains(" ") }
        return word.count == 2 && word.hasPrefix("-") && word.last!.isLetter
    }
}
