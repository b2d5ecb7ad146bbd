import ArgumentParser
import Docket
import Foundation

struct Merges: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merges",
        abstract: "Show what past merges decided, with the values that lost; restore one.",
        discussion: """
            Each value a merge discarded is numbered, [1], [2]…; 'docket merges restore <merge> <n>' \
            puts it back as a new edit, which commits and syncs like any other. A file a pull set aside \
            (one a remote brought that docket cannot take in) is numbered the same way; restoring it puts \
            it back if it reads now, else settles it: this machine's version stands.

            --json prints an array of {commit, date, summary, report, setAside}; the report lists, per item, \
            the fields taken from each side, the losing values, removals weighed against edits, and slips stopped.

            Examples:
              docket merges -n 3
              docket merges restore 9c1e2f0 1
            """,
        subcommands: [ShowMerges.self, RestoreLost.self],
        defaultSubcommand: ShowMerges.self)

    struct ShowMerges: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "Show the last merges and their decisions (the default).")

        @OptionGroup var store: StoreOptions
        @Option(name: .customShort("n"), help: "How many merges to show.") var count = 10
        @Flag(help: "Print JSON for scripts.") var json = false

        func run() throws {
            let merges = try store.open().merges(limit: count)
            if json { return try Output.json(merges) }
            if merges.isEmpty { return print("No merges yet.") }
            for merge in merges {
                let summary = merge.setAside.isEmpty ? merge.report.summary : merge.summary
                print(
                    "\(Output.yellow(String(merge.commit.prefix(7))))  \(DateInput.show(merge.date))  \(Output.safe(summary))"
                        + (merge.madeByGit ? Output.dim("  (merged by git with Docket's rules)") : ""))
                let lost = merge.report.lostValues
                for item in merge.report.items {
                    let removalNumber = lost.first { $0.item == item && $0.field == nil }?.number
                    // NB: an item's lines are its fields', in order, then its removal's, then its stopped slips'.
                    for (index, line) in item.lines.enumerated() {
                        let number =
                            index < item.fields.count
                            ? lost.first { $0.item == item && $0.field == item.fields[index] }?.number
                            : (index == item.fields.count && item.removal != nil ? removalNumber : nil)
                        print("  " + (number.map { Output.bold("[\($0)]") + " " } ?? "") + Output.safe(line))
                    }
                }
                for line in merge.report.noteLines { print("  " + Output.safe(line)) }
                for (index, file) in merge.setAside.enumerated() {
                    print("  " + Output.bold("[\(index + 1)]") + " " + Output.safe(file.line))
                }
            }
        }
    }

    struct RestoreLost: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "restore", abstract: "Put back a value a merge discarded, as a new edit.",
            discussion: """
                The numbers are those 'docket merges' shows. A value that is back already (restored before) \
                is left as it is: it says so and changes nothing.

                Example: docket merges restore 9c1e2f0 1
                """)

        @OptionGroup var store: StoreOptions
        @Argument(help: "The merge commit's id or a prefix of it (7 characters, as 'docket merges' shows).") var merge:
            String
        @Argument(help: "The number of the lost value.") var number: Int

        func run() throws {
            let restored = try store.open().restoreLost(merge: merge, number: number)
            if let file = restored.setAside {
                if restored.putBack {
                    return print(
                        "Restored '\(Output.safe(restored.label))' from the file \(String(file.commit.prefix(7))) brought, which reads now; commit and sync to share it"
                    )
                }
                return print(
                    "Settled: \(Output.safe(file.path)) from \(String(file.commit.prefix(7))) still cannot be taken in; this machine's version stands"
                        + (file.object.map { " ('git show \(String($0.prefix(12)))' shows the file)" } ?? ""))
            }
            if restored.lost.field == nil, restored.lost.item.removal?.outcome == .editWon {
                let item = "\(restored.lost.item.kind) '\(Output.safe(restored.label))'"
                return print(
                    restored.wasBack
                        ? "Already removed: \(item); nothing changed"
                        : "Removed \(item) again, as the removal an edit had won over; commit and sync to share it")
            }
            let what = restored.lost.field.map { "\($0.field) \"\($0.lost ?? "")\"" } ?? "the edit the removal won over"
            if restored.wasBack {
                let back = restored.lost.field.map { _ in what } ?? "is back"
                return print(
                    "Already restored: \(restored.lost.item.kind) '\(Output.safe(restored.label))' \(Output.safe(back)); nothing changed"
                )
            }
            print(
                "Restored \(restored.lost.item.kind) '\(Output.safe(restored.label))' \(Output.safe(what)); commit and sync to share it"
            )
        }
    }
}
