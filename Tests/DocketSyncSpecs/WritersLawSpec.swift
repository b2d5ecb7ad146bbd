import Docket
import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// The writers' law: machines whose pushes lose races to one another publish on their writer references, and
/// however the races fall, every machine ends with the same todos, every add and done is kept, the shared branch
/// holds everything, the writers' references are retired, and git's fsck finds nothing.
///
/// A race is made, not hoped for: a machine's pre-push hook runs another machine's `docket sync` first (at random,
/// from the seed), so that machine's push moves the remote's main between this sync's pull and its push.
final class WritersLawSpec: QuickSpec {
    override class func spec() {
        describe("three machines syncing one remote, their pushes losing races at random") {
            it("converge on the same todos with every add and done kept, and no writer reference left behind") {
                forAll(2) { random in
                    let root = temporaryFolder("docket-writers-law")
                    defer { try? FileManager.default.removeItem(at: root) }
                    let remote = root.appendingPathComponent("remote.git")
                    gitCLI(["init", "-q", "--bare", "-b", "main", remote.path], in: root)
                    let machines = (0..<3).map { Machine(folder: root.appendingPathComponent("m\($0)")) }
                    let race = root.appendingPathComponent("race-next")
                    for machine in machines {
                        let cloned = runCommand(docketBinary, ["clone", remote.path, machine.folder.path])
                        guard cloned.status == 0 else { return "clone failed: \(cloned.stderr)" }
                        // The hook takes the armed race (a machine's folder) and syncs that machine first.
                        let hook = machine.folder.appendingPathComponent(".git/hooks/pre-push")
                        try? """
                        #!/bin/sh
                        target=$(cat "\(race.path)" 2>/dev/null) || exit 0
                        rm -f "\(race.path)"
                        unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_PREFIX
                        "\(docketBinary)" -C "$target" sync >/dev/null 2>&1
                        exit 0
                        """.write(to: hook, atomically: true, encoding: .utf8)
                        chmod(hook.path, 0o755)
                    }
                    var added: Set<String> = []
                    var done: Set<String> = []
                    var races = 0
                    var published = 0
                    for step in 0..<propertyScaled(16) {
                        let index = Int.random(in: 0..<3, using: &random)
                        let machine = machines[index]
                        let open = machine.state.todos.filter { !$0.completed }
                        if open.isEmpty || Bool.random(using: &random) {
                            let text = "Step \(step) on m\(index)"
                            guard machine.run("add", text).status == 0 else { return "add failed at step \(step)" }
                            added.insert(text)
                        } else {
                            let todo = open.randomElement(using: &random)!
                            guard machine.run("done", todo.id.uuidString).status == 0 else {
                                return "done failed at step \(step)"
                            }
                            done.insert(todo.text)
                        }
                        if Int.random(in: 0..<3, using: &random) == 0 {
                            let other = machines[(index + Int.random(in: 1...2, using: &random)) % 3]
                            other.run("add", "Racer at step \(step)")
                            added.insert("Racer at step \(step)")
                            try? other.folder.path.write(to: race, atomically: true, encoding: .utf8)
                            races += 1
                        }
                        let synced = machine.run("sync")
                        guard synced.status == 0 else { return "sync failed at step \(step): \(synced.stderr)" }
                        if synced.stdout.contains("as writer ") { published += 1 }
                        try? FileManager.default.removeItem(at: race)
                    }
                    // Every machine syncs in turn until two rounds change nothing.
                    var quiet = 0
                    for _ in 0..<8 where quiet < 2 {
                        let before = machines.map(\.head)
                        for machine in machines {
                            let synced = machine.run("sync")
                            guard synced.status == 0 else { return "final sync failed: \(synced.stderr)" }
                        }
                        quiet = machines.map(\.head) == before ? quiet + 1 : 0
                    }
                    guard quiet == 2 else { return "the machines never settled" }
                    let states = machines.map(\.state)
                    guard states.allSatisfy({ $0 == states[0] }) else { return "the machines hold different todos" }
                    let texts = Set(states[0].todos.map(\.text))
                    if let lost = added.subtracting(texts).first { return "\"\(lost)\" was lost" }
                    let completed = Set(states[0].todos.filter(\.completed).map(\.text))
                    if let undone = done.subtracting(completed).first { return "\"\(undone)\" is no longer done" }
                    let main = gitCLI(["rev-parse", "main"], in: remote).stdout.trimmingCharacters(in: .newlines)
                    guard machines.allSatisfy({ $0.head == main }) else {
                        return "a machine is not at the remote's main"
                    }
                    let writers = gitCLI(["for-each-ref", "refs/docket/writers/"], in: remote).stdout
                    guard writers.isEmpty else { return "writer references left behind: \(writers)" }
                    for repository in [remote] + machines.map(\.folder) {
                        if let problem = fsckProblem(repository) { return "fsck: \(problem)" }
                    }
                    guard races == 0 || published > 0 else { return "no race made a machine publish as a writer" }
                    return nil
                }
            }
        }
    }
}
