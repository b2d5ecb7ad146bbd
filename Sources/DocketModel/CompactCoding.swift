import Foundation

/// A compact binary form of values, for caches that must decode 100,000
/// items far faster than JSON: little-endian integers, length-prefixed UTF-8.
public struct CompactWriter: Sendable {
    /// The bytes written so far.
    public var bytes: [UInt8] = []

    /// An empty writer.
    public init() {}

    /// Reserves room for about `count` more bytes.
    public mutating func reserve(_ count: Int) { bytes.reserveCapacity(bytes.count + count) }

    /// Writes raw bytes.
    public mutating func raw<Bytes: Sequence>(_ data: Bytes) where Bytes.Element == UInt8 {
        bytes.append(contentsOf: data)
    }

    /// Writes an integer.
    @inlinable
    public mutating func integer<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// Writes a string as its length and UTF-8 bytes.
    public mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            integer(UInt32(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }
}

/// Reads what a `CompactWriter` wrote; throws `Damaged` past the end.
public struct CompactReader {
    /// The data ended early or held a value that cannot be.
    public struct Damaged: Error {
        /// A reader error.
        @inlinable public init() {}
    }

    @usableFromInline let bytes: UnsafeRawBufferPointer
    /// How far the reader has come.
    public var offset = 0

    /// A reader of `bytes`, which must outlive it.
    public init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// Whether every byte was read.
    public var isAtEnd: Bool { offset == bytes.count }

    /// The next `count` raw bytes.
    @inlinable
    public mutating func raw(_ count: Int) throws -> UnsafeRawBufferPointer {
        guard count >= 0, offset + count <= bytes.count else { throw Damaged() }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)])
    }

    /// The next integer.
    @inlinable
    public mutating func integer<T: FixedWidthInteger>(_: T.Type = T.self) throws -> T {
        T(littleEndian: try raw(MemoryLayout<T>.size).loadUnaligned(as: T.self))
    }

    /// The next string.
    public mutating func string() throws -> String {
        String(decoding: try raw(Int(try integer(UInt32.self))), as: UTF8.self)
    }
}
