import DocketModel
import DocketSpecSupport
import Foundation
import Nimble
import Quick

final class AlterationRulesSpec: QuickSpec {
    override class func spec() {
        var clock: SeededWorld!
        beforeEach { clock = SeededWorld(seed: 1) }
        afterEach {
            clock.uninstall()
            clock = nil
        }

        describe("the clock") {
            it("dates a new todo with the injected time") {
                expect(TodoItem(text: "x").creationDate) == clock.now
            }
            it("dates an alteration with the injected time") {
                let todo = TodoItem(text: "x")
                clock.advance(60)
                expect(todo.alter(.completed(true)).alterDate) == clock.now
            }
        }

        describe("a change to the value a field already has") {
            var todo: TodoItem!
            beforeEach {
                todo = TodoItem(text: "Call Anna").alter(.due(clock.now.addingTimeInterval(86_400)), .completed(true))
                clock.advance(5)
            }
            it("leaves a todo's text and alterDate alone") {
                expect(todo.alter(.text("Call Anna"))) == todo
                expect(todo.alter(.text("Call Anna")).alterDate) == todo.alterDate
            }
            it("leaves a todo unchanged when completed again") { expect(todo.alter(.completed(true))) == todo }
            it("leaves a todo unchanged when given the same due date") {
                expect(todo.alter(.due(todo.dueDate))) == todo
            }
            it("leaves a fresh todo without an alterDate") {
                let fresh = TodoItem(text: "x")
                expect(fresh.alter(.text("x"), .completed(false), .due(nil)).alterDate).to(beNil())
            }
            it("leaves a task unchanged") {
                let task = ProjectTask(title: "Buy Beer")
                expect(
                    task.alter(
                        by: .setting(.title(to: "Buy Beer")), .setting(.state(to: .unfinished)),
                        .setting(.dueDate(to: .unknown)))) == task
            }
            it("leaves a project unchanged when renamed to its title") {
                let project = Project(title: "Party")
                expect(project.alter(by: .setting(.title(to: "Party")))) == project
            }
            it("still alters when the value really changes") {
                expect(todo.alter(.text("Call Ben")).alterDate) > todo.alterDate!
            }
        }

        describe("forking") {
            var orig: TodoItem!
            beforeEach {
                orig = TodoItem(text: "Water plants").alter(.completed(true))
                clock.advance(10)
            }
            context("a fork of a fork") {
                var outer: TodoItem!
                var inner: TodoItem!
                beforeEach {
                    outer = orig.alter(.fork([]))
                    inner = orig.alter(.fork([.fork([])]))
                }
                it("has an id unlike the original's and the outer fork's") {
                    expect(inner.id) != orig.id
                    expect(inner.id) != outer.id
                }
                it("keeps the original's alterDate, as forking is no alteration") {
                    expect(inner.alterDate) == orig.alterDate
                }
                it("keeps everything else") {
                    expect(inner.text) == orig.text
                    expect(inner.completed) == orig.completed
                    expect(inner.creationDate) == orig.creationDate
                }
            }
            context("with changes inside a nested fork") {
                var fork: TodoItem!
                beforeEach {
                    fork = orig.alter(.fork([.completed(false), .fork([.text("Water the garden")])]))
                }
                it("applies the outer and inner changes to the new item") {
                    expect(fork.completed) == false
                    expect(fork.text) == "Water the garden"
                }
                it("dates each of its alterations: now, then a millisecond later") {
                    expect(fork.alterDate).to(beCloseTo(clock.now.addingTimeInterval(0.001), within: 0.0001))
                }
                it("leaves the original as it was") {
                    expect(orig.text) == "Water plants"
                    expect(orig.completed) == true
                }
            }
        }

        describe("alterDate") {
            it("strictly increases over 200 alterations in a tight loop") {
                DocketClock.reset()
                var todo = TodoItem(text: "count")
                var stored: [Date] = []
                for i in 0..<200 {
                    todo = todo.alter(.text("count \(i)"))
                    stored.append(try! DocketJSON.decode(TodoItem.self, from: DocketJSON.encode(todo)).alterDate!)
                }
                expect(zip(stored, stored.dropFirst()).allSatisfy { $0 < $1 }) == true
                expect(Set(stored).count) == 200
            }
            it("moves forward one millisecond when the clock stands still") {
                let first = TodoItem(text: "a").alter(.text("b"))
                let second = first.alter(.text("c"))
                expect(second.alterDate).to(beCloseTo(first.alterDate!.addingTimeInterval(0.001), within: 0.0001))
            }
            it("never goes back when the clock does") {
                let first = TodoItem(text: "a").alter(.text("b"))
                clock.advance(-3600)
                let second = first.alter(.text("c"))
                expect(second.alterDate) > first.alterDate!
            }
            it("follows the clock when it runs ahead of the last alteration") {
                let first = TodoItem(text: "a").alter(.text("b"))
                clock.advance(30)
                expect(first.alter(.text("c")).alterDate) == clock.now
            }
            it("is set on tasks and on the project that holds them") {
                let task = ProjectTask(title: "t").alter(by: .setting(.state(to: .finished)))
                expect(task.alterDate) == clock.now
                let project = Project(title: "p").alter(by: .adding(.task(task)))
                expect(project.alterDate) > task.alterDate!
            }
        }

        describe("recording time") {
            it("stops the running slip at the injected time") {
                let started = ProjectTask(title: "t").alter(by: .recording(.start))
                clock.advance(90)
                let stopped = started.alter(by: .recording(.stop))
                expect(stopped.timeSlips.first?.stop) == clock.now
                expect(stopped.runningSlip).to(beNil())
            }
            it("dates each recording as an alteration of the task") {
                let started = ProjectTask(title: "t").alter(by: .recording(.start))
                expect(started.alterDate) == clock.now
            }
            it("stops when the task is finished, at the finish, and keeps the slips before") {
                let started = ProjectTask(title: "t").alter(by: .recording(.start), .recording(.stop))
                clock.advance(60)
                let running = started.alter(by: .recording(.start))
                clock.advance(90)
                let finished = running.alter(by: .setting(.state(to: .finished)))
                expect(finished.runningSlip).to(beNil())
                expect(finished.timeSlips.last?.stop) == finished.completedDate
                expect(finished.completedDate) == clock.now
                expect(Array(finished.timeSlips.dropLast())) == Array(running.timeSlips.dropLast())
            }
            it("does not start on a finished task") {
                let finished = ProjectTask(title: "t").alter(by: .setting(.state(to: .finished)))
                clock.advance(60)
                expect(finished.alter(by: .recording(.start))) == finished
            }
        }
    }
}
