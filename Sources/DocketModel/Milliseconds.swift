import Foundation

extension Date {
    /// Whole milliseconds since 1970, the precision Docket stores.
    ///
    /// NB: a date made from milliseconds can come back a hair below the whole
    /// number through floating point, so values within a microsecond of a whole
    /// millisecond round to it instead of flooring below it.
    package var docketMilliseconds: Int64 {
        let value = timeIntervalSince1970 * 1000
        let nearest = value.rounded()
        if abs(value - nearest) < 0.001 { return Int64(nearest) }
        return Int64(value.rounded(.down))
    }

    /// The date at a whole number of milliseconds since 1970.
    package init(docketMilliseconds milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// This date cut to whole milliseconds.
    package var truncatedToMilliseconds: Date {
        Date(docketMilliseconds: docketMilliseconds)
    }
}

/// Equality of dates at the stored precision: two dates are the same when
/// they fall in the same millisecond.
package func sameMillisecond(_ a: Date?, _ b: Date?) -> Bool {
    a?.docketMilliseconds == b?.docketMilliseconds
}
