import DocketModel
import Foundation
import Nimble
import Quick

// Seed 001's TimeSlip spec, final version.
class TimeSlipSpecs: QuickSpec {
    override class func spec() {
        describe("TimeSlip") {
            var timeSlip: TimeSlip!

            var d0: Date!
            beforeEach {
                d0 = .now
                timeSlip = TimeSlip(start: d0)
            }
            afterEach {
                d0 = nil
                timeSlip = nil
            }

            context("newly created") {
                it("has an id") { expect(timeSlip.id).toNot(beNil()) }
                it("has start date now") { expect(timeSlip.start).to(equal(d0)) }
                it("has no stop date") { expect(timeSlip.stop).to(beNil()) }
            }
            context("setting stop date") {
                var t0: TimeSlip!
                var d1: Date!
                beforeEach {
                    d1 = Calendar.current.date(byAdding: .hour, value: 2, to: d0)!
                    t0 = timeSlip.alter(.setting(.stop(to: d1)))
                }
                afterEach {
                    t0 = nil
                    d1 = nil
                }
                it("has an stop date") { expect(t0.stop).to(equal(d1)) }
                it("has an unchanged id") { expect(t0.id).to(equal(timeSlip.id)) }
                it("has an unchanged start date") { expect(t0.start).to(equal(timeSlip.start)) }
            }
        }
    }
}
