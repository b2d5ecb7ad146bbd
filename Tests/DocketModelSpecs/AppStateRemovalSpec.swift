import DocketModel
import DocketSpecSupport
import Foundation
import Nimble
import Quick

final class AppStateRemovalSpec: QuickSpec {
    override class func spec() {
        var clock: SeededWorld!
        beforeEach { clock = SeededWorld(seed: 1) }
        afterEach {
            clock.uninstall()
            clock = nil
        }

        describe("AppState's todos") {
            var s0: AppState!
            var milk: TodoItem!
            var bread: TodoItem!
            beforeEach {
                milk = TodoItem(text: "Buy milk")
                clock.advance(1)
                bread = TodoItem(text: "Buy bread")
                s0 = AppState().alter(by: .adding(.todo(bread)), .adding(.todo(milk)))
            }
            it("keeps todos in creation order, whatever the order they were added in") {
                expect(s0.todos) == [milk, bread]
            }
            it("orders todos made in the same millisecond by their id's text") {
                forAll(200) { g in
                    let made = clock.now
                    let todos = (0..<8).map { _ in
                        TodoItem(
                            id: RandomValues.uuid(&g), text: "x", creationDate: made, completed: false, dueDate: nil,
                            alterDate: nil)
                    }
                    let ids = AppState(todos: todos, projects: [], removed: []).todos.map(\.id.uuidString)
                    return ids == ids.sorted() ? nil : "\(ids) is not in text order"
                }
            }
            it("adds a todo only once") {
                expect(s0.alter(by: .adding(.todo(milk))).todos) == [milk, bread]
            }
            context("updating a todo") {
                it("replaces it in place") {
                    let done = milk.alter(.completed(true))
                    expect(s0.alter(by: .updating(.todo(done))).todos) == [done, bread]
                }
                it("changes nothing when the todo is not there") {
                    expect(s0.alter(by: .updating(.todo(TodoItem(text: "stranger"))))) == s0
                }
            }
            context("removing a todo") {
                var s1: AppState!
                beforeEach {
                    clock.advance(60)
                    s1 = s0.alter(by: .removing(.todo(milk)))
                }
                it("takes it out of the todos") { expect(s1.todos) == [bread] }
                it("records a tombstone with the time of removal") {
                    expect(s1.removed) == [Tombstone(id: milk.id, kind: .todo, removedDate: clock.now)]
                }
                it("keeps the other lists as they were") { expect(s1.projects) == s0.projects }
                it("changes nothing when the todo is not there") {
                    expect(s1.alter(by: .removing(.todo(milk)))) == s1
                }
                it("clears the tombstone when the todo is added again") {
                    let s2 = s1.alter(by: .adding(.todo(milk)))
                    expect(s2.removed).to(beEmpty())
                    expect(s2.todos) == [milk, bread]
                }
            }
            it("dates a removal after the todo's last alteration, even when the clock runs behind") {
                let edited = milk.alter(.text("Buy oat milk"))
                clock.advance(-600)
                let s1 = s0.alter(by: .updating(.todo(edited)), .removing(.todo(edited)))
                expect(s1.tombstone(id: milk.id)?.removedDate) > edited.alterDate!
            }
        }

        describe("AppState's projects") {
            var party: Project!
            var beer: ProjectTask!
            var chips: ProjectTask!
            var s0: AppState!
            beforeEach {
                beer = ProjectTask(title: "Buy Beer")
                chips = ProjectTask(title: "Buy Chips")
                party = Project(title: "Party").alter(by: .adding(.task(beer)), .adding(.task(chips)))
                s0 = AppState().alter(by: .adding(.project(party)))
            }
            it("records a tombstone for a removed project") {
                let s1 = s0.alter(by: .removing(.project(party)))
                expect(s1.tombstone(id: party.id)?.kind) == .project
                expect(s1.projects).to(beEmpty())
            }
            it("records a tombstone for a task the updated project no longer has") {
                let s1 = s0.alter(by: .updating(.project(party.alter(by: .removing(.task(beer))))))
                expect(s1.removed.map(\.id)) == [beer.id]
                expect(s1.removed.first?.kind) == .task
                expect(s1.removed.first?.projectID) == party.id
            }
            it("moves a project added again to the end") {
                let other = Project(title: "Other")
                let s1 = s0.alter(by: .adding(.project(other)), .adding(.project(party)))
                expect(s1.projects.map(\.title)) == ["Other", "Party"]
            }
            it("keeps tombstones out of the lists") {
                let s1 = s0.alter(by: .removing(.project(party)), .adding(.todo(TodoItem(text: "x"))))
                expect(s1.projects).to(beEmpty())
                expect(s1.todos.map(\.text)) == ["x"]
            }
        }

        describe("Project's updating of a task") {
            it("replaces the task in place") {
                let a = ProjectTask(title: "a")
                let b = ProjectTask(title: "b")
                let project = Project(title: "p").alter(by: .adding(.task(a)), .adding(.task(b)))
                let a2 = a.alter(by: .setting(.state(to: .finished)))
                expect(project.alter(by: .updating(.task(a2))).tasks) == [a2, b]
            }
            it("changes nothing for a task the project does not have") {
                let project = Project(title: "p")
                expect(project.alter(by: .updating(.task(ProjectTask(title: "x"))))) == project
            }
        }
    }
}
