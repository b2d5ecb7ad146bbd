import DocketModel
import Foundation
import Nimble
import Quick

// Seed 001's ProjectTask spec, final version.
class ProjectTaskSpecs: QuickSpec {
    override class func spec() {
        describe("ProjectTask") {
            var projectTask: ProjectTask!

            beforeEach {
                projectTask = ProjectTask(title: "Buy Beer")
            }
            afterEach {
                projectTask = nil
            }
            context("newly created") {
                it("has an id") { expect(projectTask.id).notTo(beNil()) }
                it("has a title") { expect(projectTask.title).to(equal("Buy Beer")) }
                it("has unknown due date") { expect(projectTask.dueDate).to(equal(.unknown)) }
                it("has unfinished state") { expect(projectTask.state).to(equal(.unfinished)) }
            }
            context("setting title") {
                var t0: ProjectTask!
                beforeEach {
                    t0 = projectTask.alter(by: .setting(.title(to: "Buy Beer ASAP!")))
                }
                afterEach {
                    t0 = nil
                }
                it("has new title") { expect(t0.title).to(equal("Buy Beer ASAP!")) }
                it("has unchanged id") { expect(t0.id).to(equal(projectTask.id)) }
                it("has unchanged due date") { expect(t0.dueDate).to(equal(projectTask.dueDate)) }
                it("has unchanged state") { expect(t0.state).to(equal(projectTask.state)) }
            }
            context("setting due date") {
                var t0: ProjectTask!
                var d0: Date!
                afterEach {
                    t0 = nil
                    d0 = nil
                }
                context("to tomoorow noon") {
                    beforeEach {
                        d0 = Calendar.current.date(
                            byAdding: .hour, value: 12, to: Calendar.current.startOfDay(for: .now))!
                        t0 = projectTask.alter(by: .setting(.dueDate(to: .date(d0))))
                    }
                    it("has due date tomorrow noon") { expect(t0.dueDate).to(equal(.date(d0))) }
                    it("has unchanged title") { expect(t0.title).to(equal(projectTask.title)) }
                    it("has unchanged id") { expect(t0.id).to(equal(projectTask.id)) }
                    it("has unchanged state") { expect(t0.state).to(equal(projectTask.state)) }
                }
                context("to unknown") {
                    beforeEach {
                        d0 = Calendar.current.date(
                            byAdding: .hour, value: 12, to: Calendar.current.startOfDay(for: .now))!
                        t0 = projectTask.alter(by: .setting(.dueDate(to: .date(d0))))
                        t0 = t0.alter(by: .setting(.dueDate(to: .unknown)))
                    }
                    it("has unknown due date") { expect(t0.dueDate).to(equal(.unknown)) }
                    it("has unchanged title") { expect(t0.title).to(equal(projectTask.title)) }
                    it("has unchanged id") { expect(t0.id).to(equal(projectTask.id)) }
                    it("has unchanged state") { expect(t0.state).to(equal(projectTask.state)) }
                }
            }
            context("setting state") {
                var t0: ProjectTask!
                afterEach {
                    t0 = nil
                }
                context("to in progress") {
                    beforeEach {
                        t0 = projectTask.alter(by: .setting(.state(to: .inProgress)))
                    }
                    it("has state in progress") { expect(t0.state).to(equal(.inProgress)) }
                    it("has unchanged title") { expect(t0.title).to(equal(projectTask.title)) }
                    it("has unchanged id") { expect(t0.id).to(equal(projectTask.id)) }
                    it("has unchanged due date") { expect(t0.dueDate).to(equal(projectTask.dueDate)) }
                }
                context("to finished") {
                    beforeEach {
                        t0 = projectTask.alter(by: .setting(.state(to: .finished)))
                    }
                    it("has state finished") { expect(t0.state).to(equal(.finished)) }
                    it("has unchanged title") { expect(t0.title).to(equal(projectTask.title)) }
                    it("has unchanged id") { expect(t0.id).to(equal(projectTask.id)) }
                    it("has unchanged due date") { expect(t0.dueDate).to(equal(projectTask.dueDate)) }
                }
                context("to unfinished") {
                    beforeEach {
                        t0 = projectTask.alter(by: .setting(.state(to: .finished)))
                        t0 = t0.alter(by: .setting(.state(to: .unfinished)))
                    }
                    it("has state unfinished") { expect(t0.state).to(equal(.unfinished)) }
                    it("has unchanged title") { expect(t0.title).to(equal(projectTask.title)) }
                    it("has unchanged id") { expect(t0.id).to(equal(projectTask.id)) }
                    it("has unchanged due date") { expect(t0.dueDate).to(equal(projectTask.dueDate)) }
                }
            }
            context("record time") {
                var t0: ProjectTask!
                var d0: Date!
                beforeEach {
                    d0 = .now
                }
                afterEach {
                    d0 = nil
                    t0 = nil
                }
                context("start") {
                    beforeEach {
                        t0 = projectTask.alter(by: .recording(.start))
                    }
                    it("records start in last timeslip") { expect(t0.timeSlips.last!.start).to(beCloseTo(d0)) }
                    it("has 1 timeslip") { expect(t0.timeSlips).to(haveCount(1)) }
                    it("records no stop date") { expect(t0.timeSlips.last!.stop).to(beNil()) }
                    context("start again") {
                        var t1: ProjectTask!
                        beforeEach {
                            t1 = t0.alter(by: .recording(.start))
                        }
                        it("doesn't add timeslip") { expect(t1.timeSlips).to(equal(t0.timeSlips)) }
                    }
                    context("stop") {
                        var d1: Date!
                        var t1: ProjectTask!
                        beforeEach {
                            d1 = .now
                            t1 = t0.alter(by: .recording(.stop))
                        }
                        afterEach {
                            d1 = nil
                            t1 = nil
                        }
                        it("records stop in last timeslip") { expect(t1.timeSlips.last!.stop).to(beCloseTo(d1)) }
                        context("start") {
                            var d2: Date!
                            var t2: ProjectTask!
                            beforeEach {
                                d2 = .now
                                t2 = t1.alter(by: .recording(.start))
                            }
                            afterEach {
                                d2 = nil
                                t2 = nil
                            }
                            it("has first timeslip start") { expect(t2.timeSlips[0].start).to(beCloseTo(d0)) }
                            it("has second timeslip start") { expect(t2.timeSlips[1].start).to(beCloseTo(d1)) }
                            it("has first timeslip stop") { expect(t2.timeSlips[0].stop).to(beCloseTo(d2)) }
                            it("hasn't second timeslip stop") { expect(t2.timeSlips[1].stop).to(beNil()) }
                            context("stop") {
                                var d3: Date!
                                var t3: ProjectTask!
                                beforeEach {
                                    d3 = .now
                                    t3 = t2.alter(by: .recording(.stop))
                                }
                                afterEach {
                                    d3 = nil
                                    t3 = nil
                                }
                                it("has first timeslip start") { expect(t3.timeSlips[0].start).to(beCloseTo(d0)) }
                                it("has second timeslip start") { expect(t3.timeSlips[1].start).to(beCloseTo(d1)) }
                                it("has first timeslip stop") { expect(t3.timeSlips[0].stop).to(beCloseTo(d2)) }
                                it("has second timeslip stop") { expect(t3.timeSlips[1].stop).to(beCloseTo(d3)) }
                            }
                        }
                        context("stop again") {
                            var t2: ProjectTask!
                            beforeEach {
                                t2 = t1.alter(by: .recording(.stop))
                            }
                            afterEach {
                                t2 = nil
                            }
                            it("doesn't change timeslips") { expect(t2.timeSlips).to(equal(t1.timeSlips)) }
                        }
                    }
                }
                context("stop") {
                    beforeEach {
                        t0 = projectTask.alter(by: .recording(.stop))
                    }
                    it("doesn't add timeslip") { expect(t0.timeSlips).to(beEmpty()) }
                }
            }
        }
    }
}
