import DocketModel
import Foundation
import Nimble
import Quick

// Seed 000's spec, final version, in Quick 7's spelling.
class TodoItemSpec: QuickSpec {
    override class func spec() {
        describe("TodoItem") {
            let orig = TodoItem(text: "Hey Ho")
            context("default") {
                it("has custom text") { expect(orig.text) == "Hey Ho" }
                it("has random id") { expect(orig.id).toNot(beNil()) }
                it("is not completed") { expect(orig.completed) == false }
                it("has the creation date set") { expect(orig.creationDate).toNot(beNil()) }
                it("has no due date set") { expect(orig.dueDate).to(beNil()) }
                it("has no alter date set") { expect(orig.alterDate).to(beNil()) }
            }
            context("altering") {
                let new = orig.alter(.completed(true))
                context("check") {
                    it("changes completed") { expect(new.completed == true) != orig.completed }
                    it("doesnt changes the id") { expect(new.id) == orig.id }
                    it("doesnt changes the text") { expect(new.text) == orig.text }
                    it("changes the alterDate") {
                        expect(new.alterDate).toNot(beNil())
                        expect(orig.alterDate).to(beNil())
                    }
                    it("doesn't change the due date") {
                        expect(new.dueDate).to(beNil())
                        expect(orig.dueDate).to(beNil())
                    }
                    it("doesn't change creation date") { expect(new.creationDate) == orig.creationDate }
                }
                context("uncheck") {
                    let orig = new
                    let new = orig.alter(.completed(false))
                    it("changes completed") { expect(new.completed) != orig.completed }
                    it("doesnt changes the id") { expect(new.id) == orig.id }
                    it("doesnt changes the text") { expect(new.text) == orig.text }
                    it("changes the alterDate") { expect(new.alterDate) > orig.alterDate! }
                    it("doesn't change the due date") {
                        expect(new.dueDate).to(beNil())
                        expect(orig.dueDate).to(beNil())
                    }
                    it("doesn't change creation date") { expect(new.creationDate) == orig.creationDate }
                }
                context("change text") {
                    let new = orig.alter(.text("Let's Go"))
                    it("changes the text") { expect(new.text) == "Let's Go" }
                    it("doesnt change completed") { expect(new.completed) == orig.completed }
                    it("doesnt changes the id") { expect(new.id) == orig.id }
                    it("changes the alterDate") {
                        expect(new.alterDate).toNot(beNil())
                        expect(orig.alterDate).to(beNil())
                    }
                    it("doesn't change the due date") {
                        expect(new.dueDate).to(beNil())
                        expect(orig.dueDate).to(beNil())
                    }
                    it("doesn't change creation date") { expect(new.creationDate) == orig.creationDate }
                }
                context("due date") {
                    let new = orig.alter(.due(Date.tomorrow.noon))
                    // NB: the seed says "doesn't change the due date" here, but asserts that it changed.
                    it("changes the due date") {
                        expect(new.dueDate).toNot(beNil())
                        expect(orig.dueDate).to(beNil())
                    }
                    it("doesnt change the text") { expect(new.text) == orig.text }
                    it("doesnt change completed") { expect(new.completed) == orig.completed }
                    it("doesnt changes the id") { expect(new.id) == orig.id }
                    it("changes the alterDate") {
                        expect(new.alterDate).toNot(beNil())
                        expect(orig.alterDate).to(beNil())
                    }
                    it("doesn't change creation date") { expect(new.creationDate) == orig.creationDate }
                }
                context("forking") {
                    let orig = orig.alter(.due(Date.tomorrow.noon), .completed(true))
                    context("without altering") {
                        let fork = orig.alter(.fork([]))
                        it("changes the id") { expect(fork.id) != orig.id }
                        it("doesn't change the alterDate") { expect(fork.alterDate) == orig.alterDate }
                        it("doesn't change the text") { expect(fork.text) == orig.text }
                        it("doesn't change completed") { expect(fork.completed) == orig.completed }
                        it("doesn't change the due date") { expect(fork.dueDate) == orig.dueDate }
                        it("doesn't change creation date") { expect(fork.creationDate) == orig.creationDate }
                    }
                    context("altering text") {
                        let fork = orig.alter(.fork([.text("Let's go")]))
                        it("changes the text") { expect(fork.text) != orig.text }
                        it("changes the id") { expect(fork.id) != orig.id }
                        it("changes the alterDate") { expect(fork.alterDate) != orig.alterDate }
                        it("doesn't change the due date") { expect(fork.dueDate) == orig.dueDate }
                        it("doesn't change completed") { expect(fork.completed) == orig.completed }
                        it("doesn't change creation date") { expect(fork.creationDate) == orig.creationDate }
                    }
                    context("altering completed") {
                        let fork = orig.alter(.fork([.completed(!orig.completed)]))
                        it("changes completed") { expect(fork.completed) != orig.completed }
                        it("changes the id") { expect(fork.id) != orig.id }
                        it("changes the alterDate") { expect(fork.alterDate) != orig.alterDate }
                        it("doesn't change the text") { expect(fork.text) == orig.text }
                        it("doesn't change the due date") { expect(fork.dueDate) == orig.dueDate }
                        it("doesn't change creation date") { expect(fork.creationDate) == orig.creationDate }
                    }
                    context("altering duedate") {
                        let fork = orig.alter(.fork([.due(orig.dueDate?.dayAfter)]))
                        it("changes the due date") { expect(fork.dueDate) != orig.dueDate }
                        it("changes the id") { expect(fork.id) != orig.id }
                        it("changes the alterDate") { expect(fork.alterDate) != orig.alterDate }
                        it("doesn't change the text") { expect(fork.text) == orig.text }
                        it("doesn't change completed") { expect(fork.completed) == orig.completed }
                        it("doesn't change creation date") { expect(fork.creationDate) == orig.creationDate }
                    }
                    context("altering duedate and completed") {
                        let fork = orig.alter(.fork([.due(orig.dueDate?.dayAfter), .completed(!orig.completed)]))
                        it("changes the due date") { expect(fork.dueDate) != orig.dueDate }
                        it("changes completed") { expect(fork.completed) != orig.completed }
                        it("changes the id") { expect(fork.id) != orig.id }
                        it("changes the alterDate") { expect(fork.alterDate) != orig.alterDate }
                        it("doesn't change the text") { expect(fork.text) == orig.text }
                        it("doesn't change creation date") { expect(fork.creationDate) == orig.creationDate }
                    }
                    context("altering text and duedate") {
                        let fork = orig.alter(.fork([.due(orig.dueDate?.dayAfter), .text("Let's go")]))
                        // NB: the seed says "doesn't change the text" here, but asserts that it changed.
                        it("changes the text") { expect(fork.text) != orig.text }
                        it("changes the due date") { expect(fork.dueDate) != orig.dueDate }
                        it("changes the id") { expect(fork.id) != orig.id }
                        it("changes the alterDate") { expect(fork.alterDate) != orig.alterDate }
                        it("doesn't change completed") { expect(fork.completed) == orig.completed }
                        it("doesn't change creation date") { expect(fork.creationDate) == orig.creationDate }
                    }
                    context("altering completed and duedate") {
                        let fork = orig.alter(.fork([.due(orig.dueDate?.dayAfter), .completed(!orig.completed)]))
                        it("changes completed") { expect(fork.completed) != orig.completed }
                        it("changes the due date") { expect(fork.dueDate) != orig.dueDate }
                        it("changes the id") { expect(fork.id) != orig.id }
                        it("changes the alterDate") { expect(fork.alterDate) != orig.alterDate }
                        // NB: the seed says "changes the text" here, but asserts that it did not change.
                        it("doesn't change the text") { expect(fork.text) == orig.text }
                        it("doesn't change creation date") { expect(fork.creationDate) == orig.creationDate }
                    }
                    context("altering text, duedate and completed") {
                        let fork = orig.alter(
                            .fork([.due(orig.dueDate?.dayAfter), .text("Let's go"), .completed(!orig.completed)]))
                        it("changes the text") { expect(fork.text) != orig.text }
                        it("changes the due date") { expect(fork.dueDate) != orig.dueDate }
                        it("changes completed") { expect(fork.completed) != orig.completed }
                        it("changes the id") { expect(fork.id) != orig.id }
                        it("changes the alterDate") { expect(fork.alterDate) != orig.alterDate }
                        it("doesn't change creation date") { expect(fork.creationDate) == orig.creationDate }
                    }
                    context("altering due, completed, fork") {
                        let fork = orig.alter(
                            .fork([.due(orig.dueDate?.dayAfter), .completed(!orig.completed), .fork([])]))
                        it("changes the due date") { expect(fork.dueDate) != orig.dueDate }
                        it("changes completed") { expect(fork.completed) != orig.completed }
                        it("changes the id") { expect(fork.id) != orig.id }
                        it("changes the alterDate") { expect(fork.alterDate) != orig.alterDate }
                        it("doesn't change creation date") { expect(fork.creationDate) == orig.creationDate }
                        it("doesn't change the text") { expect(fork.text) == orig.text }
                    }
                    context("altering due, completed, fork with altered text") {
                        let fork = orig.alter(
                            .fork([
                                .due(orig.dueDate?.dayAfter), .completed(!orig.completed), .fork([.text("Let's go")]),
                            ]))
                        it("changes the due date") { expect(fork.dueDate) != orig.dueDate }
                        it("changes completed") { expect(fork.completed) != orig.completed }
                        it("changes the id") { expect(fork.id) != orig.id }
                        it("changes the alterDate") { expect(fork.alterDate) != orig.alterDate }
                        it("changes the text") { expect(fork.text) != orig.text }
                        it("doesn't change creation date") { expect(fork.creationDate) == orig.creationDate }
                    }
                }
            }
        }
    }
}
