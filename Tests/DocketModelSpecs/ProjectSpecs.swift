import DocketModel
import Foundation
import Nimble
import Quick

// Seed 001's Project spec, final version.
class ProjectSpecs: QuickSpec {
    override class func spec() {
        var project: Project!

        describe("Project") {
            beforeEach {
                project = Project(title: "Party")
            }
            afterEach {
                project = nil
            }
            context("newly created") {
                it("has an id") { expect(project.id).toNot(beNil()) }
                it("has a title") { expect(project.title).to(equal("Party")) }
            }
            context("change title") {
                var p0: Project!
                beforeEach {
                    p0 = project.alter(by: .setting(.title(to: "Party — deluxe!")))
                }
                afterEach {
                    p0 = nil
                }
                it("has new title") { expect(p0.title).to(equal("Party — deluxe!")) }
                it("has unchanged id") { expect(p0.id).to(equal(project.id)) }
            }
            context("adding task") {
                var p0: Project!
                var t0: ProjectTask!
                beforeEach {
                    t0 = ProjectTask(title: "Buy Beer")
                    p0 = project.alter(by: .adding(.task(t0)))
                }
                afterEach {
                    p0 = nil
                    t0 = nil
                }
                it("has 1 task") { expect(p0.tasks).to(equal([t0])) }

                context("adding same task again") {
                    var p1: Project!
                    beforeEach {
                        p1 = p0.alter(by: .adding(.task(t0)))
                    }
                    afterEach {
                        p1 = nil
                    }
                    it("has 1 task") { expect(p1.tasks).to(equal([t0])) }
                }
            }
            context("removing task") {
                var p0: Project!
                var t0: ProjectTask!
                var t1: ProjectTask!
                var t2: ProjectTask!

                beforeEach {
                    t0 = ProjectTask(title: "Buy Beer")
                    t1 = ProjectTask(title: "Buy Chips")
                    t2 = ProjectTask(title: "Order Pizza")

                    p0 =
                        project
                        .alter(by: .adding(.task(t0)))
                        .alter(by: .adding(.task(t1)))
                        .alter(by: .adding(.task(t2)))

                    p0 = p0.alter(by: .removing(.task(t1)))
                }
                afterEach {
                    p0 = nil
                    t0 = nil
                    t1 = nil
                    t2 = nil
                }
                it("has 2 tasks") { expect(p0.tasks).to(equal([t0, t2])) }
                it("has unchanged id") { expect(p0.id).to(equal(project.id)) }
            }
        }
    }
}
