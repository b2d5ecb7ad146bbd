import Dispatch
import Foundation

/// Work spread over every core of the machine.
public enum Parallel {
    /// How many parts work is cut into: a few per core, so one slow part does not hold the rest up.
    public static var parts: Int { max(1, ProcessInfo.processInfo.activeProcessorCount * 4) }

    /// `transform` of each index in `0..<count`, computed on all cores; the results keep their order.
    public static func map<T: Sendable>(_ count: Int, _ transform: @Sendable (Int) -> T) -> [T] {
        guard count > 0 else { return [] }
        return [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            let slots = UncheckedSendable(buffer.baseAddress!)
            forEachChunk(count) { range in
                for i in range { (slots.value + i).initialize(to: transform(i)) }
            }
            initialized = count
        }
    }

    /// Runs `body` over consecutive ranges that together cover `0..<count`, on all cores.
    public static func forEachChunk(_ count: Int, _ body: @Sendable (Range<Int>) -> Void) {
        guard count > 0 else { return }
        let parts = min(count, Parallel.parts)
        let size = (count + parts - 1) / parts
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            let range = min(count, part * size)..<min(count, (part + 1) * size)
            if !range.isEmpty { body(range) }
        }
    }
}

/// A value handed to other threads whose safety the caller guarantees (each thread touches its own part).
public struct UncheckedSendable<Value>: @unchecked Sendable {
    /// The value.
    public let value: Value
    /// Wraps `value`.
    public init(_ value: Value) { self.value = value }
}

/// A count that threads add to, for the progress of work spread over them.
public final class SharedCount: @unchecked Sendable {
    private let lock = NSLock()
    private var done = 0

    /// A count at zero.
    public init() {}

    /// Adds `amount` and returns the new count.
    public func add(_ amount: Int) -> Int {
        lock.withLock {
            done += amount
            return done
        }
    }
}
