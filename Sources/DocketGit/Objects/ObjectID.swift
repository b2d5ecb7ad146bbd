import DocketCGit2
import DocketSystem

/// The id of a git object (commit, tree or blob): 20 bytes, shown as 40 hex digits.
///
/// NB: the bytes are held inline, as three integers: an array would be a heap
/// allocation for every id made (a clone of 100,000 items makes several a
/// file), and hashing an array costs more than hashing 20 bytes.
public struct ObjectID: Hashable, Sendable, CustomStringConvertible, Codable {
    private let head: UInt64, middle: UInt64, tail: UInt32

    init(_ oid: git_oid) {
        var oid = oid
        self = withUnsafeBytes(of: &oid.id) { ObjectID(raw: $0) }
    }

    init(bytes: [UInt8]) {
        precondition(bytes.count == 20)
        self = bytes.withUnsafeBytes { ObjectID(raw: $0) }
    }

    /// The id whose 20 bytes start `raw`.
    init(raw: UnsafeRawBufferPointer) {
        precondition(raw.count >= 20)
        head = raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self)
        middle = raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
        tail = raw.loadUnaligned(fromByteOffset: 16, as: UInt32.self)
    }

    init?(_ pointer: UnsafePointer<git_oid>?) {
        guard let pointer else { return nil }
        self.init(pointer.pointee)
    }

    /// Calls `body` with the 20 bytes, without copying them to the heap.
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var copy = (head, middle, tail)
        return try withUnsafeBytes(of: &copy) { try body(UnsafeRawBufferPointer(rebasing: $0[..<20])) }
    }

    /// The 20 bytes.
    var bytes: [UInt8] { withBytes { Array($0) } }

    /// The object id of 40 hex digits, or nil.
    public init?(hex: String) {
        var oid = git_oid()
        guard hex.utf8.count == 40, git_oid_fromstr(&oid, hex) == 0 else { return nil }
        self.init(oid)
    }

    var oid: git_oid {
        var oid = git_oid()
        withUnsafeMutableBytes(of: &oid.id) { raw in withBytes { raw.copyMemory(from: $0) } }
        return oid
    }

    /// The 40 hex digits.
    public var description: String { withBytes { Hex.encode($0) } }

    /// The first seven hex digits, as git shows them.
    public var short: String { String(description.prefix(7)) }

    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let id = ObjectID(hex: text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "\(text) is not an object id"))
        }
        self = id
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
}
