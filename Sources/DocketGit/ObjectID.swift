import CGit2
import DocketSystem

/// The id of a git object (commit, tree or blob): 20 bytes, shown as 40 hex digits.
public struct ObjectID: Hashable, Sendable, CustomStringConvertible, Codable {
    let bytes: [UInt8]

    init(_ oid: git_oid) {
        var oid = oid
        bytes = withUnsafeBytes(of: &oid.id) { Array($0) }
    }

    init(bytes: [UInt8]) {
        precondition(bytes.count == 20)
        self.bytes = bytes
    }

    init?(_ pointer: UnsafePointer<git_oid>?) {
        guard let pointer else { return nil }
        self.init(pointer.pointee)
    }

    /// The object id of 40 hex digits, or nil.
    public init?(hex: String) {
        var oid = git_oid()
        guard hex.utf8.count == 40, git_oid_fromstr(&oid, hex) == 0 else { return nil }
        self.init(oid)
    }

    var oid: git_oid {
        var oid = git_oid()
        withUnsafeMutableBytes(of: &oid.id) { raw in
            for (i, byte) in bytes.enumerated() { raw[i] = byte }
        }
        return oid
    }

    /// The 40 hex digits.
    public var description: String { Hex.encode(bytes) }

    /// The first seven hex digits, as git shows them.
    public var short: String { String(description.prefix(7)) }

    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let id = ObjectID(hex: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "\(text) is not an object id"))
        }
        self = id
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
}
