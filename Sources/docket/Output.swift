import Docket
import Foundation

/// Printing for people (colour only on a terminal, never with a non-empty NO_COLOR) and for scripts (JSON).
enum Output {
    static let colour: Bool =
        isatty(STDOUT_FILENO) == 1 && (ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty
        && ProcessInfo.processInfo.environment["TERM"] != "dumb"

    static func paint(_ text: String, _ code: String) -> String { colour ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }
    static func dim(_ text: String) -> String { paint(text, "2") }
    static func bold(_ text: String) -> String { paint(text, "1") }
    static func red(_ text: String) -> String { paint(text, "31") }
    static func green(_ text: String) -> String { paint(text, "32") }
    static func yellow(_ text: String) -> String { paint(text, "33") }
    static func cyan(_ text: String) -> String { paint(text, "36") }

    /// A one-line notice on stderr.
    static func notice(_ text: String) {
        FileHandle.standardError.write(Data((safeLines(text) + "\n").utf8))
    }

    /// A warning on stderr.
    static func warning(_ text: String) {
        FileHandle.standardError.write(Data(("Warning: " + safeLines(text) + "\n").utf8))
    }

    /// Text from a file, a remote or a person, made safe for a terminal:
    /// control characters (escape sequences, newlines, tabs, C1 controls) and
    /// the marks that reorder or hide text on screen (bidi marks, U+061C,
    /// zero-width spaces and joiners, the line and paragraph separators) are
    /// shown escaped (`\e`, `\n`, `\u{202E}`), so an item's text can neither
    /// move the cursor, retitle the window, nor break or disguise a
    /// one-line-per-item listing.
    static func safe(_ text: String) -> String {
        // NB: the lead bytes of U+0080–009F (C2), U+061C (D8) and U+2000–2FFF (E2); other text is returned as it is.
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 || $0 == 0xD8 || $0 == 0xE2 }) else {
            return text
        }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A: out += "\\n"
            case 0x09: out += "\\t"
            case 0x0D: out += "\\r"
            case 0x1B: out += "\\e"
            case 0x00..<0x20, 0x7F, 0x80..<0xA0, 0x061C, 0x200B...0x200F, 0x2028, 0x2029, 0x202A...0x202E,
                0x2066...0x2069:
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// `safe`, line by line: the message's own line breaks stay.
    static func safeLines(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { safe(String($0)) }.joined(separator: "\n")
    }

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
        FileHandle.standardOutput.write(jsonSafe(try DocketJSON.encode(value)))
    }

    /// JSON with the characters a terminal acts on, or that hide or reorder
    /// text, written as `\uXXXX` escapes (JSON escapes C0 controls already;
    /// C1 controls, bidi marks, U+061C, zero-width spaces and joiners and the
    /// line and paragraph separators it would carry raw): the same values, read back.
    static func jsonSafe(_ data: Data) -> Data {
        // Their UTF-8 lead bytes: C2 (U+0080–009F), D8 (U+061C), E2 (U+2000–2FFF).
        guard data.contains(where: { $0 == 0xC2 || $0 == 0xD8 || $0 == 0xE2 }) else { return data }
        var out = ""
        for scalar in String(decoding: data, as: UTF8.self).unicodeScalars {
            switch scalar.value {
            case 0x80..<0xA0, 0x061C, 0x200B...0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069:
                out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return Data(out.utf8)
    }

    /// What an export prints: as it is into a file or a pipe, and shown safe
    /// (`safeLines`) on a terminal, where the controls in an item's text would act.
    static func export(_ text: String) {
        write(isatty(STDOUT_FILENO) == 1 ? safeLines(text) : text)
    }

    /// The short form of an id, as `add` prints it and prefixes match it.
    static func short(_ id: UUID) -> String {
        let digits = Array("0123456789abcdef".utf8)
        let bytes = id.uuid
        return String(
            decoding: [bytes.0, bytes.1, bytes.2, bytes.3].flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] },
            as: UTF8.self)
    }
}
