import ArgumentParser
import Docket
import Foundation

struct Pack: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pack",
        abstract: "Pack the store's loose git objects into one pack file.",
        discussion: """
            docket does this by itself, in the background, after a commit or pull \
            leaves more than 6,700 loose objects (DOCKET_PACK_THRESHOLD), as git's \
            auto gc does.

            Example: docket pack
            """)

    @OptionGroup var store: StoreOptions
    @Flag(help: .hidden) var quiet = false

    func run() throws {
        let packed = try store.open().pack()
        if !quiet { print(packed == 0 ? "Nothing to pack." : "Packed \(packed) objects.") }
    }
}
