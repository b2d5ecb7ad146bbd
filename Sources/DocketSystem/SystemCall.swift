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
public func systemCall<T: FixedWidthInteger & SignedInteger>(
    _ operation: String, path: String? = nil,
    _ call: () -> T
) throws -> T {
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
        offset += try systemCall("write", path: path) {
            Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
        }
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

/// Reads exactly `buffer.count` bytes of `fd` into `buffer`, retrying short reads and `EINTR`;
/// false when the file ends sooner or goes on past them (it changed since its size was taken).
public func readExactly(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String? = nil) throws -> Bool {
    var count = 0
    while count < buffer.count {
        let read = try systemCall("read", path: path) {
            Glibc.read(fd, buffer.baseAddress! + count, buffer.count - count)
        }
        if read == 0 { return false }
        count += read
    }
    var extra: UInt8 = 0
    return try systemCall("read", path: path) { Glibc.read(fd, &extra, 1) } == 0
}

/// Memory for a buffer of megabytes that is filled once (a whole git index): aligned to 2 MiB and
/// marked for the kernel's transparent huge pages where the system allows them (`madvise`, as Debian
/// ships it), so it is mapped in a few page faults instead of one per 4 KiB page. Free it with `deallocate()`.
///
/// NB: at 100,000 items, reading the 12 MB index into small pages and copying it once took 16 ms;
/// reading it into huge pages, 3.
public func allocateLargeBuffer(byteCount: Int) -> UnsafeMutableRawBufferPointer {
    let huge = 2 << 20
    guard byteCount >= huge else { return .allocate(byteCount: byteCount, alignment: 16) }
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: byteCount, alignment: huge)
    // A hint only: where huge pages are off, the buffer is as any other.
    _ = madvise(buffer.baseAddress, byteCount, MADV_HUGEPAGE)
    return buffer
}
