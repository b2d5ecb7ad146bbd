import DocketCSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Flushes to disk everything written to the file system that holds `path`
/// (Linux's `syncfs(2)`).
///
/// NB: one flush of the file system costs about what one fsync does, so
/// writing many files and flushing once is far cheaper than an fsync per file,
/// and as durable, provided nothing names the files before the flush returns.
public func flushFileSystem(holding path: String) throws {
    let fd = try systemCall("open", path: path) { open(path, O_RDONLY | O_CLOEXEC) }
    defer { close(fd) }
    try systemCall("syncfs", path: path) { docket_syncfs(fd) }
}

/// Flushes one file's contents to disk.
public func flushFile(_ path: String) throws {
    let fd = try systemCall("open", path: path) { open(path, O_RDONLY | O_CLOEXEC) }
    defer { close(fd) }
    try systemCall("fsync", path: path) { fsync(fd) }
}
