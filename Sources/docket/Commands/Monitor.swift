import ArgumentParser
import Docket
import DocketSystem
import Foundation

struct Monitor: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor",
        abstract: "Watch the store for changes, so status and commit look only where something changed.",
        discussion: """
            on starts a monitor (a process watching the store's folders through inotify) and keeps it \
            on: a status or commit that finds none running starts one. off stops it. status (the default) \
            says whether it is on and runs. Without it, status and commit look at every file, as git does: \
            at 100,000 items about 150 ms.

            inotify does not see changes made over a network file system, through another mount of the \
            same files, or by writing a file mapped into memory: the monitor refuses network and FUSE \
            file systems; turn it off where files change those ways.

            Examples:
              docket monitor on
              docket monitor
              docket monitor off
            """,
        subcommands: [On.self, Off.self, Status.self, Run.self],
        defaultSubcommand: Status.self)

    struct On: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "on", abstract: "Start the monitor, and start it again when it is found stopped.",
            discussion: "Example: docket monitor on")
        @OptionGroup var store: StoreOptions

        func run() throws {
            let store = try self.store.open()
            try store.setMonitor(on: true)
            guard store.startMonitor(program: "/proc/self/exe") else {
                try store.setMonitor(on: false)
                let reason = store.monitorProblem.map { Output.safe($0) } ?? "it did not answer within 5 seconds"
                throw ShownError(message: "the change monitor could not start, so it stays off: \(reason)")
            }
            print(
                "The change monitor is on: status and commit look only in folders that changed. 'docket monitor off' turns it off."
            )
        }
    }

    struct Off: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "off", abstract: "Stop the monitor and keep it off.",
            discussion: "Example: docket monitor off")
        @OptionGroup var store: StoreOptions

        func run() throws {
            let store = try self.store.open()
            try store.setMonitor(on: false)
            print(store.stopMonitor() ? "The change monitor is off; it was stopped." : "The change monitor is off.")
        }
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status", abstract: "Say whether the monitor is on and runs (the default).",
            discussion: "Example: docket monitor status")
        @OptionGroup var store: StoreOptions

        func run() throws {
            let store = try self.store.open()
            let running = store.runningMonitor.map(Output.safe)
            switch (try store.monitorIsOn, running) {
            case let (true, running?): print("The change monitor is on and runs: \(running).")
            case (true, nil):
                print("The change monitor is on but does not run now; the next status or commit starts it.")
                if let problem = store.monitorProblem { print("Its last run: " + Output.safe(problem)) }
            case let (false, running?):
                print("The change monitor is off, but one runs (\(running)); 'docket monitor off' stops it.")
            case (false, nil): print("The change monitor is off; 'docket monitor on' starts it.")
            }
        }
    }

    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "run",
            abstract: "Run the monitor in this terminal until Ctrl-C (what 'on' starts in the background).",
            discussion: "Example: docket monitor run")
        @OptionGroup var store: StoreOptions
        @Flag(
            help: ArgumentHelp("Say nothing; write why it stops early to .git/docket/monitor.log.", visibility: .hidden)
        ) var background = false

        func run() throws {
            let store = try self.store.open()
            if !background { print("Watching \(Output.safe(store.root.path)) for changes; stop with Ctrl-C.") }
            do {
                try store.runMonitor(background: background)
            } catch let failure as ChangeMonitorRun.Failure {
                throw ShownError(message: failure.description)
            }
            if !background { print("Stopped watching \(Output.safe(store.root.path)).") }
        }
    }
}
