import Foundation
import Nimble

/// A small, fast, seeded random number generator (SplitMix64), so a failing
/// property case can be replayed from its seed.
public struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    /// A generator that always yields the same sequence for the same seed.
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Runs `body` over `cases` seeds and fails with the first failing case's seed.
///
/// `body` returns nil when the property holds, else what went wrong. Set
/// `DOCKET_SEED` to run just one seed (the one a failure printed). With
/// `continuing`, every seed runs and each failing one fails on its own (for
/// long runs that count failures). `DOCKET_PROPERTY_SCALE=10` runs ten
/// times the cases (the long run; the suite keeps the short one).
public func forAll(
    _ cases: Int, continuing: Bool = false, file: FileString = #filePath, line: UInt = #line,
    _ body: (inout SeededGenerator) -> String?
) {
    let seeds: [UInt64]
    if let text = ProcessInfo.processInfo.environment["DOCKET_SEED"], let seed = UInt64(text) {
        seeds = [seed]
    } else {
        let base = UInt64(20_261_122)
        seeds = (0..<UInt64(propertyScaled(cases))).map { base &+ $0 &* 7919 }
    }
    for seed in seeds {
        var generator = SeededGenerator(seed: seed)
        if let problem = body(&generator) {
            fail(
                "property failed for seed \(seed) (replay with DOCKET_SEED=\(seed)): \(problem)", file: file, line: line
            )
            if !continuing { return }
        }
    }
}

/// `count` times `DOCKET_PROPERTY_SCALE` (1 when unset), at least 1: how
/// many cases, rounds or steps a seeded spec runs.
public func propertyScaled(_ count: Int) -> Int {
    let scale = ProcessInfo.processInfo.environment["DOCKET_PROPERTY_SCALE"].flatMap(Double.init) ?? 1
    return max(1, Int((Double(count) * scale).rounded()))
}
