import Docket
import Foundation

/// Printing for people (colour only on a terminal, never with NO_COLOR) and for scripts (JSON).
enum Output {
    static let colour: Bool = isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
        && ProcessInfo.processInfo.environment["TERM"] != "dumb"

    static func paint(_ text: String, _ code: String) -> String { colour ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }
    static func dim(_ text: String) -> String { paint(text, "2") }
    static func red(_ text: String) -> String { paint(text, "31") }
    static func green(_ text: String) -> String { paint(text, "32") }
    static func yellow(_ text: String) -> String { paint(text, "33") }

    /// A one-line notice on stderr.
    static func notice(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// A warning on stderr.
    static func warning(_ text: String) {
        FileHandle.standardError.write(Data(("Warning: " + text + "\n").utf8))
    }

    /// A value as Docket's JSON on stdout.
    /// Writes `text` to standard output in one go (far faster than a print per line).
    static func write(_ text: String) {
        fflush(nil)
        var text = text
        text.withUTF8 { utf8 in
            var offset = 0
            while offset < utf8.count {
                let written = Glibc.write(1, utf8.baseAddress! + offset, utf8.count - offset)
                if written <= 0 { return }
                offset += written
            }
        }
    }

    static func json(_ value: some Encodable) throws {
        FileHandle.standardOutput.write(try DocketJSON.encode(value))
    }

    /// The short form of an id, as `add` prints it and prefixes match it.
    static func short(_ id: UUID) -> String {
        let digits = Array("0123456789abcdef".utf8)
        let bytes = id.uuid
        return String(decoding: [bytes.0, bytes.1, bytes.2, bytes.3].flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] },
                      as: UTF8.self)
    }
}
