import Docket
import Foundation
import MCP
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// `docket mcp`: Docket as a Model Context Protocol server over stdio, one process per agent.
public enum DocketMCP {
    /// Serves `store` to one agent named `agent` on stdin and stdout until the client closes stdin.
    ///
    /// Only the protocol goes to stdout: the process's own standard output (and so any hook's) is sent to stderr
    /// first, and the transport writes to a copy of the original.
    public static func serve(store: Store, agent: String) throws {
        let protocolOut = dup(STDOUT_FILENO)
        guard protocolOut >= 0 else { throw MCPSetupError(message: "cannot copy standard output") }
        dup2(STDERR_FILENO, STDOUT_FILENO)
        let tools = DocketTools(store: store, agent: agent)
        let failure = Locked<Error?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            defer { done.signal() }
            do {
                let server = Server(
                    name: "docket", version: "1.0",
                    instructions:
                        "Docket keeps a shared todo list in git. Call claim_next to take the next ready item, "
                        + "heartbeat while you work, complete when done (or release), and sync to share.",
                    capabilities: .init(tools: .init(listChanged: false)))
                await server.withMethodHandler(ListTools.self) { _ in .init(tools: DocketTools.definitions) }
                await server.withMethodHandler(CallTool.self) { call in
                    tools.call(call.name, call.arguments ?? [:])
                }
                let stdio = StdioTransport(input: .standardInput, output: FileDescriptor(rawValue: protocolOut))
                let transport = AnsweringTransport(stdio, logger: stdio.logger)
                try await server.start(transport: transport)
                await server.waitUntilCompleted()
                await transport.settle()
            } catch {
                failure.withLock { $0 = error }
            }
        }
        done.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }
}

/// The server could not be set up.
public struct MCPSetupError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

/// A value behind a lock.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
