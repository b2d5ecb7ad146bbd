import DocketSpecSupport
import Foundation
import Nimble
import Quick

@testable import DocketGit

/// The tree cache Docket writes into git's index (its TREE extension), judged by git: git trusts it, so
/// `git write-tree` answers from it, and a wrong folder's tree or count would make git commit a wrong tree.
final class CacheTreeSpec: QuickSpec {
    override class func spec() {
        var folder: URL!
        beforeEach {
            folder = temporaryFolder("docket-cachetree")
            gitCLI(["init", "-q", "-b", "main", folder.path], in: folder.deletingLastPathComponent())
        }
        afterEach { try? FileManager.default.removeItem(at: folder) }
        @discardableResult func git(_ arguments: [String], environment: [String: String] = [:]) -> CommandResult {
            runCommand(
                "git", ["-c", "user.name=Spec", "-c", "user.email=spec@example.invalid"] + arguments, in: folder,
                environment: environment)
        }
        let folders = ["", "a", "a/c", "a/c/d", "b", "e", "e/f", "e-f", "e.f"]
        func write(_ path: String, _ text: String) {
            let url = folder.appendingPathComponent(path)
            try! FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try! Data(text.utf8).write(to: url)
        }
        /// The tree git makes of the working tree, built in an index of its own so Docket's is left alone.
        func treeGitMakes() -> String {
            let scratch = folder.appendingPathComponent(".git/scratch-index").path
            let environment = ["GIT_INDEX_FILE": scratch]
            try? FileManager.default.removeItem(atPath: scratch)
            git(["add", "-A"], environment: environment)
            return git(["write-tree"], environment: environment).stdout.trimmingCharacters(in: .newlines)
        }

        it("holds each folder's tree and count as git would, over seeded rounds of adds, edits and removals") {
            forAll(25) { g in
                try? FileManager.default.removeItem(at: folder)
                gitCLI(["init", "-q", "-b", "main", folder.path], in: folder.deletingLastPathComponent())
                var paths: Set<String> = []
                for _ in 0..<Int.random(in: 1...12, using: &g) {
                    let path = [folders.randomElement(using: &g)!, "x\(Int.random(in: 1...6, using: &g)).json"]
                        .filter { !$0.isEmpty }.joined(separator: "/")
                    paths.insert(path)
                    write(path, "\(Int.random(in: 0...99, using: &g))\n")
                }
                git(["add", "-A"])
                git(["commit", "-qm", "First"])
                let repository = try! Repository.open(at: folder.path)
                var held = try! repository.tree(ofCommit: repository.head()!)
                for round in 0..<3 {
                    var changes: [(path: String, id: ObjectID?)] = []
                    for _ in 0..<Int.random(in: 1...5, using: &g) {
                        let path = [folders.randomElement(using: &g)!, "x\(Int.random(in: 1...6, using: &g)).json"]
                            .filter { !$0.isEmpty }.joined(separator: "/")
                        guard !changes.contains(where: { $0.path == path }) else { continue }
                        if paths.contains(path) && Bool.random(using: &g) {
                            try! FileManager.default.removeItem(at: folder.appendingPathComponent(path))
                            paths.remove(path)
                            changes.append((path, nil))
                        } else {
                            let text = "\(round) \(Int.random(in: 0...99, using: &g))\n"
                            write(path, text)
                            paths.insert(path)
                            changes.append((path, try! repository.writeBlob(Data(text.utf8))))
                        }
                    }
                    let expected = treeGitMakes()
                    let indexPath = folder.appendingPathComponent(".git/index").path
                    let data = FileManager.default.contents(atPath: indexPath)!
                    guard let file = IndexFile.read(indexPath, checksum: ObjectID(bytes: Array(data.suffix(20)))) else {
                        return "round \(round): Docket did not read the index"
                    }
                    let tree = ObjectID(hex: expected)!
                    guard try! repository.writeIndex(NotedIndex(file, tree: held), setting: changes, noting: tree)
                    else {
                        return "round \(round): Docket left the index to libgit2"
                    }
                    held = tree
                    let written = FileManager.default.contents(atPath: indexPath)!
                    if written.range(of: Data("TREE".utf8)) == nil { return "round \(round): no tree cache written" }
                    // git answers write-tree from the cache where it holds a folder: a wrong tree or count shows.
                    let answered = git(["write-tree"]).stdout.trimmingCharacters(in: .newlines)
                    if answered != expected {
                        return "round \(round): git write-tree \(answered), git's tree \(expected)"
                    }
                    let unstaged = git(["diff", "--name-only"]).stdout
                    if unstaged != "" { return "round \(round): files differ from the index: \(unstaged)" }
                    git(["commit", "-qm", "Round \(round)", "--allow-empty"])
                    let status = git(["status", "--porcelain"]).stdout
                    if status != "" { return "round \(round): status after the commit: \(status)" }
                    let committed = git(["rev-parse", "HEAD^{tree}"]).stdout.trimmingCharacters(in: .newlines)
                    if committed != expected { return "round \(round): git committed \(committed), not \(expected)" }
                    if git(["fsck", "--strict"]).status != 0 { return "round \(round): fsck" }
                }
                return nil
            }
        }
    }
}
