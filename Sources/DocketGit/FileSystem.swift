import CGit2
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Flushes to disk everything written to the file system that holds `path`
/// (Linux's `syncfs(2)`); nil when done, else why it failed.
public func flushFileSystem(holding path: String) -> String? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return String(cString: strerror(errno)) }
    defer { close(fd) }
    return docket_syncfs(fd) == 0 ? nil : String(cString: strerror(errno))
}
