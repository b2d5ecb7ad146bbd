import Docket
import Foundation
import Nimble
import Quick

// Seed 001's AppStore spec, final version.
final class AppStoreSpec: QuickSpec {
    override class func spec() {
        describe("AppStore") {
            var appStore: AppStore!
            var persister: DiskAppPersister!

            beforeEach {
                persister = DiskAppPersister(pathInDocuments: "AppStoreSpec.json")
                appStore = AppStore(persister: persister)
            }
            afterEach {
                persister.destroy()
                persister = nil
                appStore = nil
            }
            context("Creation") {
                it("has fresh state") { expect(appStore.state).to(equal(AppState())) }
            }
            context("Change Store") {
                var subscriber: SubscriberMock!
                var project: Project!
                beforeEach {
                    subscriber = SubscriberMock()
                    project = Project(title: "Conquer the world!")
                }
                afterEach {
                    subscriber = nil
                    project = nil
                }
                it("has no projects in state") { expect(appStore.state.projects).to(beEmpty()) }

                context("Adding Subscriber") {
                    beforeEach {
                        appStore.subscribe(subscriber: subscriber)
                    }
                    it("has not notified subscriber") { expect(subscriber.hasBeenNotified).to(beFalse()) }
                    context("Adding Project") {
                        beforeEach {
                            appStore.change(.adding(.project(project)))
                        }
                        it("has project added to state") { expect(appStore.state.projects).to(equal([project])) }
                        it("notified subscriber") { expect(subscriber.hasBeenNotified).to(beTrue()) }
                    }
                }
            }
        }
    }
}

class SubscriberMock: AppStoreSubscriber {
    var hasBeenNotified = false
    func updated(store: AppStore) {
        hasBeenNotified = true
    }
}
