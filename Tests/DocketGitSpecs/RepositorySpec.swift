import DocketCGitTransport
import DocketGit
import DocketSpecSupport
import Foundation
import Nimble
import Quick

final class RepositorySpec: QuickSpec {
    override class func spec() {
        var folder: URL!
        var repository: Repository!
        let me = Signature(name: "Spec", email: "spec@example.invalid")
        beforeEach {
            folder = temporaryFolder()
            repository = try! Repository.create(at: folder.path)
        }
        afterEach { try? FileManager.default.removeItem(at: folder) }
        func write(_ path: String, _ text: String) {
            let url = folder.appendingPathComponent(path)
            try! FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try! Data(text.utf8).write(to: url)
        }
        func commitAll(_ paths: [String], _ message: String, parents: [ObjectID]? = nil) throws -> ObjectID {
            let tree = try repository.stageAndWriteTree(paths)
            let commit = try repository.commit(
                tree: tree, parents: parents ?? (try repository.head().map { [$0] } ?? []), message: message,
                identities: Identities(author: me, committer: me))
            try repository.noteIndexHolds(tree)
            return commit
        }

        describe("Repository") {
            it("makes a repository with a working tree on branch main, with no commit yet") {
                expect(repository.isBare) == false
                expect(repository.workdir) == folder.path + "/"
                expect(try repository.head()).to(beNil())
                expect(try repository.headBranch()) == "refs/heads/main"
            }
            it("commits staged paths, which git reads back") {
                write("todos/AB/one.json", "1\n")
                let id = try commitAll(["todos/AB/one.json"], "First")
                expect(try repository.head()) == id
                expect(gitCLI(["log", "--format=%H %s"], in: folder).stdout) == "\(id) First\n"
                expect(gitCLI(["fsck", "--strict"], in: folder).status) == 0
                expect(gitCLI(["status", "--porcelain"], in: folder).stdout) == ""
            }
            it("reads the index again for a status once git has changed it, not the copy it read before") {
                write("todos/AB/one.json", "1\n")
                write("todos/AB/two.json", "2\n")
                _ = try commitAll(["todos/AB/one.json", "todos/AB/two.json"], "Both")
                expect(try repository.status(under: ["todos"])) == []
                expect(gitCLI(["rm", "-q", "--cached", "todos/AB/one.json"], in: folder).status) == 0
                expect(try repository.status(under: ["todos"]).map(\.path)) == ["todos/AB/one.json"]
                expect(gitCLI(["add", "todos/AB/one.json"], in: folder).status) == 0
                expect(try repository.status(under: ["todos"])) == []
            }
            it(
                "writes a first checkout into an empty clone on all cores, reading every blob itself, as git's checkout leaves it"
            ) {
                var paths: [String] = []
                for i in 0..<300 {
                    let path = String(format: "todos/%02X/%04d.json", i % 40, i)
                    write(path, "{\"n\": \(i)}\n")
                    paths.append(path)
                }
                write("README", "r\n")
                _ = try commitAll(paths + ["README"], "Many")
                let clone = folder.appendingPathComponent("clone").path
                let cloned = try Repository.clone(
                    url: folder.path, to: clone, options: .fromEnvironment(), checkout: false)
                expect(try cloned.checkoutIntoEmpty(try cloned.head()!)) == true
                let clonedURL = URL(fileURLWithPath: clone)
                expect(try? String(contentsOfFile: clone + "/todos/07/0007.json", encoding: .utf8)) == "{\"n\": 7}\n"
                expect(gitCLI(["diff-files", "--quiet"], in: clonedURL).status) == 0
                expect(gitCLI(["diff", "--cached", "--quiet"], in: clonedURL).status) == 0
                expect(gitCLI(["status", "--porcelain"], in: clonedURL).stdout) == ""
                expect(gitCLI(["ls-files"], in: clonedURL).stdout.split(separator: "\n").count) == 301
                // A second checkout finds the folder no longer empty and leaves it to libgit2.
                expect(try cloned.checkoutIntoEmpty(try cloned.head()!)) == false
            }
            it("reads the blobs of a tree under given folders only") {
                write("todos/AB/one.json", "1\n")
                write("projects/P/project.json", "p\n")
                write("README", "r\n")
                let commit = try commitAll(["todos/AB/one.json", "projects/P/project.json", "README"], "All")
                let tree = try repository.tree(ofCommit: commit)
                let blobs = try repository.blobs(inTree: tree, under: ["todos"])
                expect(Array(blobs.keys)) == ["todos/AB/one.json"]
                expect(try repository.blob(blobs["todos/AB/one.json"]!)) == Data("1\n".utf8)
                expect(try repository.blobs(inTree: tree).count) == 3
            }
            it("lists the paths that differ between two trees") {
                write("a.json", "1\n")
                write("b.json", "2\n")
                let first = try repository.tree(ofCommit: try commitAll(["a.json", "b.json"], "one"))
                write("a.json", "changed\n")
                write("c.json", "3\n")
                try FileManager.default.removeItem(at: folder.appendingPathComponent("b.json"))
                let second = try repository.tree(ofCommit: try commitAll(["a.json", "b.json", "c.json"], "two"))
                let changes = try repository.changedPaths(from: first, to: second)
                expect(changes.map { "\($0.path) \($0.kind)" }.sorted()) == [
                    "a.json modified", "b.json deleted", "c.json added",
                ]
            }
            it(
                "lists the same changes as git diff-tree, in its order, over random trees (files, folders, links, modes)"
            ) {
                forAll(15) { g in
                    try? FileManager.default.removeItem(at: folder)
                    folder = temporaryFolder()
                    repository = try! Repository.create(at: folder.path)
                    // Names chosen so that a file and a folder share one ("a" and "a/…", "a.json", "a-b"), as git's
                    // order turns on.
                    let names = ["a", "a.json", "a-b", "b", "c0", "ab"]
                    func randomPath() -> String {
                        (0..<Int.random(in: 1...3, using: &g)).map { _ in names.randomElement(using: &g)! }.joined(
                            separator: "/")
                    }
                    func tree() -> String {
                        gitCLI(["add", "-A"], in: folder)
                        return gitCLI(["write-tree"], in: folder).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                    }
                    func randomize(_ count: Int) {
                        for _ in 0..<count {
                            let url = folder.appendingPathComponent(randomPath())
                            // Whatever stands on the way (a file where a folder must go) goes, as a user's edit would
                            // do.
                            var parent = url.deletingLastPathComponent()
                            while parent.path.count > folder.path.count {
                                var isFolder: ObjCBool = false
                                if FileManager.default.fileExists(atPath: parent.path, isDirectory: &isFolder),
                                    !isFolder.boolValue
                                {
                                    try? FileManager.default.removeItem(at: parent)
                                }
                                parent = parent.deletingLastPathComponent()
                            }
                            try? FileManager.default.removeItem(at: url)
                            switch Int.random(in: 0..<6, using: &g) {
                            case 0: continue // removed
                            case 1:
                                try? FileManager.default.createSymbolicLink(
                                    atPath: url.path, withDestinationPath: "target")
                            default:
                                try? FileManager.default.createDirectory(
                                    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                                try? Data("\(Int.random(in: 0..<3, using: &g))\n".utf8).write(to: url)
                                if Int.random(in: 0..<4, using: &g) == 0 { chmod(url.path, 0o755) }
                            }
                        }
                    }
                    randomize(14)
                    let first = tree()
                    randomize(Int.random(in: 1...10, using: &g))
                    let second = tree()
                    // git lists a file become a link as one type change; Docket, as libgit2 does, as gone and come.
                    var expected: [String] = []
                    for line in gitCLI(["diff-tree", "-r", "--no-renames", first, second], in: folder).stdout.split(
                        separator: "\n")
                    {
                        let parts = line.split(separator: "\t", maxSplits: 1)
                        let fields = parts[0].split(separator: " ")
                        let path = String(parts[1])
                        switch fields[4] {
                        case "A": expected.append("\(path) added \(fields[3])")
                        case "D": expected.append("\(path) deleted \(fields[2])")
                        case "T": expected += ["\(path) deleted \(fields[2])", "\(path) added \(fields[3])"]
                        default: expected.append("\(path) modified \(fields[3])")
                        }
                    }
                    guard let a = ObjectID(hex: first), let b = ObjectID(hex: second),
                        let changes = try? repository.changedPaths(from: a, to: b)
                    else { return "no trees" }
                    let found = changes.map { "\($0.path) \($0.kind) \(($0.newID ?? $0.oldID)!)" }
                    return found == expected ? nil : "found \(found), git lists \(expected)"
                }
            }
            it("never leaves out a change of a tree whose entries are out of git's order, as a hostile remote may send")
            {
                write("a.json", "1\n")
                write("c.json", "3\n")
                let first = try repository.tree(ofCommit: try commitAll(["a.json", "c.json"], "one"))
                func blob(_ text: String) -> [UInt8] {
                    let hex = runCommand("sh", ["-c", "printf '\(text)' | git hash-object -w --stdin"], in: folder)
                        .stdout
                    let digits = Array(hex.trimmingCharacters(in: .whitespacesAndNewlines).utf8)
                    return stride(from: 0, to: 40, by: 2).map {
                        UInt8(String(decoding: digits[$0..<($0 + 2)], as: UTF8.self), radix: 16)!
                    }
                }
                // c.json (changed), a.json and a new b.json, in that order: git would write a, b, c.
                var raw: [UInt8] = []
                for (name, text) in [("c.json", "changed\\n"), ("a.json", "1\\n"), ("b.json", "bad\\n")] {
                    raw += Array("100644 \(name)".utf8) + [0] + blob(text)
                }
                let file = folder.appendingPathComponent("unsorted-tree")
                try Data(raw).write(to: file)
                let made = runCommand("git", ["hash-object", "-t", "tree", "--literally", "-w", file.path], in: folder)
                expect(made.status) == 0
                let second = ObjectID(hex: made.stdout.trimmingCharacters(in: .whitespacesAndNewlines))!
                let changes = try repository.changedPaths(from: first, to: second)
                // Whatever the order, no entry that differs from the old tree's goes unlisted.
                expect(changes.map { "\($0.path) \($0.kind)" }).to(contain("b.json added", "c.json modified"))
            }
            it("builds a commit's tree from HEAD's tree exactly as git builds it from the index, emptied folders gone")
            {
                write("a/1.json", "1\n")
                write("a/2.json", "2\n")
                write("b/1.json", "3\n")
                _ = try commitAll(["a/1.json", "a/2.json", "b/1.json"], "one")
                write("a/1.json", "changed\n")
                write("c/d/1.json", "4\n")
                try FileManager.default.removeItem(at: folder.appendingPathComponent("a/2.json"))
                try FileManager.default.removeItem(at: folder.appendingPathComponent("b/1.json"))
                let second = try commitAll(["a/1.json", "a/2.json", "b/1.json", "c/d/1.json"], "two")
                expect(gitCLI(["write-tree"], in: folder).stdout) == "\(try repository.tree(ofCommit: second))\n"
                expect(gitCLI(["ls-tree", "-r", "--name-only", "HEAD"], in: folder).stdout) == "a/1.json\nc/d/1.json\n"
                expect(gitCLI(["status", "--porcelain"], in: folder).stdout) == ""
                expect(gitCLI(["fsck", "--strict"], in: folder).status) == 0
            }
            it("merges trees as git does: each side's own changes, and the replacements on top") {
                write("README", "r\n")
                write("notes.txt", "n\n")
                write("todos/AB/1.json", "1\n")
                let base = try commitAll(["README", "notes.txt", "todos/AB/1.json"], "base")
                write("README", "ours\n")
                write("todos/AB/1.json", "ours\n")
                let ours = try commitAll(["README", "todos/AB/1.json"], "ours")
                gitCLI(["checkout", "-q", "-b", "theirs", base.description], in: folder)
                write("notes.txt", "theirs\n")
                write("extra.txt", "x\n")
                write("todos/AB/1.json", "theirs\n")
                gitCLI(["add", "-A"], in: folder)
                gitCLI(["commit", "-q", "-m", "theirs"], in: folder)
                let theirs = try repository.reference("refs/heads/theirs")!
                let merged = try repository.writeBlob(Data("merged\n".utf8))
                let tree = try repository.mergeTrees(
                    base: try repository.tree(ofCommit: base), ours: try repository.tree(ofCommit: ours),
                    theirs: try repository.tree(ofCommit: theirs),
                    replacing: ["todos/AB/1.json": merged], resolvedUnder: ["todos"])
                let files = try repository.blobs(inTree: tree).mapValues {
                    String(decoding: try repository.blob($0), as: UTF8.self)
                }
                expect(files) == [
                    "README": "ours\n", "notes.txt": "theirs\n", "extra.txt": "x\n", "todos/AB/1.json": "merged\n",
                ]
            }
            it("stops on a file outside the given folders that both sides changed differently") {
                write("README", "r\n")
                let base = try commitAll(["README"], "base")
                write("README", "ours\n")
                let ours = try commitAll(["README"], "ours")
                gitCLI(["checkout", "-q", "-b", "theirs", base.description], in: folder)
                write("README", "theirs\n")
                gitCLI(["commit", "-q", "-am", "theirs"], in: folder)
                let theirs = try repository.reference("refs/heads/theirs")!
                expect {
                    try repository.mergeTrees(
                        base: try repository.tree(ofCommit: base), ours: try repository.tree(ofCommit: ours),
                        theirs: try repository.tree(ofCommit: theirs), replacing: [:], resolvedUnder: ["todos"])
                }.to(throwError { (error: MergeConflict) in expect(error.paths) == ["README"] })
            }
            it("writes a commit with two parents") {
                write("a", "1\n")
                let base = try commitAll(["a"], "base")
                write("a", "2\n")
                let left = try commitAll(["a"], "left")
                let merge = try repository.commit(
                    tree: try repository.tree(ofCommit: left), parents: [left, base], message: "merge",
                    identities: Identities(author: me, committer: me))
                expect(try repository.commitInfo(merge).parents) == [left, base]
                expect(gitCLI(["rev-list", "--parents", "-n", "1", "HEAD"], in: folder).stdout)
                    == "\(merge) \(left) \(base)\n"
            }
            it("reads and moves references") {
                write("a", "1\n")
                let first = try commitAll(["a"], "first")
                try repository.setReference("refs/heads/saved", to: first, message: "save")
                expect(try repository.reference("refs/heads/saved")) == first
                expect(try repository.reference("refs/heads/none")).to(beNil())
            }
            it("reads and writes its config") {
                try repository.setConfig("docket.test", to: "yes")
                expect(try repository.configString("docket.test")) == "yes"
                expect(gitCLI(["config", "docket.test"], in: folder).stdout) == "yes\n"
            }
            it("reports the status of given folders, untracked files included") {
                write("todos/AB/one.json", "1\n")
                write("README", "r\n")
                expect(try repository.status(under: ["todos"]).map { "\($0.path) \($0.kind)" }) == [
                    "todos/AB/one.json new"
                ]
            }
            it("names the libgit2 function that failed") {
                expect { try Repository.open(at: folder.appendingPathComponent("nowhere").path) }.to(
                    throwError { (error: Error) in
                        expect((error as? GitError)?.function) == "git_repository_open_ext"
                    })
            }
        }

        describe("writing objects together") {
            func looseFile(_ id: ObjectID) -> String {
                let hex = id.description
                return folder.appendingPathComponent(".git/objects/\(hex.prefix(2))/\(hex.dropFirst(2))").path
            }
            it("writes a commit's objects itself, unflushed, and git reads and checks every one") {
                write("todos/AB/one.json", "{\"text\": \"one\"}\n")
                write("todos/CD/two.json", "{\"text\": \"two\"}\n")
                let large = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
                let (commit, blob) = try repository.writingObjectsTogether {
                    // A first commit stages through libgit2's index, which streams each file's blob.
                    (
                        try commitAll(["todos/AB/one.json", "todos/CD/two.json"], "First"),
                        try repository.writeBlob(large)
                    )
                }
                // Two blobs, four trees (the top, todos, AB, CD), the commit and the large blob.
                expect(repository.objectsWrittenUnflushed) == 8
                expect(gitCLI(["fsck", "--strict", "--no-dangling"], in: folder).status) == 0
                expect(gitCLI(["cat-file", "-p", "HEAD:todos/CD/two.json"], in: folder).stdout)
                    == "{\"text\": \"two\"}\n"
                expect(gitCLI(["log", "--format=%H %s"], in: folder).stdout) == "\(commit) First\n"
                expect(try repository.blob(blob)) == large
                let mode =
                    (try FileManager.default.attributesOfItem(atPath: looseFile(blob))[.posixPermissions] as? Int)
                expect(mode) == 0o444
            }
            it("leaves libgit2's fsync on for the process, so another repository's writes meanwhile are flushed") {
                let otherFolder = temporaryFolder()
                defer { try? FileManager.default.removeItem(at: otherFolder) }
                let other = try Repository.create(at: otherFolder.path)
                var fsyncsMeanwhile = false
                let written = try repository.writingObjectsTogether {
                    fsyncsMeanwhile = LibGit2.fsyncsGitFolder
                    _ = try repository.writeBlob(Data("mine\n".utf8))
                    return try other.writeBlob(Data("theirs\n".utf8))
                }
                expect(fsyncsMeanwhile) == true
                expect(repository.objectsWrittenUnflushed) == 1
                // The other repository's blob went through libgit2's own loose backend, which fsyncs it.
                expect(other.objectsWrittenUnflushed) == 0
                expect(try other.blob(written)) == Data("theirs\n".utf8)
            }
            it("writes through libgit2, flushed, outside the window, and a nested window ends with the outer one") {
                try repository.writingObjectsTogether {
                    try repository.writingObjectsTogether { _ = try repository.writeBlob(Data("inner\n".utf8)) }
                    _ = try repository.writeBlob(Data("outer\n".utf8))
                }
                expect(repository.objectsWrittenUnflushed) == 2
                let after = try repository.writeBlob(Data("after\n".utf8))
                expect(repository.objectsWrittenUnflushed) == 2
                expect(try repository.blob(after)) == Data("after\n".utf8)
            }
        }

        describe("the history walk") {
            it(
                "reads only the commits it shows: log -n 2 works where older commits are gone, and keeps git log's order"
            ) {
                var commits: [ObjectID] = []
                for n in 1...5 {
                    write("todos/AB/one.json", "{\"n\": \(n)}\n")
                    commits.append(try commitAll(["todos/AB/one.json"], "Commit \(n)"))
                }
                let shown = try repository.log(from: commits[4], limit: 5).map(\.id)
                expect(shown) == commits.reversed()
                // As in a shallow clone: the oldest commits are not there.
                for old in commits.prefix(2) {
                    let hex = old.description
                    try FileManager.default.removeItem(
                        at: folder.appendingPathComponent(".git/objects/\(hex.prefix(2))/\(hex.dropFirst(2))"))
                }
                expect(try repository.log(from: commits[4], limit: 2).map(\.id)) == [commits[4], commits[3]]
                expect(
                    try repository.log(from: commits[4], limit: 1, where: { $0.message.hasPrefix("Commit 4") }).map(
                        \.id)) == [commits[3]]
            }
        }

        describe("the commit signature") {
            it("falls back to DOCKET_AUTHOR_NAME, then to docket, when git has no user.name") {
                let home = temporaryFolder()
                defer { try? FileManager.default.removeItem(at: home) }
                let store = folder.appendingPathComponent("store")
                let env = ["HOME": home.path, "XDG_CONFIG_HOME": home.path, "GIT_CONFIG_NOSYSTEM": "1"]
                expect(runCommand(docketBinary, ["init", store.path], environment: env).status) == 0
                docket(
                    "add", "x", store: store,
                    environment: env.merging([
                        "DOCKET_AUTHOR_NAME": "Ann", "DOCKET_AUTHOR_EMAIL": "ann@example.invalid",
                    ]) { a, _ in a })
                docket(
                    "commit", store: store,
                    environment: env.merging([
                        "DOCKET_AUTHOR_NAME": "Ann", "DOCKET_AUTHOR_EMAIL": "ann@example.invalid",
                    ]) { a, _ in a })
                expect(gitCLI(["log", "-1", "--format=%an <%ae>"], in: store).stdout) == "Ann <ann@example.invalid>\n"
                docket("add", "y", store: store, environment: env)
                docket("commit", store: store, environment: env)
                expect(gitCLI(["log", "-1", "--format=%an"], in: store).stdout) == "docket\n"
            }
        }

        describe("the system's certificates") {
            it("are parsed before an https remote is reached") {
                _ = try Repository.open(at: folder.path).head()
                let options = TransferOptions(
                    sshKeyFiles: [], useSSHAgent: false, knownHostsFile: "/dev/null",
                    useCredentialHelpers: false, environment: ["HOME": folder.path])
                expect {
                    try Repository.clone(
                        url: "https://127.0.0.1:1/nothing.git", to: folder.path + "/clone", options: options)
                }
                .to(throwError())
                expect(LibGit2.systemCertificatesWaiting) == false
            }
        }

        describe("Kerberos") {
            func mapped() -> Bool {
                // NB: /proc files say they are empty; read to the end.
                let maps = FileHandle(forReadingAtPath: "/proc/self/maps")?.readDataToEndOfFile() ?? Data()
                expect(maps.isEmpty) == false
                return String(decoding: maps, as: UTF8.self).contains("libgssapi_krb5")
            }
            it("is loaded only when a server asks for it, and then answers as the system's library does") {
                // Local work (open, commit, status) and a failed https fetch load no Kerberos library.
                write("todos/a.json", "{}\n")
                _ = try commitAll(["todos/a.json"], "A")
                _ = try repository.status(under: ["todos"])
                expect(mapped()) == false
                expect(docket_kerberos_loaded()) == 0

                // libgit2's first GSSAPI call (a server answered "Negotiate") loads it and gets its mechanisms.
                var minor: UInt32 = 0
                var mechanisms: UnsafeMutableRawPointer?
                expect(gss_indicate_mechs(&minor, &mechanisms)) == 0
                let count = mechanisms?.load(as: Int.self) ?? 0
                expect(count) > 0
                expect(gss_release_oid_set(&minor, &mechanisms)) == 0
                expect(docket_kerberos_loaded()) == 1
                expect(mapped()) == true
            }
        }
    }
}
