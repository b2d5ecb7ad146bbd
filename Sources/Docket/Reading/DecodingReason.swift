import Foundation

/// The decoder's reason in a sentence: which field, and what was wrong.
func decodingReason(_ error: Error) -> String {
    guard let error = error as? DecodingError else { return error.localizedDescription }
    func path(_ context: DecodingError.Context) -> String {
        let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
        return keys.isEmpty ? "" : " at \(keys.joined(separator: "."))"
    }
    switch error {
    case let .keyNotFound(key, context): return "missing field \"\(key.stringValue)\"\(path(context))"
    case let .typeMismatch(_, context): return "\(context.debugDescription)\(path(context))"
    case let .valueNotFound(_, context): return "missing value\(path(context))"
    case let .dataCorrupted(context):
        let underlying = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
        return (underlying ?? context.debugDescription) + path(context)
    @unknown default: return "\(error)"
    }
}
