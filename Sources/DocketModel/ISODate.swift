import Foundation

/// ISO-8601 UTC dates with milliseconds (`2026-11-22T04:12:09.123Z`), the
/// date format of every Docket file.
///
/// NB: written by hand rather than with `ISO8601DateFormatter`, which is
/// several times slower; loading a store of 100,000 items parses 300,000 dates.
package enum ISODate {
    /// The dates a file can hold: the years 1 to 9999, in milliseconds since 1970.
    package static let range: ClosedRange<Int64> = -62_135_596_800_000...253_402_300_799_999

    /// Whether a file can hold `date` (its year is 1 to 9999).
    package static func holds(_ date: Date) -> Bool {
        date.timeIntervalSince1970.isFinite && abs(date.timeIntervalSince1970) < 1e13
            && range.contains(date.docketMilliseconds)
    }

    /// The text of a date: UTC, always with three fraction digits.
    package static func string(from date: Date) -> String {
        text(milliseconds: date.docketMilliseconds, offsetMinutes: nil)
    }

    /// The text of a date as a clock in `zone` shows it, with that zone's offset from UTC
    /// (`2026-11-24T14:00:00.000+01:00`; `+00:00`, never `Z`, in UTC itself). A date whose
    /// local day would fall outside the years 1 to 9999 is written at `+00:00`.
    package static func string(from date: Date, offsetIn zone: TimeZone) -> String {
        let ms = date.docketMilliseconds
        // NB: an offset with seconds (a zone's local mean time, before 1900) is cut to whole minutes; the text still
        // names the same instant.
        let minutes = Int64(zone.secondsFromGMT(for: date) / 60)
        let local = ms + minutes * 60_000
        return text(milliseconds: ms, offsetMinutes: range.contains(local) ? minutes : 0)
    }

    private static func text(milliseconds utc: Int64, offsetMinutes: Int64?) -> String {
        let ms = utc + (offsetMinutes ?? 0) * 60_000
        let (days, msOfDay) = floorDivide(ms, 86_400_000)
        let (year, month, day) = civil(fromDays: days)
        let hour = msOfDay / 3_600_000
        let minute = (msOfDay / 60_000) % 60
        let second = (msOfDay / 1000) % 60
        let milli = msOfDay % 1000
        var out = ""
        out.reserveCapacity(29)
        out += pad(year, 4)
        out += "-"
        out += pad(month, 2)
        out += "-"
        out += pad(day, 2)
        out += "T"
        out += pad(hour, 2)
        out += ":"
        out += pad(minute, 2)
        out += ":"
        out += pad(second, 2)
        out += "."
        out += pad(milli, 3)
        guard let offsetMinutes else {
            out += "Z"
            return out
        }
        out += offsetMinutes < 0 ? "-" : "+"
        out += pad(abs(offsetMinutes) / 60, 2)
        out += ":"
        out += pad(abs(offsetMinutes) % 60, 2)
        return out
    }

    /// The date of a text `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`, or nil.
    package static func date(from text: String) -> Date? {
        var bytes = Array(text.utf8)[...]
        func number(_ count: Int) -> Int64? {
            guard bytes.count >= count else { return nil }
            var value: Int64 = 0
            for byte in bytes.prefix(count) {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int64(byte - 48)
            }
            bytes = bytes.dropFirst(count)
            return value
        }
        func expect(_ byte: UInt8) -> Bool {
            guard bytes.first == byte else { return false }
            bytes = bytes.dropFirst()
            return true
        }
        guard let year = number(4), expect(45), let month = number(2), expect(45), let day = number(2),
            expect(84) || expect(116), let hour = number(2), expect(58), let minute = number(2),
            expect(58), let second = number(2)
        else { return nil }
        guard year >= 1, (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
            hour < 24, minute < 60, second < 61
        else { return nil }
        var milli: Int64 = 0
        if expect(46) {
            var digits = 0
            while let byte = bytes.first, byte >= 48, byte <= 57 {
                if digits < 3 { milli = milli * 10 + Int64(byte - 48) }
                digits += 1
                bytes = bytes.dropFirst()
            }
            guard digits > 0 else { return nil }
            if digits < 3 { for _ in digits..<3 { milli *= 10 } }
        }
        var offsetMinutes: Int64 = 0
        if expect(90) || expect(122) {
            // UTC
        } else if let sign = bytes.first, sign == 43 || sign == 45 {
            bytes = bytes.dropFirst()
            guard let oh = number(2) else { return nil }
            _ = expect(58) // the colon of ±HH:MM is optional
            guard let om = number(2), oh < 24, om < 60 else { return nil }
            offsetMinutes = (oh * 60 + om) * (sign == 45 ? -1 : 1)
        } else {
            return nil
        }
        guard bytes.isEmpty else { return nil }
        let days = days(fromCivil: year, month, day)
        let ms = ((days * 24 + hour) * 60 + minute - offsetMinutes) * 60_000 + second * 1000 + milli
        guard range.contains(ms) else { return nil }
        return Date(docketMilliseconds: ms)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    package static func floorDivide(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        let q = a >= 0 ? a / b : (a - b + 1) / b
        return (q, a - q * b)
    }

    package static func isLeap(_ year: Int64) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    package static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    // Days since 1970-01-01 and back, after Howard Hinnant's civil date algorithms.
    package static func days(fromCivil y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    package static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}
