import DocketModel
import Foundation
import Nimble
import Quick

// Seed 001's AppState spec, final version.
final class AppStateSpec: QuickSpec {
    override class func spec() {
        var appState: AppState!
        describe("AppState") {
            beforeEach {
                appState = AppState()
            }
            afterEach {
                appState = nil
            }
            context("Newly Created") {
                it("has empty projects") { expect(appState.projects).to(beEmpty()) }
            }
            context("Add Project") {
                var s0: AppState!
                var p0: Project!
                beforeEach {
                    p0 = Project(title: "World Domination")
                    s0 = appState.alter(by: .adding(.project(p0)))
                }
                afterEach {
                    p0 = nil
                    s0 = nil
                }
                it("has one project") { expect(s0.projects).to(equal([p0])) }
                context("add same project again") {
                    var s1: AppState!
                    beforeEach {
                        s1 = s0.alter(by: .adding(.project(p0)))
                    }
                    afterEach {
                        s1 = nil
                    }
                    it("doesn't change state's projects") { expect(s1.projects).to(equal(s0.projects)) }
                }
                context("Remove Project") {
                    var s1: AppState!
                    beforeEach {
                        s1 = s0.alter(by: .removing(.project(p0)))
                    }
                    afterEach {
                        s1 = nil
                    }
                    it("has no projects") { expect(s1.projects).to(beEmpty()) }
                }
            }
            context("Update") {
                var s0: AppState!
                var p0: Project!
                var p1: Project!
                var p2: Project!
                beforeEach {
                    p0 = Project(title: "0")
                    p1 = Project(title: "1")
                    p2 = Project(title: "2")
                    s0 = appState.alter(
                        by: .adding(.project(p0)),
                        .adding(.project(p1)),
                        .adding(.project(p2))
                    )
                }
                afterEach {
                    s0 = nil
                    p0 = nil
                    p1 = nil
                    p2 = nil
                }
                context("Existing Project") {
                    var p3: Project!
                    var s1: AppState!
                    beforeEach {
                        p3 = p1.alter(by: .setting(.title(to: "one")))
                        s1 = s0.alter(by: .updating(.project(p3)))
                    }
                    afterEach {
                        p3 = nil
                        s1 = nil
                    }
                    it("has updated project") { expect(s1.projects).to(equal([p0, p3, p2])) }
                }
                context("Nonexisting Project") {
                    var p3: Project!
                    var s1: AppState!
                    beforeEach {
                        p3 = Project(title: "3")
                        s1 = s0.alter(by: .updating(.project(p3)))
                    }
                    afterEach {
                        p3 = nil
                        s1 = nil
                    }
                    it("does not change existing projects") { expect(s1.projects).to(equal(s0.projects)) }
                }
            }
        }
    }
}
