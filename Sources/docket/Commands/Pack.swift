import ArgumentParser
import Docket
import Foundation
#if canImport(Glibc)
import Glibc
#endif

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

/// Starts `docket pack` for the store in the background, detached from this
/// process, when its loose objects have passed the threshold.
/// NB: packing 100,000 objects takes about 15 s; like git's auto gc, nobody waits for it.
func packInBackgroundIfNeeded(_ store: Store) {
    guard store.needsPacking else { return }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    // POSIX_SPAWN_SETSID (0x80 in glibc), which Swift's Glibc module does not show:
    // a session of its own, so a terminal closing or Ctrl-C does not stop the packing.
    posix_spawnattr_setflags(&attributes, 0x80)
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for fd in 0...2 { posix_spawn_file_actions_addopen(&actions, Int32(fd), "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0) }
    let arguments = ["docket", "-C", store.root.path, "pack", "--quiet"]
    let argv = arguments.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    _ = posix_spawn(&pid, "/proc/self/exe", &actions, &attributes, argv, environ)
}
