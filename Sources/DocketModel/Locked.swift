import Foundation

/// A value behind a lock, for state more than one thread reaches.
///
/// NB: a pthread mutex (`NSLock`) rather than `Synchronization.Mutex`: on Linux
/// `Mutex` locks with atomics inside the toolchain's own library, which Thread
/// Sanitizer cannot see, so every contended `Mutex` is reported as a data race
/// and a real one would hide among them (`scripts/app-sample-tsan`).
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    /// Runs `body` with the value, holding the lock.
    package func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
