import DocketSpecSupport
import Foundation
import Nimble
import Quick

@testable import DocketGit

/// Docket's own working-tree scan, folder copier walk and first checkout, judged directly against git on seeded trees
/// and histories, so a change to any of them is judged in seconds rather than by the store's specs.
final class GitLayerSpec: QuickSpec {
    override class func spec() {
        var folder: URL!
        beforeEach { folder = temporaryFolder("docket-gitlayer") }
        afterEach { try? FileManager.default.removeItem(at: folder) }
        @discardableResult func git(_ arguments: [String], in root: URL? = nil) -> CommandResult {
            runCommand(
                "git", ["-c", "user.name=Spec", "-c", "user.email=spec@example.invalid"] + arguments, in: root ?? folder
            )
        }
        let folders = ["a", "a/c", "a/c/d", "b", "b/e", "b/e-f", "b/e.f"]
        func write(_ path: String, _ text: String, in root: URL? = nil) {
            let url = (root ?? folder).appendingPathComponent(path)
            try! FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try! Data(text.utf8).write(to: url)
        }
        func randomPath(_ g: inout SeededGenerator, _ ext: String = "json") -> String {
            "\(folders.randomElement(using: &g)!)/x\(Int.random(in: 1...6, using: &g)).\(ext)"
        }
        /// A repository git made of up to 15 random files in nested folders, committed, its index written by git.
        func committed(_ g: inout SeededGenerator) -> Set<String> {
            try? FileManager.default.removeItem(at: folder)
            gitCLI(["init", "-q", "-b", "main", folder.path], in: folder.deletingLastPathComponent())
            write(".gitignore", "*.tmp\n")
            var paths: Set<String> = []
            for _ in 0..<Int.random(in: 1...15, using: &g) {
                let path = randomPath(&g)
                paths.insert(path)
                write(path, "\(Int.random(in: 0...99, using: &g))\n")
            }
            git(["add", "-A"])
            git(["commit", "-qm", "First"])
            return paths
        }

        describe("the working-tree scan") {
            it("finds the changes git status finds, untracked files included and ignored ones left out") {
                forAll(40) { g in
                    var paths = committed(&g)
                    for _ in 0..<Int.random(in: 0...6, using: &g) {
                        let path = randomPath(&g, Int.random(in: 0..<5, using: &g) == 0 ? "tmp" : "json")
                        switch Int.random(in: 0..<4, using: &g) {
                        case 0 where paths.contains(path):
                            try? FileManager.default.removeItem(at: folder.appendingPathComponent(path))
                            paths.remove(path)
                        case 1 where paths.contains(path):
                            // Touched, its bytes the same: no change.
                            let url = folder.appendingPathComponent(path)
                            try! Data(contentsOf: url).write(to: url)
                        default:
                            // Same length or not: the scan must hash a file changed in the index's second.
                            write(path, "\(Int.random(in: 0...99, using: &g))\n")
                            if !path.hasSuffix(".tmp") { paths.insert(path) }
                        }
                    }
                    let repository = try! Repository.open(at: folder.path)
                    let indexPath = folder.appendingPathComponent(".git/index").path
                    let data = FileManager.default.contents(atPath: indexPath)!
                    guard let index = IndexFile.read(indexPath, checksum: ObjectID(bytes: Array(data.suffix(20))))
                    else {
                        return "Docket did not read git's index"
                    }
                    guard
                        let scan = try! repository.scanWorkdir(
                            index, under: ["a", "b"], alwaysTracked: { $0.hasSuffix(".json") })
                    else { return "the scan left the tree to libgit2" }
                    let found = scan.changes.map { change -> String in
                        let kind: String =
                            switch change.kind {
                            case .new: "??"
                            case .modified: " M"
                            case .deleted: " D"
                            case .conflicted: "UU"
                            }
                        return "\(kind) \(change.path)"
                    }.sorted()
                    let listed = git(["status", "--porcelain", "--untracked-files=all", "--", "a", "b"]).stdout
                        .split(separator: "\n").map(String.init).sorted()
                    return found == listed ? nil : "Docket found \(found), git \(listed)"
                }
            }
        }

        describe("the folder copier's walk") {
            it("lists every object git's rev-list --objects lists, and none a tip does not reach") {
                forAll(25) { g in
                    var paths = committed(&g)
                    var commits = [git(["rev-parse", "HEAD"]).stdout.trimmingCharacters(in: .newlines)]
                    for round in 0..<Int.random(in: 2...6, using: &g) {
                        for _ in 0..<Int.random(in: 1...4, using: &g) {
                            let path = randomPath(&g)
                            if paths.contains(path) && Bool.random(using: &g) {
                                git(["rm", "-q", path])
                                paths.remove(path)
                            } else {
                                write(path, "\(Int.random(in: 0...9, using: &g))\n")
                                paths.insert(path)
                            }
                        }
                        // Now and then a revert, which brings back trees and blobs an earlier commit held.
                        if round > 1 && Int.random(in: 0..<3, using: &g) == 0 {
                            git(["add", "-A"])
                            git(["commit", "-qm", "Step \(round)", "--allow-empty"])
                            git(["revert", "--no-edit", "HEAD"])
                            paths = Set(git(["ls-files"]).stdout.split(separator: "\n").map(String.init))
                                .subtracting([".gitignore"])
                        } else {
                            git(["add", "-A"])
                            git(["commit", "-qm", "Step \(round)", "--allow-empty"])
                        }
                        commits.append(git(["rev-parse", "HEAD"]).stdout.trimmingCharacters(in: .newlines))
                    }
                    let tip = commits.last!
                    let known = commits.dropLast().filter { _ in Bool.random(using: &g) }
                    let repository = try! Repository.open(at: folder.path)
                    let listed = Set(
                        try! repository.objectsMissing(
                            upTo: [ObjectID(hex: tip)!], known: known.map { ObjectID(hex: $0)! }
                        ).map(\.id.description))
                    func objects(_ arguments: [String]) -> Set<String> {
                        Set(
                            git(["rev-list", "--objects"] + arguments).stdout.split(separator: "\n").map {
                                String($0.prefix(40))
                            })
                    }
                    let needed = objects([tip, "--not"] + known)
                    let reached = objects([tip])
                    if !needed.isSubset(of: listed) { return "left out \(needed.subtracting(listed).sorted())" }
                    if !listed.isSubset(of: reached) { return "listed what the tip does not reach" }
                    return nil
                }
            }
        }

        describe("the first checkout into an empty working tree") {
            it("writes every file as git would, with an index git finds clean and holding the commit's tree") {
                forAll(20) { g in
                    _ = committed(&g)
                    let head = git(["rev-parse", "HEAD"]).stdout.trimmingCharacters(in: .newlines)
                    let clone = folder.appendingPathComponent("clone")
                    gitCLI(["init", "-q", "-b", "main", clone.path], in: folder)
                    git(["fetch", "-q", "--update-head-ok", folder.path, "main:refs/heads/main"], in: clone)
                    let repository = try! Repository.open(at: clone.path)
                    guard try! repository.checkoutIntoEmpty(ObjectID(hex: head)!) else {
                        return "the checkout was left to libgit2"
                    }
                    let status = git(["status", "--porcelain", "--untracked-files=all"], in: clone).stdout
                    if status != "" { return "git status after the checkout: \(status)" }
                    let files = { (root: URL) in git(["ls-files", "-s", "--debug"], in: root).stdout }
                    if git(["ls-files", "-s"], in: clone).stdout != git(["ls-files", "-s"]).stdout {
                        return "the index differs from the one git made: \(files(clone))"
                    }
                    if git(["write-tree"], in: clone).stdout != git(["rev-parse", "HEAD^{tree}"]).stdout {
                        return "the index holds another tree"
                    }
                    for path in git(["ls-files"]).stdout.split(separator: "\n") {
                        let mine = FileManager.default.contents(atPath: clone.appendingPathComponent(String(path)).path)
                        if mine
                            != FileManager.default.contents(atPath: folder.appendingPathComponent(String(path)).path)
                        {
                            return "\(path) differs"
                        }
                    }
                    return git(["fsck", "--strict"], in: clone).status == 0 ? nil : "fsck"
                }
            }
        }
    }
}
