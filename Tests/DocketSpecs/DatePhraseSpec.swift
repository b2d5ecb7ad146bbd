import Docket
import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// The dates people type, read at a fixed moment in a fixed time zone.
final class DatePhraseSpec: QuickSpec {
    override class func spec() {
        let berlin = DocketClock.gregorian(in: TimeZone(identifier: "Europe/Berlin")!)
        let newYork = DocketClock.gregorian(in: TimeZone(identifier: "America/New_York")!)
        func at(_ text: String) -> Date { ISODate.date(from: text)! }
        func day(_ y: Int, _ m: Int, _ d: Int) -> DueDate { .day(CalendarDay(year: y, month: m, day: d)!) }
        // Thursday 26 November 2026, 10:00 in Berlin.
        let thursday = at("2026-11-26T10:00:00+01:00")
        func read(_ text: String, now: Date = thursday, calendar: Calendar = berlin, past: Bool = false) -> DueDate? {
            try? DatePhrase.read(text, now: now, calendar: calendar, past: past)
        }
        func problem(_ text: String) -> DatePhrase.Problem? {
            do {
                _ = try DatePhrase.read(text, now: thursday, calendar: berlin)
                return nil
            } catch { return error }
        }

        describe("a time alone") {
            it("is today's while it is still ahead") {
                expect(read("11am")) == .date(at("2026-11-26T11:00:00+01:00"))
                expect(read("9:30pm")) == .date(at("2026-11-26T21:30:00+01:00"))
                expect(read("17:30")) == .date(at("2026-11-26T17:30:00+01:00"))
                expect(read("noon")) == .date(at("2026-11-26T12:00:00+01:00"))
                expect(read("12pm")) == read("noon")
            }
            it("is tomorrow's once it has passed today, as a reminder is") {
                expect(read("9am")) == .date(at("2026-11-27T09:00:00+01:00"))
                expect(read("9 am")) == read("9am")
                expect(read("12am")) == .date(at("2026-11-27T00:00:00+01:00"))
                expect(read("10:00")) == .date(at("2026-11-27T10:00:00+01:00"))
            }
            it("is today's in a filter that looks back") {
                expect(read("9am", past: true)) == .date(at("2026-11-26T09:00:00+01:00"))
            }
        }

        describe("a day with a time") {
            it("is that time on that day, before or after the day, with or without 'at'") {
                let nine = DueDate.date(at("2026-11-27T09:00:00+01:00"))
                expect(read("tomorrow 9am")) == nine
                expect(read("tomorrow at 9am")) == nine
                expect(read("9am tomorrow")) == nine
                expect(read("Tomorrow 9AM")) == nine
                expect(read("fri 14:00")) == .date(at("2026-11-27T14:00:00+01:00"))
                expect(read("2026-12-03 17:30")) == .date(at("2026-12-03T17:30:00+01:00"))
                expect(read("2026-12-03T17:30")) == .date(at("2026-12-03T17:30:00+01:00"))
                expect(read("in 3 days 8:15am")) == .date(at("2026-11-29T08:15:00+01:00"))
            }
            it("keeps a day named explicitly even when its time has passed") {
                expect(read("today 9am")) == .date(at("2026-11-26T09:00:00+01:00"))
            }
            it("is the time a local clock shows that day, across the end of daylight saving") {
                // Saturday 24 October 2026; summer time ends on Sunday at 03:00.
                let saturday = at("2026-10-24T10:00:00+02:00")
                expect(read("tomorrow 9am", now: saturday)) == .date(at("2026-10-25T09:00:00+01:00"))
                expect(read("today 9am", now: saturday)) == .date(at("2026-10-24T09:00:00+02:00"))
            }
            it("is the time a local clock shows that day, across the start of daylight saving in New York") {
                let saturday = at("2026-03-07T10:00:00-05:00")
                expect(read("tomorrow 9am", now: saturday, calendar: newYork))
                    == .date(at("2026-03-08T09:00:00-04:00"))
            }
        }

        describe("a day") {
            it("has no time") {
                expect(read("today")) == day(2026, 11, 26)
                expect(read("tomorrow")) == day(2026, 11, 27)
                expect(read("2026-12-03")) == day(2026, 12, 3)
            }
            it("is a weekday's next occurrence, a week on for today's, and its last one in a filter that looks back") {
                expect(read("fri")) == day(2026, 11, 27)
                expect(read("next friday")) == day(2026, 11, 27)
                expect(read("thursday")) == day(2026, 12, 3)
                expect(read("fri", past: true)) == day(2026, 11, 20)
                expect(read("thu", past: true)) == day(2026, 11, 26)
            }
            it("reads relative phrases") {
                expect(read("in 3 days")) == day(2026, 11, 29)
                expect(read("in 2 weeks")) == day(2026, 12, 10)
                expect(read("in a week")) == day(2026, 12, 3)
                expect(read("in 1 month")) == day(2026, 12, 26)
                expect(read("in 1 year")) == day(2027, 11, 26)
                expect(read("next week")) == day(2026, 11, 30)
                expect(read("next month")) == day(2026, 12, 1)
                expect(read("+3d")) == day(2026, 11, 29)
                expect(read("-1w")) == day(2026, 11, 19)
                expect(read("eow")) == day(2026, 11, 29)
                expect(read("eom")) == day(2026, 11, 30)
                expect(read("eoy")) == day(2026, 12, 31)
            }
            it("counts a month from January 31 as the last day of February") {
                let january31 = at("2026-01-31T10:00:00+01:00")
                expect(read("in 1 month", now: january31)) == day(2026, 2, 28)
                expect(read("+1m", now: january31)) == day(2026, 2, 28)
                expect(read("in 1 month", now: at("2028-01-31T10:00:00+01:00"))) == day(2028, 2, 29)
            }
            it("is the local day: 00:30 in Berlin is tomorrow for UTC's calendar") {
                expect(read("today", now: at("2026-11-26T23:30:00Z"))) == day(2026, 11, 27)
            }
        }

        describe("a moment from now") {
            it("is a time") {
                expect(read("in 2 hours")) == .date(at("2026-11-26T12:00:00+01:00"))
                expect(read("in 30 minutes")) == .date(at("2026-11-26T10:30:00+01:00"))
                expect(read("now")) == .date(thursday)
            }
        }

        describe("a phrase that is no date") {
            it("is refused as no date, or as outside the years a file holds") {
                for text in [
                    "someday", "", "9", "25:00", "13pm", "0am", "tomorrow 9", "fri fri", "in days", "2026-02-30",
                ] {
                    expect(problem(text)).to(equal(.notADate), description: text)
                }
                for text in ["+99999999999999d", "+9223372036854775808d", "in 4000000 years", "+4000000d"] {
                    expect(problem(text)).to(equal(.outsideYears), description: text)
                }
            }
        }
    }
}
