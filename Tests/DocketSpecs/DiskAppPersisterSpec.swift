import Docket
import Foundation
import Nimble
import Quick

// Seed 001's DiskAppPersister spec, final version.
final class DiskAppPersisterSpec: QuickSpec {
    override class func spec() {
        describe("DiskAppPersister") {
            var diskAppPersiter: DiskAppPersister!
            beforeEach {
                diskAppPersiter = DiskAppPersister(pathInDocuments: "DiskAppPersister.Spec.json")
            }
            afterEach {
                diskAppPersiter.destroy()
                diskAppPersiter = nil
            }
            context("Load") {
                var appState: AppState!
                beforeEach {
                    appState = diskAppPersiter.loadAppState()
                }
                afterEach {
                    appState = nil
                }
                context("Empty AppState") {
                    it("loads empty state") { expect(appState).to(equal(AppState())) }
                }
                context("Persisted AppState") {
                    var loadedAppState: AppState!
                    var project: Project!
                    beforeEach {
                        project = Project(title: "World Domination!")
                        appState = AppState().alter(by: .adding(.project(project)))
                        diskAppPersiter.persist(appState: appState)
                        loadedAppState = diskAppPersiter.loadAppState()
                    }
                    afterEach {
                        loadedAppState = nil
                        project = nil
                    }
                    it("loads state with given project") {
                        expect(loadedAppState).to(equal(AppState().alter(by: .adding(.project(project)))))
                    }
                }
            }
        }
    }
}
