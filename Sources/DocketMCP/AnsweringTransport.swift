import Foundation
import Logging
import MCP

/// A transport that counts the requests it received and has not yet answered, so the server can answer every one
/// before it exits when the client closes stdin (the SDK answers each request in a task of its own, and its loop
/// ends at the end of input, which would drop answers still being worked out).
actor AnsweringTransport: Transport {
    private let inner: any Transport
    private var unanswered: Set<String> = []
    nonisolated let logger: Logger

    init(_ inner: any Transport, logger: Logger) {
        self.inner = inner
        self.logger = logger
    }

    func connect() async throws { try await inner.connect() }
    func disconnect() async { await inner.disconnect() }

    func send(_ data: Data) async throws {
        try await inner.send(data)
        if let id = Self.id(of: data, request: false) { unanswered.remove(id) }
    }

    func receive() -> AsyncThrowingStream<Data, Swift.Error> {
        let (stream, continuation) = AsyncThrowingStream<Data, Swift.Error>.makeStream()
        let task = Task {
            do {
                for try await data in await inner.receive() {
                    if let id = Self.id(of: data, request: true) { note(id) }
                    continuation.yield(data)
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    private func note(_ id: String) { unanswered.insert(id) }

    /// Whether every request received has been answered.
    var isSettled: Bool { unanswered.isEmpty }

    /// Waits until every request received has been answered.
    func settle() async {
        while !unanswered.isEmpty { try? await Task.sleep(for: .milliseconds(5)) }
    }

    /// The id of a request (with a method) or of a response (with a result or an error), as text.
    private static func id(of data: Data, request: Bool) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let id = object["id"]
        else { return nil }
        let isRequest = object["method"] != nil
        guard isRequest == request else { return nil }
        return "\(id)"
    }
}
