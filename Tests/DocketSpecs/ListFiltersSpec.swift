import Docket
import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// The filters and sorting a Taskwarrior user reaches for, as typed: `+tag` and `-tag` (without `--`), `--priority`,
/// `--project`, a due range, `--sort`, and contexts (saved filters that `docket`, `today` and `list` apply).
final class ListFiltersSpec: QuickSpec {
    override class func spec() {
        var store: URL!
        beforeEach {
            store = temporaryStore("docket-filters")
            add("Buy milk", "+home", "+errand", "--due", "+1d", "--priority", "medium")
            add("Write report", "+work", "--due", "+5d", "--priority", "high")
            add("Fix bike", "+home", "+next", "--priority", "low")
            add("Plan trip", "+someday", "+n")
            add("Call Anna", "--due", "+10d")
        }
        afterEach { try? FileManager.default.removeItem(at: store) }
        @discardableResult
        func run(_ arguments: String...) -> CommandResult { docket(arguments, store: store) }
        @discardableResult func add(_ words: String...) -> String {
            docket(["add"] + words, store: store).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        /// The texts `docket <arguments> --json` lists (an array of items, or the day's view's parts in order).
        func texts(_ arguments: String...) -> [String] {
            var arguments = arguments
            arguments.insert("--json", at: arguments.firstIndex(of: "--") ?? arguments.endIndex)
            let result = docket(arguments, store: store)
            expect(result.status).to(equal(0), description: "docket \(arguments): \(result.stderr)")
            let json = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
            let items =
                json as? [[String: Any]]
                ?? ["overdue", "today", "soon", "open"].flatMap {
                    (json as? [String: Any])?[$0] as? [[String: Any]] ?? []
                }
            return items.compactMap { ($0["text"] ?? $0["title"]) as? String }
        }

        describe("a Taskwarrior user's shorthand") {
            it("takes a unique start of a sort key, and a project's title where its id goes") {
                expect(texts("list", "--sort", "pri")) == texts("list", "--sort", "priority")
                expect(run("list", "--sort", "dz").status) == 64
                let party = docket(["project", "add", "Party"], store: store).stdout
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                expect(run("task", "add", "Party", "Buy", "beer", "--wait", "in 2 weeks").status) == 0
                expect(run("project", "show", "Party").stdout).to(contain("Buy beer"))
                expect(run("project", "show", String(party.prefix(8))).stdout).to(contain("Buy beer"))
                // The day's view counts the waiting task, and says where a project's waiting tasks are listed.
                expect(run().stdout).to(contain("'docket list --project <project> --waiting' a project's tasks"))
                // rename and rm take the title too.
                expect(run("project", "rename", "party", "Garden", "party").status) == 0
                expect(run("project", "show", "Garden party").stdout).to(contain("Buy beer"))
                expect(run("project", "rm", "Garden party").stdout).to(contain("Removed project: Garden party"))
            }
        }

        describe("project show") {
            it("says each task's priority, tags and what blocks it, as list does") {
                expect(run("project", "add", "Party").status) == 0
                let beer = docket(["task", "add", "Party", "Buy", "beer", "+shop", "--priority", "high"], store: store)
                    .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                expect(run("task", "add", "Party", "Chill", "beer", "--depends", beer).status) == 0
                let shown = run("project", "show", "Party").stdout
                let lines = shown.split(separator: "\n").map(String.init)
                expect(lines.first { $0.contains("Buy beer") }).to(contain("!high", "+shop", "blocking "))
                expect(lines.first { $0.contains("Chill beer") }).to(contain("blocked by \(beer.prefix(8))"))
            }
        }

        describe("a due range of weekdays") {
            it("is this week's, Monday to Sunday, on any day, as --done-since monday is") {
                let week = temporaryStore("docket-filters-week")
                defer { try? FileManager.default.removeItem(at: week) }
                for (text, due) in [
                    ("Last Sunday", "2026-11-22"), ("Tuesday's", "2026-11-24"),
                    ("Friday's", "2026-11-27"), ("Saturday's", "2026-11-28"), ("Next Tuesday's", "2026-12-01"),
                ] {
                    expect(docket("add", text, "--due", due, store: week).status) == 0
                }
                // Monday to Sunday: each day of the week lists the same.
                for now in ["2026-11-23T10:00:00Z", "2026-11-25T10:00:00Z", "2026-11-29T10:00:00Z"] {
                    let result = docket(
                        "list", "--all", "--due-after", "monday", "--due-before", "saturday", "--json", store: week,
                        environment: ["DOCKET_NOW": now, "TZ": "UTC"])
                    let listed =
                        ((try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [[String: Any]] ?? [])
                        .compactMap { $0["text"] as? String }
                    expect(listed).to(equal(["Tuesday's", "Friday's"]), description: "on \(now)")
                }
                let next = docket(
                    "list", "--all", "--due-after", "next monday", "--json", store: week,
                    environment: ["DOCKET_NOW": "2026-11-25T10:00:00Z", "TZ": "UTC"])
                expect(next.stdout).to(contain("Next Tuesday's"))
                expect(next.stdout).notTo(contain("Friday's"))
            }
        }

        describe("--waiting, --blocked and --ready") {
            it("keep waiting items apart, and list what a dependency blocks or what is ready, in a context too") {
                let bike = docket(["list", "Fix", "--json"], store: store).stdout
                let bikeID =
                    (try? JSONSerialization.jsonObject(with: Data(bike.utf8)) as? [[String: Any]])?
                    .first?["id"] as? String ?? ""
                add("Ride to work", "--depends", String(bikeID.prefix(8)))
                add("Renew passport", "--wait", "in 2 weeks")
                expect(texts("list")).toNot(contain("Renew passport"))
                expect(texts("list", "--waiting")) == ["Renew passport"]
                expect(texts("list", "--blocked")) == ["Ride to work"]
                expect(texts("list", "--ready")).to(contain("Fix bike"))
                expect(texts("list", "--ready")).toNot(contain("Ride to work"))
                expect(texts("list", "--ready")).toNot(contain("Renew passport"))
                expect(run("list", "--blocked", "--ready").status) == 64
                // A saved filter says nothing of waiting items: the command does.
                expect(run("context", "set", "stuck", "--blocked").status) == 0
                expect(run("context", "stuck").status) == 0
                expect(texts("list")) == ["Ride to work"]
                expect(texts("list", "--waiting")) == []
                // A todo added outside the context is added, and the person is told lists will leave it out.
                let outside = run("add", "Buy", "stamps")
                expect(outside.status) == 0
                expect(outside.stdout.count) == 9
                expect(outside.stderr).to(contain("Context stuck is on (--blocked), and this todo is not in it"))
                expect(run("add", "Fix", "lamp", "--depends", String(bikeID.prefix(8))).stderr) == ""
                expect(run("context", "none").status) == 0
                expect(run("done", String(bikeID.prefix(8))).status) == 0
                expect(texts("list", "--blocked")) == []
                expect(texts("list", "--ready")).to(contain("Ride to work"))
            }
        }

        describe("+tag and -tag") {
            it("leave out a tag with -tag, no '--' needed, even one that starts with a short option's letter") {
                expect(texts("list", "-home")) == ["Write report", "Call Anna", "Plan trip"]
                expect(texts("list", "-next", "-someday")) == ["Buy milk", "Write report", "Call Anna"]
                expect(texts("list", "+home", "-errand")) == ["Fix bike"]
                expect(texts("list", "-n", "1", "-home", "--due-before", "-1d")) == []
            }
            it("leave out a one-letter tag after '--', where -x is an option") {
                expect(texts("list", "--", "-n")) == ["Buy milk", "Write report", "Call Anna", "Fix bike"]
            }
            it("take a tag no item has as no error: nothing has it") {
                let result = run("list", "+nosuchtag")
                expect(result.status) == 0
                expect(result.stdout) == "No todos match.\n"
                expect(texts("list", "-nosuchtag")).to(haveCount(5))
            }
            it("still refuse a mistyped option, naming the nearest, and ask about -all where --all is meant") {
                let mistyped = run("list", "--prioity", "high")
                expect(mistyped.status) == 64
                expect(mistyped.stderr).to(contain("unknown option '--prioity'; did you mean '--priority'?"))
                let single = run("list", "-all")
                expect(single.status) == 64
                expect(single.stderr).to(contain("did you mean '--all'?"))
                expect(single.stderr).to(contain("to leave out the tag all, put it after '--'"))
                expect(run("list", "-json").stderr).to(contain("did you mean '--json'?"))
                expect(run("list", "-h").stdout).to(contain("<word|+tag|-tag>"))
            }
            it("come before list, or alone for the day's view, in Taskwarrior's order") {
                expect(texts("-home", "list")) == ["Write report", "Call Anna", "Plan trip"]
                expect(texts("+home")) == ["Buy milk", "Fix bike"]
                expect(texts("-C", store.path, "-home", "+work")) == ["Write report"]
                let other = run("+home", "done")
                expect(other.status) == 64
                expect(other.stderr).to(contain("'done' takes no filter; +tag and -tag go with list and today"))
            }
        }

        describe("--priority") {
            it("keeps the priorities named, by word or letter, several joined by commas, none among them") {
                expect(texts("list", "--priority", "h")) == ["Write report"]
                expect(texts("list", "--priority", "high,medium")) == ["Buy milk", "Write report"]
                expect(texts("list", "--priority", "none")) == ["Call Anna", "Plan trip"]
                expect(texts("today", "--priority", "l")) == ["Fix bike"]
            }
            it("refuses a priority it does not know, naming the ones it does") {
                let result = run("list", "--priority", "urgent")
                expect(result.status) == 64
                expect(result.stderr).to(contain("'urgent' is not a priority; use high, medium, low or none"))
            }
        }

        describe("--project") {
            it("lists a project's tasks by its title or id, filtered the same way; a todo belongs to no project") {
                let party = run("project", "add", "Summer Party").stdout.trimmingCharacters(in: .newlines)
                let beer = run("task", "add", party, "Buy beer", "--due", "tomorrow").stdout
                run("tag", beer.trimmingCharacters(in: .newlines), "+errand")
                run("task", "add", party, "Send invitations")
                expect(texts("list", "--project", "summer party")) == ["Buy beer", "Send invitations"]
                expect(texts("list", "--project", String(party.prefix(4)), "-errand")) == ["Send invitations"]
                expect(texts("today", "--project", "Summer Party")) == ["Buy beer"]
            }
            it("says how to find a project when none has that id or title, and names the ids of a shared title") {
                let unknown = run("list", "--project", "Garden")
                expect(unknown.status) == 1
                expect(unknown.stderr).to(
                    contain("no project has the id or title Garden; 'docket project list' shows the projects"))
                let first = run("project", "add", "Garden").stdout.trimmingCharacters(in: .newlines)
                run("project", "add", "garden")
                let shared = run("list", "--project", "Garden")
                expect(shared.status) == 1
                expect(shared.stderr).to(contain("2 projects have the title Garden: "))
                expect(shared.stderr).to(contain(first))
            }
        }

        describe("a due range") {
            it(
                "keeps those due on --due-after's day or later and before --due-before's day, dates as docket reads them"
            ) {
                expect(texts("list", "--due-after", "+2d")) == ["Write report", "Call Anna"]
                expect(texts("list", "--due-after", "+1d", "--due-before", "+10d")) == ["Buy milk", "Write report"]
                expect(texts("list", "--before", "+5d")) == ["Buy milk"]
            }
            it("refuses a date it does not read as a usage error") {
                let result = run("list", "--due-after", "someday")
                expect(result.status) == 64
                expect(result.stderr).to(contain("'someday' is not a date"))
            }
        }

        describe("--sort") {
            it("sorts by keys in turn, - reversing one, what lacks a key last, ties in list order") {
                expect(texts("list", "--sort", "priority")) == [
                    "Write report", "Buy milk", "Fix bike", "Call Anna", "Plan trip",
                ]
                expect(texts("list", "--sort", "-priority,text")) == [
                    "Fix bike", "Buy milk", "Write report", "Call Anna", "Plan trip",
                ]
                expect(texts("list", "--sort", "-due")) == [
                    "Call Anna", "Write report", "Buy milk", "Fix bike", "Plan trip",
                ]
                expect(texts("list", "--sort", "text", "-n", "2")) == ["Buy milk", "Call Anna"]
            }
            it("refuses a key it does not know, naming the keys") {
                let result = run("list", "--sort", "urgency")
                expect(result.status) == 64
                expect(result.stderr).to(
                    contain("'urgency' is not a sort key; use due, priority, created, modified, text"))
            }
        }

        describe("contexts") {
            it("narrow docket, today and list while on, each saying so, until switched off") {
                expect(run("context", "set", "work", "+work", "-someday", "--priority", "h,m").stdout)
                    == ("Saved context work: +work -someday --priority h,m. 'docket context work' switches it on.\n")
                expect(texts("list")).to(haveCount(5))
                expect(run("context", "work").stdout).to(contain("Context work is on: +work -someday --priority h,m"))
                expect(run("context").stdout) == "Context work: +work -someday --priority h,m\n"
                expect(run("context", "list").stdout) == "* work  +work -someday --priority h,m\n"

                let list = run("list")
                expect(list.stdout).to(contain("Write report"))
                expect(list.stdout).to(
                    endWith("\nContext work: +work -someday --priority h,m  ('docket context none' turns it off)\n"))
                expect(run().stdout).to(contain("Context work: +work"))
                expect(run("today").stdout).to(contain("Write report"))
                expect(run("today").stdout).notTo(contain("Buy milk"))
                let json = run("list", "--json")
                expect(json.stderr).to(contain("Context work: +work -someday"))
                expect(texts("list")) == ["Write report"]
                expect(texts("today")) == ["Write report"]
                expect(texts("list", "-work")) == []
                expect(run("list", "-work").stdout).to(contain("No todos match.\nContext work: "))

                expect(texts("list", "--no-context")).to(haveCount(5))
                expect(texts("today", "--no-context")).to(haveCount(5))
                expect(texts("list", "--all")).to(haveCount(5))
                expect(run("list", "--no-context").stdout).notTo(contain("Context"))

                expect(run("context", "none").stdout) == "Context work is off.\n"
                expect(texts("list")).to(haveCount(5))
                expect(run("list").stdout).notTo(contain("Context"))
            }
            it("are kept on this machine, out of the store's commits, and removed with rm") {
                run("context", "set", "home", "+home")
                run("context", "home")
                expect(
                    FileManager.default.fileExists(
                        atPath: store.appendingPathComponent(".git/docket/contexts.json").path)
                ) == true
                expect(run("status").stdout).notTo(contain("context"))
                expect(run("context", "rm", "home").stdout) == "Removed context home; no context is on now.\n"
                expect(texts("list")).to(haveCount(5))
                expect(run("context", "list").stdout)
                    == "No contexts. 'docket context set <name> <filter>' saves one.\n"
            }
            it("keep a -tag that needs '--' after it, and read it back the same") {
                run("context", "set", "short", "--", "-n")
                expect(run("context", "list").stdout) == "  short  -- -n\n"
                run("context", "short")
                expect(texts("list")) == ["Buy milk", "Write report", "Call Anna", "Fix bike"]
            }
            it("refuse a name docket context takes itself, an unknown context, and an empty filter") {
                expect(run("context", "set", "none", "+x").status) == 64
                expect(run("context", "set", "work").stderr).to(contain("give the filter the context keeps"))
                let unknown = run("context", "play")
                expect(unknown.status) == 1
                expect(unknown.stderr).to(contain("there is no context named play; 'docket context list' shows them"))
            }
            it("say how to change or turn off a context that no longer works, show all, refuse to switch it on") {
                let party = run("project", "add", "Party").stdout.trimmingCharacters(in: .newlines)
                run("context", "set", "party", "--project", "Party")
                run("context", "party")
                expect(texts("list")) == []
                run("project", "rm", party)
                // As when the project was removed on another machine: the list and the day's view still show.
                for command in [["list"], ["today"], []] {
                    let broken = docket(command, store: store)
                    expect(broken.status).to(equal(0), description: "\(command): \(broken.stderr)")
                    expect(broken.stderr).to(
                        contain("Warning: the context party (--project Party) does not work: no project has"))
                    expect(broken.stderr).to(contain("; showing everything; change it with 'docket context set party"))
                    expect(broken.stderr).to(contain("or turn it off with 'docket context none'"))
                    expect(broken.stdout).toNot(beEmpty())
                }
                expect(texts("list")).toNot(beEmpty())
                expect(run("context", "none").status) == 0
                expect(run("context", "party").status) == 1
                expect(run("context").stdout).to(contain("No context is on."))
            }
        }
    }
}
