import ArgumentParser
import Docket
import Foundation

/// `docket today`, and `docket` alone: the day's view.
struct Today: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "today",
        abstract: "What needs doing: overdue, due today, due soon, running time slips, then the other open todos.",
        discussion: """
            What 'docket' with no command shows. Project tasks with due dates are \
            included. Items that wait until a later date ('docket wait') are left out \
            until then; blocked items and those blocking them say so. --json prints \
            {overdue, today, soon, running, open, waiting}: arrays of \
            items as in their files, each with kind ("todo" or "task") and, for a task, \
            its project; running holds {task, since}.

            It takes the filters 'docket list' takes (words, +tag, -tag, --priority, --project, \
            a due range), as does 'docket' alone: 'docket +work' is 'docket today +work'. \
            The context switched on ('docket context') narrows it too, and it says so; \
            --no-context shows everything.

            Examples:
              docket today --soon 3
              docket +work -someday
            """)

    @OptionGroup var store: StoreOptions
    @OptionGroup var filtering: FilterOptions
    @Option(help: ArgumentHelp("How many days ahead count as soon.", valueName: "days")) var soon = 7
    @Option(help: ArgumentHelp("How many of the other open todos to show.", valueName: "count")) var rest = 10
    @Flag(name: .customLong("no-context"), help: "Show it without the context switched on.") var noContext = false
    @Flag(help: "Print JSON for scripts.") var json = false

    func validate() throws {
        if soon < 0 { throw ValidationError("--soon must be 0 or more") }
        if rest < 0 { throw ValidationError("--rest must be 0 or more") }
        _ = try filtering.words(command: Today.self)
    }

    func run() throws {
        let now = DocketClock.now
        let store = try self.store.open()
        var filter = try filtering.filter(in: store, command: Today.self)
        let context = noContext ? nil : try ActiveContext.load(store)
        if let context { filter = filter.and(context.filter) }
        let (agenda, problems) = try store.agenda(now: now, soonDays: soon, filter: filter)
        for problem in problems { Output.warning(problem.warning) }
        noticeSetAside(store)
        if json {
            if let context { Output.notice(context.notice) }
            return try Output.json(agenda)
        }
        let contextLine = context.map { Output.dim($0.notice) + "\n" } ?? ""
        if agenda.isEmpty {
            let filtered = !filtering.isEmpty || context != nil
            let waiting = agenda.waiting.isEmpty ? "" : " " + waitingNote(agenda.waiting)
            return Output.write(
                (filtered
                    ? "Nothing to do matches.\(waiting)"
                    : agenda.waiting.isEmpty
                        ? "Nothing to do. Add a todo with 'docket add <text>'." : "Nothing to do now.\(waiting)")
                    + "\n" + contextLine)
        }
        var relative = RelativeDays(now: now)
        var text = ""
        func section(_ title: String, _ entries: some Collection<Entry>) {
            guard !entries.isEmpty else { return }
            text += (text.isEmpty ? "" : "\n") + Output.bold(title) + "\n"
            for entry in entries {
                text += "  " + line(entry, now: now, relative: &relative, blocking: agenda.blocking) + "\n"
            }
        }
        section("Overdue", agenda.overdue)
        section("Today", agenda.today)
        section(soon == 1 ? "Tomorrow" : "Next \(soon) days", agenda.soon)
        if !agenda.running.isEmpty {
            text += (text.isEmpty ? "" : "\n") + Output.bold("Running") + "\n"
            for running in agenda.running {
                guard case let .task(task, project) = running.task else { continue }
                text +=
                    "  \(Output.dim(Output.short(task.id)))  \(task.shownTitle)\(Output.dim("  · \(project.shownTitle)"))  "
                    + Output.green("for \(duration(now.timeIntervalSince(running.since)))") + "\n"
            }
        }
        section("Open", agenda.open.prefix(rest))
        if agenda.open.count > rest {
            let more = agenda.open.count - rest
            text +=
                "  " + Output.dim("… and \(more) more \(more == 1 ? "todo" : "todos") ('docket list' shows all)") + "\n"
        }
        if !agenda.waiting.isEmpty { text += "\n" + Output.dim(waitingNote(agenda.waiting)) + "\n" }
        Output.write(text + (contextLine.isEmpty ? "" : "\n" + contextLine))
    }

    /// "3 waiting until a later date, the first until 2026-11-28 ('docket list --waiting' lists the todos; …)."
    private func waitingNote(_ waiting: [Entry]) -> String {
        let count = waiting.count
        let until =
            waiting.first.map {
                (count == 1 ? " until " : " until a later date, the first until ") + DateInput.show($0.waitDate)
            } ?? ""
        let tasks = waiting.contains { if case .task = $0 { true } else { false } }
        return "\(count) waiting\(until) ('docket list --waiting' lists the todos"
            + (tasks ? ", 'docket list --project <project> --waiting' a project's tasks)." : ").")
    }
}
