import DocketGit
import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// How objects reach a repository's object folders: each under its own name or not at all, and the temporary files
/// of a killed writer removed once stale.
final class ObjectFilesSpec: QuickSpec {
    override class func spec() {
        var folder: URL!
        afterEach { try? FileManager.default.removeItem(at: folder) }
        let me = Signature(name: "Spec", email: "spec@example.invalid")

        func write(_ text: String, to path: String, in root: URL) {
            try! Data(text.utf8).write(to: root.appendingPathComponent(path))
        }
        /// Stages and commits `paths` as a store's commit does: objects written together, then flushed.
        func commit(_ paths: [String], in repository: Repository) throws {
            let tree = try repository.writingObjectsTogether { try repository.stageAndWriteTree(paths) }
            _ = try repository.commit(
                tree: tree, parents: try repository.head().map { [$0] } ?? [], message: "Add",
                identities: Identities(author: me, committer: me))
        }
        /// A file at `path`, last modified `age` seconds ago.
        func plant(_ path: URL, age: TimeInterval) {
            expect(FileManager.default.createFile(atPath: path.path, contents: Data("x".utf8))) == true
            try! FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSinceNow: -age), .posixPermissions: 0o444], ofItemAtPath: path.path
            )
        }

        describe("an object whose path is too long for the system") {
            it("fails the commit, naming the file, rather than writing the object under a name cut short") {
                // NB: the objects folder's path is short enough to use, an object's (42 bytes more) is not.
                folder = temporaryFolder("docket-objects")
                var root = folder!
                let wanted = 4_060 - "/.git/objects".utf8.count
                while wanted - root.path.utf8.count > 250 {
                    root.appendPathComponent(String(repeating: "d", count: 200))
                }
                root.appendPathComponent(String(repeating: "e", count: wanted - root.path.utf8.count - 1))
                try! FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
                expect((root.path + "/.git/objects").utf8.count) == 4_060
                let repository = try! Repository.create(at: root.path)
                write("Buy milk", to: "a", in: root)

                expect { try commit(["a"], in: repository) }.to(
                    throwError { (error: Error) in expect("\(error)").to(contain("File name too long")) })
                let objects = root.appendingPathComponent(".git/objects")
                let written = FileManager.default.enumerator(atPath: objects.path)!.compactMap { $0 as? String }
                    .filter { $0.count > 3 && !$0.hasPrefix("pack") && !$0.hasPrefix("info") }
                expect(written) == []
            }
        }

        describe("the temporary files of objects a killed commit left") {
            it("go at the next commit (in the objects folder) and pack (in its folders) once stale; fresh ones stay") {
                folder = temporaryFolder("docket-objects")
                let repository = try! Repository.create(at: folder.path)
                let objects = folder.appendingPathComponent(".git/objects")
                try! FileManager.default.createDirectory(
                    at: objects.appendingPathComponent("ab"), withIntermediateDirectories: true)
                let stale = objects.appendingPathComponent("tmp_obj_A1b2C3")
                let fresh = objects.appendingPathComponent("tmp_obj_D4e5F6")
                let staleInFolder = objects.appendingPathComponent("ab/tmp_obj_G7h8I9")
                plant(stale, age: 3_600)
                plant(fresh, age: 0)
                plant(staleInFolder, age: 3_600)

                write("Buy milk", to: "a", in: folder)
                try! commit(["a"], in: repository)
                expect(FileManager.default.fileExists(atPath: stale.path)) == false
                expect(FileManager.default.fileExists(atPath: fresh.path)) == true
                expect(FileManager.default.fileExists(atPath: staleInFolder.path)) == true

                expect(try! repository.packLooseObjects()) == 3
                expect(FileManager.default.fileExists(atPath: staleInFolder.path)) == false
                expect(FileManager.default.fileExists(atPath: fresh.path)) == true
                expect(gitCLI(["fsck", "--strict"], in: folder).status) == 0
            }
        }
    }
}
