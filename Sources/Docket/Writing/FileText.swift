import DocketModel
import Foundation

/// A value written with extra top-level keys beside its own.
private struct FileRecord<Value: Encodable>: Encodable {
    let value: Value
    let extra: [String: JSONValue]

    func encode(to encoder: Encoder) throws {
        try value.encode(to: encoder)
        var c = encoder.container(keyedBy: FieldKey.self)
        for (key, value) in extra { try c.encode(value, forKey: FieldKey(key)) }
    }
}

/// The file text of `value` with `extra` keys, keeping every key of the
/// `existing` file that neither writes. `owning` names the keys the value's
/// type writes only when they hold something (an empty list of tags): those
/// are Docket's to drop, never kept from the old file.
func fileText(
    _ value: some Encodable, extra: [String: JSONValue] = [:], owning: [String] = [],
    keepingUnknownKeysOf existing: Data?
) throws -> Data {
    let fresh = try DocketJSON.encode(FileRecord(value: value, extra: extra))
    guard let existing else { return fresh }
    // NB: decoding both texts whole to compare their keys was half the writing of a re-dated item (a commit of
    // 1,000 hand edits); most files hold no key the new text lacks, which their top-level keys alone show.
    if let oldKeys = topLevelKeys(of: existing), let keys = topLevelKeys(of: fresh),
        oldKeys.isSubset(of: keys.union(owning))
    {
        return fresh
    }
    guard let old = try? JSONDecoder().decode([String: JSONValue].self, from: existing),
        let written = try? JSONDecoder().decode([String: JSONValue].self, from: fresh)
    else { return fresh }
    let owned = Set(owning)
    let unknown = old.filter { written[$0.key] == nil && !owned.contains($0.key) }
    guard !unknown.isEmpty else { return fresh }
    return try DocketJSON.encode(FileRecord(value: value, extra: extra.merging(unknown) { mine, _ in mine }))
}

/// The keys of a JSON object's top level, read without decoding its values;
/// nil when the text is not an object this reader is sure of (a key written
/// with an escape, anything it does not expect), which the caller decodes instead.
func topLevelKeys(of text: Data) -> Set<String>? {
    text.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Set<String>? in
        let quote = UInt8(ascii: "\"")
        let backslash = UInt8(ascii: "\\")
        var i = 0
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
        func skipSpace() { while i < bytes.count, isSpace(bytes[i]) { i += 1 } }
        /// Past a string that starts at `i`; false when it does not end.
        func skipString() -> Bool {
            i += 1
            while i < bytes.count {
                if bytes[i] == backslash {
                    i += 2
                    continue
                }
                if bytes[i] == quote {
                    i += 1
                    return true
                }
                i += 1
            }
            return false
        }
        /// Past one value: a string, an object or array (to its matching end), or a number or literal.
        func skipValue() -> Bool {
            guard i < bytes.count else { return false }
            switch bytes[i] {
            case quote: return skipString()
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                while i < bytes.count {
                    switch bytes[i] {
                    case quote:
                        guard skipString() else { return false }
                        continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                        if depth == 0 {
                            i += 1
                            return true
                        }
                    default: break
                    }
                    i += 1
                }
                return false
            default:
                let start = i
                while i < bytes.count, bytes[i] != UInt8(ascii: ","), bytes[i] != UInt8(ascii: "}"), !isSpace(bytes[i])
                { i += 1 }
                return i > start
            }
        }
        skipSpace()
        guard i < bytes.count, bytes[i] == UInt8(ascii: "{") else { return nil }
        i += 1
        var keys = Set<String>()
        skipSpace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "}") {
            i += 1
        } else {
            while true {
                guard i < bytes.count, bytes[i] == quote else { return nil }
                let start = i + 1
                guard skipString() else { return nil }
                let key = UnsafeRawBufferPointer(rebasing: bytes[start..<(i - 1)])
                guard !key.contains(backslash) else { return nil }
                keys.insert(String(decoding: key, as: UTF8.self))
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { return nil }
                i += 1
                skipSpace()
                guard skipValue() else { return nil }
                skipSpace()
                guard i < bytes.count else { return nil }
                if bytes[i] == UInt8(ascii: "}") {
                    i += 1
                    break
                }
                guard bytes[i] == UInt8(ascii: ",") else { return nil }
                i += 1
                skipSpace()
            }
        }
        skipSpace()
        return i == bytes.count ? keys : nil
    }
}
