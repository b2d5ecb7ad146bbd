import ArgumentParser
import Docket
import DocketMCP
import Foundation

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
        try DocketMCP.serve(store: try store.open(), agent: holder.named!)
    }
}
