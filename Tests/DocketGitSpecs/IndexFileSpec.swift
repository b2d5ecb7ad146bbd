import DocketCGit2
import DocketSpecSupport
import Foundation
import Nimble
import Quick

@testable import DocketGit

/// Docket's own reader and writer of git's index, against indexes the git
/// CLI writes: every flag judged as git judges it and kept, every form it
/// does not read (a conflict, a newer version, a cut-short file, an
/// extension) left to libgit2 or named.
final class IndexFileSpec: QuickSpec {
    override class func spec() {
        var folder: URL!
        var repository: Repository!
        let files = ["a/one.json", "a/two.json", "b/three.json"]
        beforeEach {
            folder = temporaryFolder("docket-indexfile")
            gitCLI(["init", "-q", "-b", "main", folder.path], in: folder.deletingLastPathComponent())
            for (n, path) in files.enumerated() {
                let url = folder.appendingPathComponent(path)
                try! FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try! Data("{\"n\": \(n)}\n".utf8).write(to: url)
            }
            gitCLI(["add", "-A"], in: folder)
            gitCLI(
                ["-c", "user.name=Spec", "-c", "user.email=spec@example.invalid", "commit", "-qm", "First"], in: folder)
            repository = try! Repository.open(at: folder.path)
        }
        afterEach { try? FileManager.default.removeItem(at: folder) }
        var indexPath: String { folder.appendingPathComponent(".git/index").path }
        /// The index as git left it, read by Docket (trusting its own checksum, as a noted index is trusted).
        func read() -> IndexFile? {
            guard let data = FileManager.default.contents(atPath: indexPath), data.count >= 20 else { return nil }
            return IndexFile.read(indexPath, checksum: ObjectID(bytes: Array(data.suffix(20))))
        }
        @discardableResult func git(_ arguments: String...) -> String { gitCLI(arguments, in: folder).stdout }

        it("reads version 2 and 3 as git wrote them: each path and blob as git ls-files -s lists them") {
            for version in ["2", "3"] {
                git("update-index", "--index-version", version)
                guard let index = read() else { return fail("version \(version) did not read") }
                let listed = index.entries.map {
                    "\(String(format: "%o", index.mode($0))) \(index.id($0)) 0\t\(String(cString: index.path($0)))"
                }
                expect(listed.joined(separator: "\n") + "\n") == git("ls-files", "-s")
            }
        }

        it("leaves version 4, a conflict, a cut-short file and a changed byte to libgit2") {
            git("update-index", "--index-version", "4")
            expect(read()).to(beNil())
            git("update-index", "--index-version", "2")
            expect(read()).notTo(beNil())
            var data = FileManager.default.contents(atPath: indexPath)!
            data[40] ^= 1
            try! data.write(to: URL(fileURLWithPath: indexPath))
            expect(read()).to(beNil())
            try! data.prefix(data.count - 30).write(to: URL(fileURLWithPath: indexPath))
            expect(read()).to(beNil())
            git("read-tree", "HEAD")
            let blob = git("rev-parse", "HEAD:a/one.json").trimmingCharacters(in: .newlines)
            runCommand(
                "git", ["update-index", "--index-info"], in: folder,
                input:
                    "0 \(String(repeating: "0", count: 40))\ta/one.json\n100644 \(blob) 1\ta/one.json\n100644 \(blob) 2\ta/one.json\n"
            )
            expect(git("ls-files", "-u")).notTo(beEmpty())
            expect(read()).to(beNil())
        }

        it("knows the flags git sets: assume-unchanged, skip-worktree and intent-to-add") {
            git("update-index", "--assume-unchanged", "a/one.json")
            git("update-index", "--skip-worktree", "b/three.json")
            try! Data("{}\n".utf8).write(to: folder.appendingPathComponent("c.json"))
            git("add", "-N", "c.json")
            guard let index = read() else { return fail("the index did not read") }
            func entry(_ path: String) -> IndexFile.Entry { index.entry(at: path)! }
            expect(index.isNotLookedAt(entry("a/one.json"))) == true
            expect(index.isNotLookedAt(entry("b/three.json"))) == true
            expect(index.isNotLookedAt(entry("a/two.json"))) == false
            expect(index.isIntentToAdd(entry("c.json"))) == true
            expect(index.isIntentToAdd(entry("a/two.json"))) == false
        }

        it("leaves an index with extended flags git does not know to libgit2") {
            git("update-index", "--skip-worktree", "b/three.json")
            var data = FileManager.default.contents(atPath: indexPath)!
            // The third entry's extended flags: a bit git has not defined.
            let offsets = entryOffsets(data)
            data[offsets[2] + 62] |= 0x01
            let body = data.prefix(data.count - 20)
            let sum = body.withUnsafeBytes { Repository.sha1($0) }
            try! (body + sum).write(to: URL(fileURLWithPath: indexPath))
            expect(read()).to(beNil())
        }

        it("writes an index git reads back the same, every flag of an entry it did not change kept") {
            git("update-index", "--skip-worktree", "b/three.json")
            git("update-index", "--assume-unchanged", "a/one.json")
            let url = folder.appendingPathComponent("a/two.json")
            try! Data("{\"n\": 9}\n".utf8).write(to: url)
            let blob = try! repository.writeBlob(Data("{\"n\": 9}\n".utf8))
            guard let file = read() else { return fail("the index did not read") }
            let head = try! repository.tree(ofCommit: repository.head()!)
            expect(
                try repository.writeIndex(NotedIndex(file, tree: head), setting: [("a/two.json", blob)], noting: nil))
                == true
            expect(git("ls-files", "-v")) == "h a/one.json\nH a/two.json\nS b/three.json\n"
            expect(git("ls-files", "-s", "a/two.json")).to(contain(blob.description))
            expect(gitCLI(["fsck", "--strict"], in: folder).status) == 0
            expect(git("diff", "--name-only")) == ""
            expect(git("diff", "--cached", "--name-only")) == "a/two.json\n"
        }

        it("names each index libgit2 cannot read by the setting that made it, and reads the others") {
            expect(IndexFile.unreadableReason(atPath: indexPath)).to(beNil())
            git("update-index", "--index-version", "4")
            expect(IndexFile.unreadableReason(atPath: indexPath)).to(beNil())
            gitCLI(["-c", "core.splitIndex=true", "update-index", "--split-index"], in: folder)
            expect(IndexFile.unreadableReason(atPath: indexPath)) == .split
            gitCLI(["update-index", "--no-split-index"], in: folder)
            expect(IndexFile.unreadableReason(atPath: indexPath)).to(beNil())
            gitCLI(["sparse-checkout", "init", "--cone", "--sparse-index"], in: folder)
            gitCLI(["sparse-checkout", "set", "a"], in: folder)
            expect(IndexFile.unreadableReason(atPath: indexPath)) == .sparse
            gitCLI(["sparse-checkout", "disable"], in: folder)
            var data = FileManager.default.contents(atPath: indexPath)!
            data[7] = 9
            try! data.write(to: URL(fileURLWithPath: indexPath))
            expect(IndexFile.unreadableReason(atPath: indexPath)) == .unknown("version 9")
        }

        it("writes each object once to a pack, however often it is given, and git reads every one") {
            let blobs = ["one", "two", "one", "three", "two"].map { Data($0.utf8) }
            var pack = try! PackFileWriter(folder: folder.appendingPathComponent(".git/objects/pack").path + "/")
            var ids: [ObjectID] = []
            for data in blobs {
                var oid = git_oid()
                _ = data.withUnsafeBytes { git_odb_hash(&oid, $0.baseAddress, $0.count, GIT_OBJECT_BLOB) }
                let entry = data.withUnsafeBytes { PackFileWriter.entry(type: GIT_OBJECT_BLOB, $0) }!
                try! pack.append(id: oid, entry: entry)
                ids.append(ObjectID(oid))
            }
            expect(pack.count) == 3
            try! pack.finish()
            let packs = try! FileManager.default.contentsOfDirectory(
                atPath: folder.appendingPathComponent(".git/objects/pack").path)
            let idx = packs.first { $0.hasSuffix(".idx") }!
            expect(
                gitCLI(["verify-pack", folder.appendingPathComponent(".git/objects/pack/" + idx).path], in: folder)
                    .status) == 0
            expect(gitCLI(["fsck", "--strict"], in: folder).status) == 0
            for (id, data) in zip(ids, blobs) {
                expect(git("cat-file", "blob", id.description)) == String(decoding: data, as: UTF8.self)
            }
        }
    }
}

/// Where each entry of an index in version 2 or 3 starts.
private func entryOffsets(_ data: Data) -> [Int] {
    let count = Int(data[8]) << 24 | Int(data[9]) << 16 | Int(data[10]) << 8 | Int(data[11])
    var offsets: [Int] = []
    var offset = 12
    for _ in 0..<count {
        offsets.append(offset)
        let extended = data[offset + 60] & 0x40 != 0
        var end = offset + (extended ? 64 : 62)
        while data[end] != 0 { end += 1 }
        offset += ((end - offset) + 8) & ~7
    }
    return offsets
}
