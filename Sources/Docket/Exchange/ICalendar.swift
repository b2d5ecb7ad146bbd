import Foundation

/// iCalendar (RFC 5545) as text: components of properties, read and written
/// line by line, keeping every property and component as it came, so a file
/// written back keeps what Docket does not know.
struct ICalComponent: Equatable {
    /// A content line: `NAME;PARAM=V:value`, its value still escaped.
    struct Property: Equatable {
        var name: String
        var parameters: String
        var value: String

        /// A parameter's value, such as TZID or VALUE.
        func parameter(_ key: String) -> String? {
            for part in parameters.split(separator: ";") {
                let pair = part.split(separator: "=", maxSplits: 1)
                if pair.count == 2, pair[0].uppercased() == key {
                    return String(pair[1]).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                }
            }
            return nil
        }

        /// The value as text, unescaped.
        var text: String { ICalComponent.unescape(value) }

        var line: String { name + parameters + ":" + value }
    }

    enum Problem: Error { case unreadable(String) }

    var name: String
    var properties: [Property] = []
    var components: [ICalComponent] = []

    init(name: String, properties: [Property] = [], components: [ICalComponent] = []) {
        self.name = name
        self.properties = properties
        self.components = components
    }

    /// How deep components may nest in a file Docket reads.
    static let deepest = 16

    /// The first property of this name.
    func property(_ name: String) -> Property? { properties.first { $0.name == name } }

    /// Every property of this name.
    func all(_ name: String) -> [Property] { properties.filter { $0.name == name } }

    /// Reads a whole file: one top-level component.
    static func parse(_ text: String) throws -> ICalComponent {
        var unfolded: [String] = []
        for raw in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            var line = Substring(raw)
            if line.hasSuffix("\r") { line = line.dropLast() }
            if let first = line.first, first == " " || first == "\t", !unfolded.isEmpty {
                unfolded[unfolded.count - 1] += line.dropFirst()
            } else if !line.isEmpty {
                unfolded.append(String(line))
            }
        }
        var stack: [ICalComponent] = []
        var top: ICalComponent?
        for (number, line) in unfolded.enumerated() {
            guard let property = split(line) else {
                throw Problem.unreadable("line \(number + 1) is not a NAME:value line")
            }
            switch property.name {
            case "BEGIN":
                // NB: components nest as values, whose comparing, writing and freeing recurse: a file 60,000 deep
                // overflowed the stack. Calendars nest three deep (VCALENDAR, VTODO, VALARM).
                guard stack.count < ICalComponent.deepest else {
                    throw Problem.unreadable("its components are nested more than \(ICalComponent.deepest) deep")
                }
                stack.append(ICalComponent(name: property.value.uppercased()))
            case "END":
                guard let done = stack.popLast(), done.name == property.value.uppercased() else {
                    throw Problem.unreadable("END:\(property.value.prefix(20)) does not close the open component")
                }
                if stack.isEmpty {
                    guard top == nil else { throw Problem.unreadable("it holds more than one calendar") }
                    top = done
                } else {
                    stack[stack.count - 1].components.append(done)
                }
            default:
                guard !stack.isEmpty else {
                    throw Problem.unreadable("line \(number + 1) lies outside BEGIN:VCALENDAR")
                }
                stack[stack.count - 1].properties.append(property)
            }
        }
        guard stack.isEmpty, let top else { throw Problem.unreadable("it ends before its components do (cut short?)") }
        return top
    }

    private static func split(_ line: String) -> Property? {
        var inQuotes = false
        var nameEnd: String.Index?
        for index in line.indices {
            let character = line[index]
            if character == "\"" { inQuotes.toggle() }
            if !inQuotes, nameEnd == nil, character == ";" { nameEnd = index }
            if !inQuotes, character == ":" {
                let end = nameEnd ?? index
                let name = line[..<end].uppercased()
                guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else { return nil }
                return Property(
                    name: name, parameters: String(line[end..<index]), value: String(line[line.index(after: index)...]))
            }
        }
        return nil
    }

    /// The component as a file: CRLF lines folded at 75 octets.
    var text: String {
        var lines: [String] = []
        write(into: &lines)
        return lines.map(ICalComponent.fold).joined()
    }

    private func write(into lines: inout [String]) {
        lines.append("BEGIN:" + name)
        // NB: a value kept as it came from a file may hold what another reader takes as a line break
        // (Python's splitlines: CR, VT, FF, FS, GS, RS, NEL, U+2028/2029): none reaches the file.
        for property in properties { lines.append(ICalComponent.withoutControls(property.line)) }
        for component in components { component.write(into: &lines) }
        lines.append("END:" + name)
    }

    private static func fold(_ line: String) -> String {
        var out = ""
        var count = 0
        for character in line {
            let size = String(character).utf8.count
            if count + size > 75 {
                out += "\r\n "
                count = 1
            }
            out.append(character)
            count += size
        }
        return out + "\r\n"
    }

    /// Text as a TEXT value: backslash, semicolon and comma escaped, every
    /// line break (whatever a reader may split at: LF, CR, CRLF, VT, FF, FS,
    /// GS, RS, NEL, U+2028/2029) as `\n`, and any other control character,
    /// which RFC 5545 does not allow in a value, as U+FFFD.
    static func escape(_ text: String) -> String {
        var out = ""
        var afterCR = false
        for scalar in text.unicodeScalars {
            defer { afterCR = scalar == "\r" }
            switch scalar.value {
            case 0x5C: out += "\\\\"
            case 0x3B: out += "\\;"
            case 0x2C: out += "\\,"
            case 0x0A where afterCR: continue
            case 0x0A, 0x0B, 0x0C, 0x0D, 0x1C...0x1E, 0x85, 0x2028, 0x2029: out += "\\n"
            case 0x00..<0x20, 0x7F, 0x80..<0xA0: out += "\u{FFFD}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A content line with every control character (and U+2028/2029) as U+FFFD: what `escape` leaves is none.
    static func withoutControls(_ line: String) -> String {
        guard line.unicodeScalars.contains(where: isControl) else { return line }
        var out = ""
        for scalar in line.unicodeScalars { out.unicodeScalars.append(isControl(scalar) ? "\u{FFFD}" : scalar) }
        return out
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 && scalar != "\t" || (0x7F..<0xA0).contains(scalar.value) || scalar.value == 0x2028
            || scalar.value == 0x2029
    }

    static func unescape(_ text: String) -> String {
        var out = ""
        var escaped = false
        for character in text {
            if escaped {
                out.append(character == "n" || character == "N" ? "\n" : character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                out.append(character)
            }
        }
        return out
    }

    /// The parts of a list value (CATEGORIES), split at unescaped commas, each unescaped.
    static func list(_ value: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var escaped = false
        for character in value {
            if escaped {
                current.append("\\")
                current.append(character)
                escaped = false
                continue
            }
            if character == "\\" {
                escaped = true
                continue
            }
            if character == "," {
                parts.append(unescape(current))
                current = ""
                continue
            }
            current.append(character)
        }
        parts.append(unescape(current))
        return parts.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
