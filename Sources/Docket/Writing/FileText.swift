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
///
/// `dueKeys` names the keys holding due, wait or scheduled dates: where
/// `existing` holds one as a UTC moment from before store format 3, which
/// reads in `DocketClock`'s time zone as the value written, that text is kept.
func fileText(
    _ value: some Encodable, extra: [String: JSONValue] = [:], owning: [String] = [],
    keepingUnknownKeysOf existing: Data?, dueKeys: [String] = []
) throws -> Data {
    let text = try fileTextKeepingUnknownKeys(value, extra: extra, owning: owning, existing: existing)
    guard let existing, !dueKeys.isEmpty else { return text }
    return keepingLegacyDueTexts(of: existing, in: text, keys: dueKeys)
}

/// `text` with the due dates `existing` holds in their form from before store format 3 kept where they read as
/// the value `text` holds.
///
/// NB: such a text (`2026-11-24T11:00:00.000Z`) is a day on the machine whose noon it is (Berlin's) and a time
/// anywhere else (6:00 in New York): written anew from New York, with New York's offset, a day set in Berlin became
/// a time everywhere, though nobody changed it. Kept as it was, each machine goes on reading it as before.
func keepingLegacyDueTexts(of existing: Data, in text: Data, keys: [String]) -> Data {
    let wanted = Set(keys)
    guard let old = topLevelEntries(of: existing, stringsOf: wanted)?.strings else { return text }
    let legacy = old.compactMapValues { range -> String? in
        let value = String(
            decoding: existing[existing.startIndex + range.lowerBound..<existing.startIndex + range.upperBound],
            as: UTF8.self)
        return value.last == "Z" || value.last == "z" ? value : nil
    }
    guard !legacy.isEmpty, let new = topLevelEntries(of: text, stringsOf: Set(legacy.keys))?.strings else {
        return text
    }
    var result = text
    for (key, range) in new.sorted(by: { $0.value.lowerBound > $1.value.lowerBound }) {
        guard let kept = legacy[key] else { continue }
        let bounds = text.startIndex + range.lowerBound..<text.startIndex + range.upperBound
        let written = String(decoding: text[bounds], as: UTF8.self)
        guard written != kept, let was = DueDate.reading(kept), was == DueDate.reading(written) else { continue }
        result.replaceSubrange(bounds, with: Data(kept.utf8))
    }
    return result
}

/// The file text of `value` with `extra` keys, keeping every key of the `existing` file that neither writes.
private func fileTextKeepingUnknownKeys(
    _ value: some Encodable, extra: [String: JSONValue], owning: [String], existing: Data?
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
    topLevelEntries(of: text, stringsOf: [])?.keys
}

/// The keys of a JSON object's top level, and where the string values of the keys in `wanted` lie (their bytes
/// between the quotes, from the start of `text`; a string written with an escape is left out), read without
/// decoding its values; nil when the text is not an object this reader is sure of.
func topLevelEntries(of text: Data, stringsOf wanted: Set<String>) -> (
    keys: Set<String>, strings: [String: Range<Int>]
)? {
    text.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> (keys: Set<String>, strings: [String: Range<Int>])? in
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
        var strings: [String: Range<Int>] = [:]
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
                let name = String(decoding: key, as: UTF8.self)
                keys.insert(name)
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { return nil }
                i += 1
                skipSpace()
                let valueStart = i
                guard skipValue() else { return nil }
                if wanted.contains(name), bytes[valueStart] == quote {
                    let inside = valueStart + 1..<(i - 1)
                    if !UnsafeRawBufferPointer(rebasing: bytes[inside]).contains(backslash) { strings[name] = inside }
                }
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
        return i == bytes.count ? (keys, strings) : nil
    }
}
