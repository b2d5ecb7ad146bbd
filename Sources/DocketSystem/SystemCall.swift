import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An operating-system call that failed: what was being done, to which file, and the system's reason.
public struct SystemError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The call, such as "open" or "rename".
    public let operation: String
    /// The file it was about, if any.
    public let path: String?
    /// The `errno` it failed with.
    public let code: Int32

    /// A failure of `operation` on `path` with `code`.
    public init(_ operation: String, path: String? = nil, code: Int32) {
        self.operation = operation
        self.path = path
        self.code = code
    }

    /// The system's words for `code`, such as "No such file or directory".
    public var reason: String { String(cString: strerror(code)) }

    public var description: String {
        path.map { "\(operation) \($0): \(reason)" } ?? "\(operation): \(reason)"
    }
}

/// The one errno gate: runs `call` again while it fails with `EINTR`, and
/// throws a `SystemError` naming `operation` and `path` for any other failure.
/// A call fails when it returns a negative value, as POSIX calls do.
@discardableResult
public func systemCall<T: FixedWidthInteger & SignedInteger>(_ operation: String, path: String? = nil,
                                                             _ call: () -> T) throws -> T {
    while true {
        let result = call()
        if result >= 0 { return result }
        if errno == EINTR { continue }
        throw SystemError(operation, path: path, code: errno)
    }
}

/// Writes every byte of `bytes` to `fd`, retrying short writes and `EINTR`.
public func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String? = nil) throws {
    var offset = 0
    while offset < bytes.count {
        offset += try systemCall("write", path: path) { Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset) }
    }
}

/// Reads `fd` to its end, or until more than `limit` bytes came (then nil).
/// `expected` (the size `fstat` gave, say) sizes the buffer, so a file is read in one call.
public func readAll(_ fd: Int32, limit: Int = .max, expected: Int = 4096, path: String? = nil) throws -> Data? {
    let ceiling = limit == .max ? Int.max : limit + 1
    var data = Data(count: min(max(expected + 1, 64), ceiling))
    var count = 0
    while true {
        if count == data.count {
            if count > limit { return nil }
            data.count = min(data.count * 2, ceiling)
        }
        let read = try data.withUnsafeMutableBytes { raw in
            try systemCall("read", path: path) { Glibc.read(fd, raw.baseAddress! + count, raw.count - count) }
        }
        if read == 0 {
            data.count = count
            return data
        }
        count += read
        if count > limit { return nil }
    }
}
