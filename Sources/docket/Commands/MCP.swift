import ArgumentParser
import Docket
import Foundation

#if canImport(Glibc)
import Glibc
#endif

struct MCPCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mcp",
        abstract: "Serve the store to an AI agent over the Model Context Protocol (stdio).",
        discussion: """
            One server per agent: an MCP client starts 'docket mcp --as NAME' (or sets DOCKET_AGENT) and talks \
            to it on stdin and stdout; nothing else is written to stdout, and logs go to stderr. The store is \
            found as every command finds it (-C, DOCKET_DIR, the working folder). The tools: ready, list, show, \
            add, update, complete, note, claim_next, claim, heartbeat, release, sync, merges. See docs/AGENTS.md.

            Example client configuration:
              {"mcpServers": {"docket": {"command": "docket", "args": ["mcp", "-C", "/path/to/store", "--as", "agent-1"]}}}
            """)

    @OptionGroup var store: StoreOptions
    @OptionGroup var holder: HolderOptions

    func validate() throws {
        guard let name = holder.named else {
            throw ValidationError("name the agent with --as NAME or DOCKET_AGENT: claims are held by name")
        }
        if let problem = Claim.holderProblem(name) { throw ValidationError(problem) }
    }

    func run() throws {
        // NB: several servers share a store, and one's sync holds its lock while it talks to the remote: a tool waits
        // up to 30 s for the lock (DOCKET_LOCK_TIMEOUT still says otherwise), where a command waits 3.
        setenv("DOCKET_LOCK_TIMEOUT", "30", 0)
        let store = try store.open()
        try MCPServerProgram.run(store: store.root.path, agent: holder.named!)
    }
}

/// `docket-mcp`, the server program installed beside docket, which this process becomes.
enum MCPServerProgram {
    /// The program: docket-mcp in the folder docket runs from.
    static var path: String {
        URL(fileURLWithPath: docketExecutable).deletingLastPathComponent().appendingPathComponent("docket-mcp").path
    }

    /// Replaces this process with the server for `agent` on the store at `store`; returns only by throwing.
    static func run(store: String, agent: String) throws -> Never {
        let program = path
        guard access(program, X_OK) == 0 else {
            throw ShownError(
                message:
                    "docket mcp runs \(Output.safe(program)), which is not there or not executable; "
                    + "install docket again with scripts/install, which puts docket-mcp beside docket")
        }
        fflush(nil)
        let arguments = [program, store, agent]
        var pointers = arguments.map { strdup($0) } + [nil]
        execv(program, &pointers)
        let reason = String(cString: strerror(errno))
        for pointer in pointers { free(pointer) }
        throw ShownError(message: "docket mcp could not run \(Output.safe(program)): \(reason)")
    }
}
