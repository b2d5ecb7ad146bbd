import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// The command line's front door: what it knows of the commands it takes from their declarations, as ArgumentParser
/// describes them (`docket --experimental-dump-help`), so an option or command added later is read as its kind is.
final class FrontDoorSpec: QuickSpec {
    /// An option or positional as the description names it.
    struct Declared {
        let path: [String]
        let kind: String
        let names: [String]
        let valueName: String?
        let isOptional: Bool
    }

    /// Every argument of every command in docket's own description of itself.
    static func declared() -> [Declared] {
        let dump = runCommand(docketBinary, ["--experimental-dump-help"])
        guard let json = try? JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any],
            let root = json["command"] as? [String: Any]
        else { return [] }
        var found: [Declared] = []
        func walk(_ command: [String: Any], _ path: [String]) {
            for argument in command["arguments"] as? [[String: Any]] ?? [] {
                let names = (argument["names"] as? [[String: Any]] ?? []).compactMap { name -> String? in
                    guard let text = name["name"] as? String else { return nil }
                    return (name["kind"] as? String == "long" ? "--" : "-") + text
                }
                found.append(
                    Declared(
                        path: path, kind: argument["kind"] as? String ?? "", names: names,
                        valueName: argument["valueName"] as? String,
                        isOptional: argument["isOptional"] as? Bool ?? true))
            }
            for sub in command["subcommands"] as? [[String: Any]] ?? [] {
                walk(sub, path + [sub["commandName"] as? String ?? ""])
            }
        }
        walk(root, [])
        return found
    }

    override class func spec() {
        let now = ["DOCKET_NOW": "2026-11-28T10:00:00+01:00", "TZ": "Europe/Berlin"]
        var folder: URL!
        var todo = ""
        var project = ""
        beforeEach {
            folder = temporaryStore("docket-front-door")
            todo = docket("add", "Walk", "+home", store: folder, environment: now).stdout.trimmingCharacters(
                in: .whitespacesAndNewlines)
            project = docket("project", "add", "Party", store: folder, environment: now).stdout.trimmingCharacters(
                in: .whitespacesAndNewlines)
        }
        afterEach { try? FileManager.default.removeItem(at: folder) }
        @discardableResult func run(_ arguments: [String]) -> CommandResult {
            docket(arguments, store: folder, environment: now)
        }

        describe("the front door") {
            it("finds the commands' options in their description") {
                let declared = FrontDoorSpec.declared()
                expect(declared.count) > 100
                expect(declared.contains { $0.path == ["add"] && $0.names == ["--due"] && $0.valueName == "date" })
                    == true
            }
            it("reads several words as one date after every option its command declares as a date") {
                let dated = FrontDoorSpec.declared().filter {
                    $0.kind == "option" && $0.valueName?.split(separator: "|").first == "date"
                }
                expect(Set(dated.map { $0.path.joined(separator: " ") })) == [
                    "today", "add", "list", "ready", "fork", "context set", "task add", "report",
                ]
                for option in dated {
                    // The command's required positionals and its text, filled as their value names ask.
                    let positionals = FrontDoorSpec.declared().filter {
                        $0.path == option.path && $0.kind == "positional"
                            && (!$0.isOptional || ["text", "title"].contains($0.valueName))
                    }.map { positional -> String in
                        switch positional.valueName {
                        case "id": todo
                        case "project": project
                        case "name": "errands"
                        default: "Buy"
                        }
                    }
                    for name in option.names {
                        let line = option.path + positionals + [name, "in", "3", "days"]
                        let result = run(line)
                        expect(result.status).to(
                            equal(0), description: "docket \(line.joined(separator: " ")): \(result.stderr)")
                    }
                }
            }
            it("marks as a date every option that reads its value as one, so the front door knows each") {
                // Commands that reach beyond a scratch store (remotes, the scheduler, a server, git) are left out.
                let outside: Set<String> = [
                    "init", "clone", "mcp", "sync", "pull", "push", "autosync", "monitor", "merge-driver", "ical",
                    "import", "help",
                ]
                let declared = FrontDoorSpec.declared()
                let valued = declared.filter {
                    $0.kind == "option" && !$0.names.contains("-C") && !outside.contains($0.path.first ?? "")
                }
                expect(valued.count) > 30
                for option in valued {
                    let positionals = declared.filter {
                        $0.path == option.path && $0.kind == "positional" && !$0.isOptional
                    }.map { positional -> String in
                        switch positional.valueName {
                        case "id", "ids": todo
                        case "project": project
                        case "name": "errands"
                        case "interval": "week"
                        case "priority": "high"
                        default: "Buy"
                        }
                    }
                    let line = option.path + positionals + [option.names[0], "xyzzy"]
                    let readsDate = run(line).stderr.contains("'xyzzy' is not a date")
                    let marked = option.valueName?.split(separator: "|").first == "date"
                    expect(marked).to(
                        equal(readsDate),
                        description:
                            "docket \(line.joined(separator: " ")) reads a date: \(readsDate); marked: \(marked)")
                }
            }
            it("runs each word it takes after an id as a command that takes that id first") {
                let refused = run([todo, "frobnicate"]).stderr
                let listed = refused.components(separatedBy: "after an id come ").last?.components(
                    separatedBy: "\n"
                ).first?.components(separatedBy: ", ")
                expect(listed?.count ?? 0) > 10
                for word in listed ?? [] {
                    let help = run([todo, word, "--help"])
                    expect(help.status).to(equal(0), description: "\(word): \(help.stderr)")
                    let usage = help.stdout.components(separatedBy: "\n").first { $0.hasPrefix("USAGE:") } ?? ""
                    // The first argument it requires: the first outside brackets.
                    let required = usage.replacingOccurrences(of: "\\[[^]]*\\]", with: "", options: .regularExpression)
                    let first = required.components(separatedBy: " ").first { $0.hasPrefix("<") }
                    expect(["<id>", "<ids>", "<task>"]).to(contain(first ?? "none"), description: "\(word): \(usage)")
                }
            }
            it("takes a date that starts with a dash after any date option, as the one given after --due") {
                let report = run(["report", "--since", "-7d", "--until", "-1d"])
                expect(report.status).to(equal(0), description: report.stderr)
                let list = run(["list", "--done-since", "-7d"])
                expect(list.status).to(equal(0), description: list.stderr)
                // A word that reads as no date is still no value for an option that does not take any word.
                expect(run(["report", "--since", "--json"]).stderr).to(
                    contain("Error: missing value for '--since <date>'"))
            }
            it("leaves out a -tag in every command that takes a filter, however its letters read as options") {
                run(["add", "Tidy", "+nope"])
                for command in [["list"], ["ready"], ["today"], []] {
                    let listed = run(command + ["-nope"])
                    expect(listed.status).to(equal(0), description: "\(command): \(listed.stderr)")
                    expect(listed.stdout).to(contain("Walk"))
                    expect(listed.stdout).notTo(contain("Tidy"))
                }
            }
            it("names an option a command does not declare, with the nearest it does, as docket's own checks do") {
                let shown = run(["show", todo, "-j"])
                expect(shown.status) == 64
                expect(shown.stderr).to(
                    contain("Error: unknown option '-j'; did you mean '--json'?\nUsage: docket show"))
                // Words the command has no place for come after: the option is named all the same.
                expect(run(["show", todo, "extra", "-j"]).stderr).to(
                    contain("Error: unknown option '-j'; did you mean '--json'?"))
                expect(run(["report", "--sinc", "monday"]).stderr).to(
                    contain("Error: unknown option '--sinc'; did you mean '--since'?"))
                expect(run(["log", "--oneline"]).stderr).to(contain("Error: unknown option '--oneline'\nUsage:"))
                // An error the parser finds first is its own, in lower case.
                expect(run(["show", "-j"]).stderr).to(contain("Error: missing expected argument '<id>'"))
                expect(run(["priority", todo, "hgh", "-x"]).stderr).to(
                    contain("Error: the value 'hgh' is invalid for '<priority>'"))
            }
        }
    }
}
