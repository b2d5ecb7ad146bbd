import DocketMerge
import DocketModel
import DocketSpecSupport
import Foundation
import Nimble
import Quick

final class MergeRulesSpec: QuickSpec {
    override class func spec() {
        var world: SeededWorld!
        var base: AppState!
        var milk: TodoItem!
        beforeEach {
            world = SeededWorld(seed: 7)
            milk = TodoItem(text: "Buy milk")
            base = AppState().alter(by: .adding(.todo(milk)))
        }
        afterEach {
            world.uninstall()
            world = nil
        }
        func later(_ seconds: Int64 = 60) { world.time += seconds * 1000 }

        describe("merge") {
            context("when neither side changed anything") {
                it("gives the base, and reports nothing") {
                    let result = merge(base: base, ours: base, theirs: base)
                    expect(result.state) == base
                    expect(result.report.isEmpty) == true
                    expect(result.report.summary) == "no item needed a decision"
                }
            }

            context("when each side added a todo") {
                it("keeps both") {
                    later()
                    let bread = TodoItem(text: "Buy bread")
                    later()
                    let eggs = TodoItem(text: "Buy eggs")
                    let ours = base.alter(by: .adding(.todo(bread)))
                    let theirs = base.alter(by: .adding(.todo(eggs)))
                    let result = merge(base: base, ours: ours, theirs: theirs)
                    expect(result.state.todos) == [milk, bread, eggs]
                    expect(result.report.isEmpty) == true
                }
            }

            context("when one side changed a todo") {
                it("takes that side's todo whole, without a decision") {
                    later()
                    let done = milk.alter(.completed(true))
                    let theirs = base.alter(by: .updating(.todo(done)))
                    let result = merge(base: base, ours: base, theirs: theirs)
                    expect(result.state) == theirs
                    expect(result.report.isEmpty) == true
                }
            }

            context("when the sides changed different fields of a todo") {
                var result: MergeResult!
                var ours: TodoItem!
                var theirs: TodoItem!
                beforeEach {
                    later()
                    ours = milk.alter(.completed(true))
                    later()
                    theirs = milk.alter(.text("Buy oat milk"))
                    result = merge(
                        base: base, ours: base.alter(by: .updating(.todo(ours))),
                        theirs: base.alter(by: .updating(.todo(theirs))))
                }
                it("takes each changed field from the side that changed it, and the later alterDate") {
                    expect(result.state.todos) == [
                        TodoItem(
                            id: milk.id, text: "Buy oat milk", creationDate: milk.creationDate,
                            completed: true, dueDate: nil, alterDate: theirs.alterDate,
                            completedDate: ours.completedDate)
                    ]
                }
                it("reports which field came from which side, with nothing lost") {
                    expect(result.report.items.count) == 1
                    expect(result.report.items[0].fields) == [
                        FieldDecision(
                            field: "completed", from: .ours, rule: .onlyOneSideChanged, kept: "true", lost: nil),
                        FieldDecision(
                            field: "completedDate", from: .ours, rule: .follows, kept: ours.completedDate!.fieldText,
                            lost: nil,
                            leader: "completed"),
                        FieldDecision(
                            field: "text", from: .theirs, rule: .onlyOneSideChanged, kept: "Buy oat milk", lost: nil),
                    ]
                }
            }

            context("when both sides changed a field to the same value") {
                it("takes that value and needs no decision") {
                    later()
                    let ours = milk.alter(.text("Buy oat milk"))
                    later()
                    let theirs = milk.alter(.text("Buy oat milk"))
                    let result = merge(
                        base: base, ours: base.alter(by: .updating(.todo(ours))),
                        theirs: base.alter(by: .updating(.todo(theirs))))
                    expect(result.state.todos) == [theirs]
                    expect(result.report.isEmpty) == true
                }
            }

            context("when both sides changed a field to different values") {
                var ours: AppState!
                var theirs: AppState!
                var laterEdit: TodoItem!
                beforeEach {
                    later()
                    let early = milk.alter(.text("Buy milk today"))
                    later()
                    laterEdit = milk.alter(.text("Buy milk tomorrow"))
                    ours = base.alter(by: .updating(.todo(laterEdit)))
                    theirs = base.alter(by: .updating(.todo(early)))
                }
                it("takes the value of the later edit") {
                    expect(merge(base: base, ours: ours, theirs: theirs).state.todos) == [laterEdit]
                }
                it("gives the same state whichever side is ours") {
                    expect(merge(base: base, ours: theirs, theirs: ours).state)
                        == merge(base: base, ours: ours, theirs: theirs).state
                }
                it("records the losing value") {
                    let field = merge(base: base, ours: ours, theirs: theirs).report.items.first?.fields.first
                    expect(field)
                        == FieldDecision(
                            field: "text", from: .ours, rule: .laterEdit, kept: "Buy milk tomorrow",
                            lost: "Buy milk today")
                }
                it("says so in its summary") {
                    expect(merge(base: base, ours: ours, theirs: theirs).report.summary)
                        == "1 item merged; 1 field chose the later edit: todo 'Buy milk tomorrow' text"
                }
                it("prints the lost value as docket merges numbers and says it") {
                    let lost = merge(base: base, ours: ours, theirs: theirs).report.lostValues
                    expect(lost.map(\.description)) == [
                        "[1] todo 'Buy milk tomorrow' text: kept \"Buy milk tomorrow\" (ours, the later edit), "
                            + "lost \"Buy milk today\" (theirs)"
                    ]
                }
            }

            context("when both sides changed a field at the same alterDate") {
                it("takes the greater value, whichever side is ours") {
                    later()
                    let a = milk.alter(.text("Apples"))
                    let b = milk.alter(.text("Bananas"))
                    expect(a.alterDate) == b.alterDate
                    let ours = base.alter(by: .updating(.todo(a)))
                    let theirs = base.alter(by: .updating(.todo(b)))
                    let one = merge(base: base, ours: ours, theirs: theirs)
                    let other = merge(base: base, ours: theirs, theirs: ours)
                    expect(one.state.todos.map(\.text)) == ["Bananas"]
                    expect(other.state) == one.state
                    expect(one.report.items.first?.fields.first?.rule) == .tieBreak
                    expect(other.report) == one.report.swappingSides()
                    // No edit was later: the summary does not say one was.
                    expect(one.report.summary)
                        == "1 item merged; 1 field edited at the same moment kept the greater value: todo 'Bananas' text"
                }
            }

            context("when an item's alterDate lies far ahead, at the last millisecond a file holds") {
                let ceiling = ISODate.date(from: "9999-12-31T23:59:59.999Z")!
                var pinned: TodoItem!
                var pinnedBase: AppState!
                beforeEach {
                    pinned = TodoItem(
                        id: milk.id, text: "Buy milk", creationDate: milk.creationDate, completed: false,
                        due: .unknown, alterDate: ceiling)
                    pinnedBase = AppState().alter(by: .adding(.todo(pinned)))
                }
                it("takes the later of two concurrent edits, not the greater value, whichever side is ours") {
                    later()
                    let earlier = pinned.alter(.text("Buy oat milk"))
                    later()
                    let laterEdit = pinned.alter(.text("Buy almond milk"))
                    let ours = pinnedBase.alter(by: .updating(.todo(earlier)))
                    let theirs = pinnedBase.alter(by: .updating(.todo(laterEdit)))
                    let one = merge(base: pinnedBase, ours: ours, theirs: theirs)
                    let other = merge(base: pinnedBase, ours: theirs, theirs: ours)
                    expect(one.state.todos.map(\.text)) == ["Buy almond milk"]
                    expect(other.state) == one.state
                    expect(one.report.items.first?.fields.first?.rule) == .laterEdit
                    expect(one.report.items.first?.fields.first?.lost) == "Buy oat milk"
                }
                it("keeps an edit made after a concurrent removal") {
                    later()
                    let ours = pinnedBase.alter(by: .removing(.todo(pinned)))
                    later()
                    let edited = pinned.alter(.text("Buy milk, really"))
                    let theirs = pinnedBase.alter(by: .updating(.todo(edited)))
                    let result = merge(base: pinnedBase, ours: ours, theirs: theirs)
                    expect(result.state.todos.map(\.text)) == ["Buy milk, really"]
                    expect(result.report.items.first?.removal?.outcome) == .editWon
                }
                it("keeps an item put back on one side that the other side left removed at that date") {
                    let removed = AppState(
                        todos: [], projects: [], removed: [Tombstone(id: milk.id, kind: .todo, removedDate: ceiling)])
                    later()
                    // As `docket undo` or `docket merges restore` puts it back: dated after its removal.
                    let ours = removed.alter(by: .adding(.todo(pinned.redated(after: ceiling))))
                    let one = merge(base: removed, ours: ours, theirs: removed)
                    let other = merge(base: removed, ours: removed, theirs: ours)
                    expect(one.state.todos.map(\.id)) == [milk.id]
                    expect(other.state) == one.state
                }
            }

            context("when one side forked a todo the other side edited") {
                it("keeps the edited original and the fork, without a decision") {
                    later()
                    let fork = milk.alter(.fork([.text("Buy milk for Anna")]))
                    later()
                    let done = milk.alter(.completed(true))
                    let result = merge(
                        base: base, ours: base.alter(by: .adding(.todo(fork))),
                        theirs: base.alter(by: .updating(.todo(done))))
                    expect(result.state.todos.count) == 2
                    expect(result.state.todo(id: milk.id)) == done
                    expect(result.state.todo(id: fork.id)) == fork
                    expect(result.report.isEmpty) == true
                }
            }

            context("when one side removed a todo the other side edited") {
                context("and the edit is later than the removal") {
                    var result: MergeResult!
                    var edited: TodoItem!
                    beforeEach {
                        later()
                        let ours = base.alter(by: .removing(.todo(milk)))
                        later()
                        edited = milk.alter(.text("Buy milk, really"))
                        result = merge(base: base, ours: ours, theirs: base.alter(by: .updating(.todo(edited))))
                    }
                    it("keeps the edited todo and drops the tombstone") {
                        expect(result.state.todos) == [edited]
                        expect(result.state.removed).to(beEmpty())
                    }
                    it("reports that the edit won over the removal") {
                        expect(result.report.items.first?.removal?.outcome) == .editWon
                        expect(result.report.items.first?.removal?.removedOn) == .ours
                    }
                }
                context("and the removal is later than the edit") {
                    var result: MergeResult!
                    beforeEach {
                        later()
                        let edited = milk.alter(.text("Buy milk, really"))
                        later()
                        let ours = base.alter(by: .removing(.todo(milk)))
                        result = merge(base: base, ours: ours, theirs: base.alter(by: .updating(.todo(edited))))
                    }
                    it("removes the todo and keeps the tombstone") {
                        expect(result.state.todos).to(beEmpty())
                        expect(result.state.removed.map(\.id)) == [milk.id]
                    }
                    it("records the edit the removal discarded") {
                        let removal = result.report.items.first?.removal
                        expect(removal?.outcome) == .removalWon
                        expect(removal?.lostItem).to(contain("Buy milk, really"))
                        expect(result.report.summary)
                            == "1 item merged; 1 removal won over a concurrent edit: todo 'Buy milk, really'"
                    }
                }
                context("and the other side left it untouched") {
                    it("removes it without a decision") {
                        later()
                        let ours = base.alter(by: .removing(.todo(milk)))
                        let result = merge(base: base, ours: ours, theirs: base)
                        expect(result.state) == ours
                        expect(result.report.isEmpty) == true
                    }
                }
            }

            context("when both sides removed a todo") {
                it("removes it and keeps the later tombstone") {
                    later()
                    let ours = base.alter(by: .removing(.todo(milk)))
                    later()
                    let theirs = base.alter(by: .removing(.todo(milk)))
                    let result = merge(base: base, ours: ours, theirs: theirs)
                    expect(result.state.todos).to(beEmpty())
                    expect(result.state.removed) == theirs.removed
                    expect(merge(base: base, ours: theirs, theirs: ours).state) == result.state
                }
            }

            context("when the histories share no ancestor") {
                it("merges a todo both hold as if both sides changed every field") {
                    later()
                    let ours = milk.alter(.text("Buy milk and bread"))
                    later()
                    let theirs = milk.alter(.completed(true))
                    let result = merge(
                        base: nil, ours: AppState().alter(by: .adding(.todo(ours))),
                        theirs: AppState().alter(by: .adding(.todo(theirs))))
                    expect(result.state.todos) == [
                        TodoItem(
                            id: milk.id, text: "Buy milk", creationDate: milk.creationDate,
                            completed: true, dueDate: nil, alterDate: theirs.alterDate,
                            completedDate: theirs.completedDate)
                    ]
                    expect(result.report.items.first?.fields.map(\.rule)) == [.laterEdit, .follows, .laterEdit]
                }
                it("keeps what only one side holds") {
                    let bread = TodoItem(text: "Buy bread")
                    let result = merge(base: nil, ours: base, theirs: AppState().alter(by: .adding(.todo(bread))))
                    expect(Set(result.state.todos)) == Set([milk, bread])
                }
            }

            context("when fields never change") {
                it("keeps the id and creationDate") {
                    later()
                    let a = milk.alter(.text("A"))
                    let b = milk.alter(.text("B"))
                    let merged = merge(
                        base: nil, ours: AppState().alter(by: .adding(.todo(a))),
                        theirs: AppState().alter(by: .adding(.todo(b)))
                    ).state.todos[0]
                    expect(merged.id) == milk.id
                    expect(merged.creationDate) == milk.creationDate
                }
            }
        }

        describe("merge of projects") {
            var party: Project!
            var beer: ProjectTask!
            var projectBase: AppState!
            beforeEach {
                beer = ProjectTask(title: "Buy Beer")
                party = Project(title: "Party").alter(by: .adding(.task(beer)))
                projectBase = AppState().alter(by: .adding(.project(party)))
            }

            context("when both sides renamed a project") {
                it("takes the later title and records the other") {
                    later()
                    let early = party.alter(by: .setting(.title(to: "Garden party")))
                    later()
                    let late = party.alter(by: .setting(.title(to: "Beach party")))
                    let result = merge(
                        base: projectBase, ours: projectBase.alter(by: .updating(.project(early))),
                        theirs: projectBase.alter(by: .updating(.project(late))))
                    expect(result.state.projects.map(\.title)) == ["Beach party"]
                    expect(result.report.items.first?.fields.first?.lost) == "Garden party"
                }
            }

            context("when each side added a task to the same project") {
                it("keeps both tasks, in the same order whichever side is ours") {
                    later()
                    let chips = ProjectTask(title: "Buy Chips")
                    let pizza = ProjectTask(title: "Order Pizza")
                    let ours = projectBase.alter(by: .updating(.project(party.alter(by: .adding(.task(chips))))))
                    later()
                    let theirs = projectBase.alter(by: .updating(.project(party.alter(by: .adding(.task(pizza))))))
                    let one = merge(base: projectBase, ours: ours, theirs: theirs).state
                    let other = merge(base: projectBase, ours: theirs, theirs: ours).state
                    expect(one) == other
                    expect(Set(one.projects[0].tasks.map(\.title))) == Set(["Buy Beer", "Buy Chips", "Order Pizza"])
                    expect(one.projects[0].tasks.first) == beer
                }
            }

            context("when one side removed a project in which the other added a task") {
                var chips: ProjectTask!
                var withChips: AppState!
                beforeEach {
                    chips = ProjectTask(title: "Buy Chips")
                }
                it("keeps the project when the task was added after the removal") {
                    later()
                    let removed = projectBase.alter(by: .removing(.project(party)))
                    later()
                    withChips = projectBase.alter(by: .updating(.project(party.alter(by: .adding(.task(chips))))))
                    let result = merge(base: projectBase, ours: removed, theirs: withChips)
                    expect(result.state.projects) == withChips.projects
                    expect(result.state.removed).to(beEmpty())
                    expect(result.report.items.first?.removal?.outcome) == .editWon
                }
                it("removes the project when the removal came later, recording the lost task") {
                    later()
                    withChips = projectBase.alter(by: .updating(.project(party.alter(by: .adding(.task(chips))))))
                    later()
                    let removed = projectBase.alter(by: .removing(.project(party)))
                    let result = merge(base: projectBase, ours: removed, theirs: withChips)
                    expect(result.state.projects).to(beEmpty())
                    expect(result.report.items.first?.removal?.lostItem).to(contain("Buy Chips"))
                }
            }

            context("when one side removed a task the other edited later") {
                it("keeps the edited task") {
                    later()
                    let ours = projectBase.alter(by: .updating(.project(party.alter(by: .removing(.task(beer))))))
                    later()
                    let done = beer.alter(by: .setting(.state(to: .finished)))
                    let theirs = projectBase.alter(by: .updating(.project(party.alter(by: .updating(.task(done))))))
                    let result = merge(base: projectBase, ours: ours, theirs: theirs)
                    expect(result.state.projects[0].tasks) == [done]
                    expect(result.state.removed).to(beEmpty())
                }
            }

            context("order") {
                var a: Project!
                var b: Project!
                var c: Project!
                var abc: AppState!
                beforeEach {
                    a = Project(title: "A")
                    b = Project(title: "B")
                    c = Project(title: "C")
                    abc = AppState().alter(by: .adding(.project(a)), .adding(.project(b)), .adding(.project(c)))
                }
                it("keeps an item moved on one side where that side moved it") {
                    let moved = abc.alter(by: .adding(.project(a)))
                    expect(merge(base: abc, ours: abc, theirs: moved).state.projects.map(\.title)) == ["B", "C", "A"]
                }
                it("shows every item added concurrently, removed ones gone, the same on both sides") {
                    let d = Project(title: "D")
                    let e = Project(title: "E")
                    later()
                    let ours = abc.alter(by: .adding(.project(d)), .removing(.project(b)))
                    let theirs = abc.alter(by: .adding(.project(e)))
                    let one = merge(base: abc, ours: ours, theirs: theirs).state.projects.map(\.title)
                    let other = merge(base: abc, ours: theirs, theirs: ours).state.projects.map(\.title)
                    expect(one) == other
                    expect(Array(one.prefix(2))) == ["A", "C"]
                    expect(Set(one.suffix(2))) == Set(["D", "E"])
                }
            }
        }

        describe("merge of time slips") {
            var task: ProjectTask!
            var project: Project!
            var slipBase: AppState!
            func state(_ t: ProjectTask) -> AppState {
                slipBase.alter(by: .updating(.project(project.alter(by: .updating(.task(t))))))
            }
            beforeEach {
                task = ProjectTask(title: "Write report")
                project = Project(title: "Work").alter(by: .adding(.task(task)))
                slipBase = AppState().alter(by: .adding(.project(project)))
            }

            context("when both sides started recording") {
                var result: MergeResult!
                var early: ProjectTask!
                var late: ProjectTask!
                beforeEach {
                    later()
                    early = task.alter(by: .recording(.start))
                    later(30)
                    late = task.alter(by: .recording(.start))
                    result = merge(base: slipBase, ours: state(early), theirs: state(late))
                }
                it("keeps both slips, the earlier stopped where the later starts") {
                    let slips = result.state.projects[0].tasks[0].timeSlips
                    expect(slips.map(\.id)) == [early.timeSlips[0].id, late.timeSlips[0].id]
                    expect(slips[0].stop) == late.timeSlips[0].start
                    expect(slips[1].stop).to(beNil())
                }
                it("reports the stopped slip") {
                    expect(result.report.items.first?.stoppedSlips) == [
                        StoppedSlip(slipID: early.timeSlips[0].id, stop: late.timeSlips[0].start)
                    ]
                    expect(result.report.summary).to(contain("1 running slip stopped: task 'Write report'"))
                }
                it("says when the slip stopped in the local time zone, as lists show a moment") {
                    defer { DocketClock.use(timeZone: .current) }
                    DocketClock.use(timeZone: TimeZone(identifier: "Asia/Kolkata")!)
                    let stop = late.timeSlips[0].start
                    let line = result.report.items.first?.lines.first { $0.contains("stopped at") }
                    expect(line).to(endWith("stopped at \(ShownDate.string(stop))"))
                    expect(line).notTo(contain("Z"))
                }
            }

            context("when one side stopped a running slip") {
                it("keeps the stop") {
                    later()
                    let running = task.alter(by: .recording(.start))
                    let base = state(running)
                    later()
                    let stopped = running.alter(by: .recording(.stop))
                    later()
                    let renamed = running.alter(by: .setting(.title(to: "Write the report")))
                    let merged = merge(
                        base: base,
                        ours: base.alter(
                            by: .updating(.project(base.projects[0].alter(by: .updating(.task(stopped)))))),
                        theirs: base.alter(
                            by: .updating(.project(base.projects[0].alter(by: .updating(.task(renamed)))))))
                    let slip = merged.state.projects[0].tasks[0].timeSlips[0]
                    expect(slip.stop) == stopped.timeSlips[0].stop
                    expect(merged.state.projects[0].tasks[0].title) == "Write the report"
                }
            }

            context("when one side finished the task while a slip ran on the other") {
                func both(_ ours: ProjectTask, _ theirs: ProjectTask, base: AppState) -> (MergeResult, MergeResult) {
                    func side(_ t: ProjectTask) -> AppState {
                        base.alter(by: .updating(.project(base.projects[0].alter(by: .updating(.task(t))))))
                    }
                    return (
                        merge(base: base, ours: side(ours), theirs: side(theirs)),
                        merge(base: base, ours: side(theirs), theirs: side(ours))
                    )
                }
                it("stops a slip started before the finish at the finish, on both machines, and reports it") {
                    later()
                    let running = task.alter(by: .recording(.start))
                    let base = state(running)
                    later()
                    // The other machine stops that slip and starts another; then this one, not knowing, finishes.
                    let switched = running.alter(by: .recording(.stop))
                    later(1)
                    let again = switched.alter(by: .recording(.start))
                    later()
                    let finished = running.alter(by: .setting(.state(to: .finished)))
                    let (one, other) = both(finished, again, base: base)
                    expect(one.state) == other.state
                    let merged = one.state.projects[0].tasks[0]
                    expect(merged.state) == .finished
                    expect(merged.runningSlip).to(beNil())
                    expect(merged.timeSlips.map(\.id)) == again.timeSlips.map(\.id)
                    expect(merged.timeSlips.last?.stop) == finished.completedDate
                    expect(one.report.items.first?.stoppedSlips) == [
                        StoppedSlip(slipID: again.timeSlips[1].id, stop: finished.completedDate!)
                    ]
                    expect(one.report.summary).to(contain("1 running slip stopped: task 'Write report'"))
                }
                it("stops a slip started after the finish at its own start: the finish stands, the slip is kept") {
                    let base = slipBase!
                    later()
                    let finished = task.alter(by: .setting(.state(to: .finished)))
                    later()
                    let started = task.alter(by: .recording(.start))
                    let (one, other) = both(finished, started, base: base)
                    expect(one.state) == other.state
                    let merged = one.state.projects[0].tasks[0]
                    expect(merged.state) == .finished
                    expect(merged.timeSlips.first?.id) == started.timeSlips[0].id
                    expect(merged.timeSlips.first?.stop) == started.timeSlips[0].start
                    expect(one.report.items.first?.stoppedSlips.map(\.slipID)) == [started.timeSlips[0].id]
                }
            }
        }

        describe("the report") {
            it("reads back from its JSON") {
                later()
                let a = milk.alter(.text("A"))
                let b = milk.alter(.text("B"))
                let report = merge(
                    base: base, ours: base.alter(by: .updating(.todo(a))), theirs: base.alter(by: .updating(.todo(b)))
                ).report
                let back = try DocketJSON.decode(MergeReport.self, from: DocketJSON.encode(report))
                expect(back) == report
            }
        }
    }
}
