import Foundation

extension UUID {
    /// Whether this id sorts before `other`: the order of their uppercase
    /// strings, computed on the bytes (hex digits keep byte order) without
    /// making strings, since stores sort 100,000 ids.
    package func precedes(_ other: UUID) -> Bool {
        var a = uuid
        var b = other.uuid
        return withUnsafeBytes(of: &a) { pa in
            withUnsafeBytes(of: &b) { pb in memcmp(pa.baseAddress!, pb.baseAddress!, 16) < 0 }
        }
    }
}

extension UUID {
    /// The all-zero id, which no item has: a placeholder while decoding.
    package static let zero = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
}

extension UUID {
    /// The id written as 36 characters `8-4-4-4-12` of hex digits (either case); nil for anything else.
    /// NB: Foundation's `UUID(uuidString:)` parses with `sscanf`, a tenth of
    /// loading a store; this reads the bytes directly.
    package init?(hexBytes text: UnsafeBufferPointer<UInt8>) {
        guard text.count == 36 else { return nil }
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let valid = withUnsafeMutableBytes(of: &bytes) { out -> Bool in
            var index = 0
            var position = 0
            while position < 36 {
                if position == 8 || position == 13 || position == 18 || position == 23 {
                    guard text[position] == UInt8(ascii: "-") else { return false }
                    position += 1
                    continue
                }
                guard let high = UUID.hexValue(text[position]), let low = UUID.hexValue(text[position + 1]) else {
                    return false
                }
                out[index] = high << 4 | low
                index += 1
                position += 2
            }
            return true
        }
        guard valid else { return nil }
        self.init(uuid: bytes)
    }

    /// The id of a text as `init(hexBytes:)` reads it.
    package init?(hex text: String) {
        var text = text
        guard let id = text.withUTF8({ UUID(hexBytes: $0) }) else { return nil }
        self = id
    }

    private static func hexValue(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
