import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One HTTP/1.1 request, as this sample reads it: a method, a path, its query and a body (`Content-Length` only).
struct Request: Sendable {
    let method: String
    let path: [String]
    let query: [String: String]
    let body: Data
}

/// A reply: a status and a JSON body.
struct Reply: Sendable {
    let status: Int
    let body: Data

    static func json<T: Encodable>(_ status: Int, _ value: T) -> Reply {
        Reply(status: status, body: (try? JSON.encoder.encode(value)) ?? Data("{}".utf8))
    }
}

enum JSON {
    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = .sortedKeys
        return encoder
    }
}

/// A connection: the socket of one accepted client, read and written by one thread.
struct Connection: Sendable {
    let fd: Int32

    /// Reads one request; nil when the client sent none it could parse.
    func read() -> Request? {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 16_384)
        var headerEnd: Range<Data.Index>?
        while headerEnd == nil {
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            data.append(buffer, count: count)
            headerEnd = data.range(of: Data("\r\n\r\n".utf8))
            if data.count > 1 << 20 { return nil }
        }
        guard let headerEnd else { return nil }
        let head = String(decoding: data[..<headerEnd.lowerBound], as: UTF8.self).split(separator: "\r\n")
        let first = head.first?.split(separator: " ") ?? []
        guard first.count >= 2 else { return nil }
        var length = 0
        for line in head.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "content-length" {
                length = Int(parts[1].trimmingCharacters(in: .whitespaces)) ?? 0
            }
        }
        var body = Data(data[headerEnd.upperBound...])
        while body.count < length {
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            body.append(buffer, count: count)
        }
        let target = first[1].split(separator: "?", maxSplits: 1)
        var query: [String: String] = [:]
        if target.count == 2 {
            for pair in target[1].split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
                query[parts[0]] = parts.count > 1 ? parts[1] : ""
            }
        }
        let path = target[0].split(separator: "/").map(String.init)
        return Request(method: String(first[0]), path: path, query: query, body: body)
    }

    /// Writes a whole reply and closes the connection.
    func send(_ reply: Reply) {
        let reason = [200: "OK", 201: "Created", 400: "Bad Request", 404: "Not Found", 503: "Service Unavailable"]
        let head =
            "HTTP/1.1 \(reply.status) \(reason[reply.status] ?? "Error")\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(reply.body.count)\r\nConnection: close\r\n\r\n"
        _ = write(Data(head.utf8) + reply.body)
        close(fd)
    }

    /// Writes `data` whole; false once the client is gone.
    func write(_ data: Data) -> Bool {
        data.withUnsafeBytes { bytes in
            var sent = 0
            while sent < bytes.count {
                let count = Glibc.send(fd, bytes.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
                if count <= 0 { return false }
                sent += count
            }
            return true
        }
    }
}

/// Listens on `port` of the loopback address and hands each connection to `handle` on a thread of its own.
func serve(port: UInt16, _ handle: @escaping @Sendable (Connection) -> Void) throws -> Never {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var yes: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard fd >= 0, bound == 0, listen(fd, 128) == 0 else {
        throw NSError(
            domain: "docket-server-sample", code: Int(errno),
            userInfo: [NSLocalizedDescriptionKey: "cannot listen on port \(port)"])
    }
    while true {
        let client = accept(fd, nil, nil)
        guard client >= 0 else { continue }
        Thread.detachNewThread { handle(Connection(fd: client)) }
    }
}

/// Runs `body` in a task and waits for it on this thread (a connection's own thread, never a cooperative one).
func waiting<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) -> Result<T, any Error> {
    let outcome = Outcome<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        outcome.set(await Result { try await body() })
        done.signal()
    }
    done.wait()
    return outcome.get()
}

/// A result handed from a task to the thread waiting for it.
final class Outcome<T: Sendable>: @unchecked Sendable {
    // NB: @unchecked: `result` is behind `lock`.
    private let lock = NSLock()
    private var result: Result<T, any Error>?

    func set(_ result: Result<T, any Error>) { lock.withLock { self.result = result } }
    func get() -> Result<T, any Error> { lock.withLock { result! } }
}

extension Result where Failure == any Error {
    init(_ body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
