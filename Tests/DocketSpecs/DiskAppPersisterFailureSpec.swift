import Docket
import DocketSpecSupport
import Foundation
import Nimble
import Quick

final class DiskAppPersisterFailureSpec: QuickSpec {
    override class func spec() {
        describe("DiskAppPersister in a folder of its own") {
            var folder: URL!
            var persister: DiskAppPersister!
            var file: URL { folder.appendingPathComponent("state.json") }
            beforeEach {
                folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                    "docket-spec-\(UUID().uuidString)")
                persister = DiskAppPersister(pathInDocuments: "state.json", baseDirectory: folder)
            }
            afterEach {
                try? FileManager.default.removeItem(at: folder)
                persister = nil
            }

            it("creates the folder on the first save and writes the state there") {
                let state = AppState().alter(by: .adding(.todo(TodoItem(text: "Buy milk"))))
                persister.persist(appState: state)
                expect(FileManager.default.fileExists(atPath: file.path)) == true
                expect(persister.loadAppState()) == state
                expect(persister.lastError).to(beNil())
            }
            it("writes the file format: sorted keys and a trailing newline") {
                persister.persist(appState: AppState())
                let text = try! String(contentsOf: file, encoding: .utf8)
                expect(text) == "{\n  \"projects\" : [\n\n  ],\n  \"removed\" : [\n\n  ],\n  \"todos\" : [\n\n  ]\n}\n"
            }

            context("when the file does not decode") {
                let garbage = Data("{\"todos\": [ {\"text\": 12} ]".utf8)
                beforeEach {
                    try! FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                    try! garbage.write(to: file)
                }
                it("loads an empty state and says which file and why") {
                    expect(persister.loadAppState()) == AppState()
                    expect(persister.lastError?.description).to(contain(file.path))
                    expect(persister.lastError?.description).to(contain("not a Docket state file"))
                }
                it("throws from load, naming the file") {
                    expect { try persister.load() }.to(
                        throwError { (error: Error) in
                            expect("\(error)").to(contain(file.path))
                        })
                }
                it("keeps the file untouched until something is saved") {
                    _ = persister.loadAppState()
                    expect(try! Data(contentsOf: file)) == garbage
                }
                context("and a new state is saved") {
                    var state: AppState!
                    beforeEach {
                        _ = persister.loadAppState()
                        state = AppState().alter(by: .adding(.project(Project(title: "Party"))))
                        persister.persist(appState: state)
                    }
                    it("moves the unreadable file aside instead of overwriting it") {
                        let names = try! FileManager.default.contentsOfDirectory(atPath: folder.path)
                        let aside = names.first { $0.hasPrefix("state.json.corrupt-") }
                        expect(aside).toNot(beNil())
                        expect(try! Data(contentsOf: folder.appendingPathComponent(aside!))) == garbage
                    }
                    it("saves the new state and says where the old file went") {
                        expect(persister.loadAppState()) == state
                        let reloaded = DiskAppPersister(pathInDocuments: "state.json", baseDirectory: folder)
                        expect(reloaded.loadAppState()) == state
                    }
                    it("reports the move") {
                        let fresh = DiskAppPersister(pathInDocuments: "state.json", baseDirectory: folder)
                        try! garbage.write(to: file)
                        _ = fresh.loadAppState()
                        fresh.persist(appState: state)
                        expect(fresh.lastError?.description).to(contain("was moved to"))
                    }
                }
            }

            context("when the folder cannot be written") {
                it("reports the failure instead of crashing") {
                    try! FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                    try! Data().write(to: folder.appendingPathComponent("blocker"))
                    let blocked = DiskAppPersister(pathInDocuments: "blocker/state.json", baseDirectory: folder)
                    blocked.persist(appState: AppState())
                    expect(blocked.lastError?.description).to(contain("could not save"))
                }
            }
        }

        describe("DiskAppPersister's default folder") {
            it("is ~/Documents when it exists, else Docket's XDG data folder") {
                // A scratch home ($HOME, as users and tests mean it), never the real one.
                let home = temporaryFolder("docket-persister-home")
                let saved = (
                    ProcessInfo.processInfo.environment["HOME"], ProcessInfo.processInfo.environment["XDG_DATA_HOME"]
                )
                setenv("HOME", home.path, 1)
                unsetenv("XDG_DATA_HOME")
                defer {
                    if let old = saved.0 { setenv("HOME", old, 1) } else { unsetenv("HOME") }
                    if let old = saved.1 { setenv("XDG_DATA_HOME", old, 1) }
                    try? FileManager.default.removeItem(at: home)
                }
                expect(DiskAppPersister.defaultBaseDirectory().path) == home.path + "/.local/share/docket"
                try! FileManager.default.createDirectory(
                    at: home.appendingPathComponent("Documents"), withIntermediateDirectories: true)
                expect(DiskAppPersister.defaultBaseDirectory().path) == home.path + "/Documents"
            }
        }
    }
}
