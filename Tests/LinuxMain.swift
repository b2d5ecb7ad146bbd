import Quick
import XCTest

@testable import DocketModelSpecs
@testable import DocketSpecs

// On Linux, Quick runs only the specs listed here: add every new QuickSpec.
// `.ci/run` fails when one is missing.
@main struct Main {
    static func main() {
        QCKMain([
            TodoItemSpec.self,
            ProjectSpecs.self,
            ProjectTaskSpecs.self,
            TimeSlipSpecs.self,
            AppStateSpec.self,
            AppStoreSpec.self,
            DiskAppPersisterSpec.self,
        ])
    }
}
