import DocketCGitTransport
import DocketGit
import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// The parts of an ssh address as docket reads them, or why it does not read.
private enum Parsed: Equatable {
    case parts(user: String, host: String, port: Int, path: String)
    case refused(String)
}

private func parse(_ address: String) -> Parsed {
    var user: UnsafeMutablePointer<CChar>?
    var host: UnsafeMutablePointer<CChar>?
    var path: UnsafeMutablePointer<CChar>?
    var port: Int32 = 0
    let code = docket_exec_parse_ssh_url(address, &user, &host, &port, &path)
    defer {
        free(user)
        free(host)
        free(path)
    }
    guard code == 0, let user, let host, let path else {
        return .refused(String(cString: docket_ssh_address_problem(code)))
    }
    return .parts(
        user: String(cString: user), host: String(cString: host), port: Int(port), path: String(cString: path))
}

/// What scripts/fuzz-address checks of every input, here over seeded random ones: the parser never reads or writes
/// outside the address (a crash, or a report under scripts/asan-specs), and what it returns is whole.
private func problem(with address: String) -> String? {
    switch parse(address) {
    case let .parts(user, host, port, path):
        if host.isEmpty || path.isEmpty { return "\(address.debugDescription) gave an empty host or path" }
        if !(0...65_535).contains(port) { return "\(address.debugDescription) gave the port \(port)" }
        for part in [user, host, path] where !part.isEmpty && !address.contains(part) {
            return "\(address.debugDescription) gave \(part.debugDescription), which is not in it"
        }
        if host.contains("[") || host.contains("]") { return "\(address.debugDescription) gave the host \(host)" }
    case let .refused(reason):
        if reason == "it could not be read" { return "\(address.debugDescription) was refused with no reason" }
    }
    return parse(address) == parse(address) ? nil : "\(address.debugDescription) read two ways"
}

final class SSHAddressSpec: QuickSpec {
    override class func spec() {
        describe("an ssh address") {
            let read: [(String, Parsed)] = [
                ("host:lists.git", .parts(user: "", host: "host", port: 0, path: "lists.git")),
                ("ann@host:lists.git", .parts(user: "ann", host: "host", port: 0, path: "lists.git")),
                ("[::1]:lists", .parts(user: "", host: "::1", port: 0, path: "lists")),
                ("[ann@::1]:lists", .parts(user: "ann", host: "::1", port: 0, path: "lists")),
                ("ann@[::1]:lists", .parts(user: "ann", host: "::1", port: 0, path: "lists")),
                ("[myhost:123]:src", .parts(user: "", host: "myhost", port: 123, path: "src")),
                ("ssh://host/lists.git", .parts(user: "", host: "host", port: 0, path: "/lists.git")),
                ("ssh://ann@host:2222/lists.git", .parts(user: "ann", host: "host", port: 2222, path: "/lists.git")),
                ("ssh://[::1]:22/home/ann/lists", .parts(user: "", host: "::1", port: 22, path: "/home/ann/lists")),
                ("ssh://ann@[::1]:/lists", .parts(user: "ann", host: "::1", port: 0, path: "/lists")),
                ("ssh://[ann@::1]:22/lists", .parts(user: "ann", host: "::1", port: 22, path: "/lists")),
                ("ssh://ann@::1/lists", .parts(user: "ann", host: "::1", port: 0, path: "/lists")),
                ("ssh://host/~ann/lists", .parts(user: "", host: "host", port: 0, path: "~ann/lists")),
                ("GIT+SSH://host/lists", .parts(user: "", host: "host", port: 0, path: "/lists")),
            ]
            for (address, parts) in read {
                it("reads \(address) as git does") {
                    expect(parse(address)) == parts
                }
            }

            let refused: [(String, String)] = [
                ("user@[:path", "its '[' has no matching ']'"),
                ("[:path", "its '[' has no matching ']'"),
                ("ssh://[::1/lists", "its '[' has no matching ']'"),
                ("[host]x:lists", "its ']' is followed by something other than ':'"),
                ("ssh://host:0/lists", "its port is not a number from 1 to 65535"),
                ("ssh://host:99999999999999999999/lists", "its port is not a number from 1 to 65535"),
                ("ssh://host:ssh/lists", "its port is not a number from 1 to 65535"),
                (":lists", "its host name is empty or holds a stray '[' or ']'"),
                ("u@[]:lists", "its host name is empty or holds a stray '[' or ']'"),
                ("host:", "it names no path after its host (host:path, or ssh://host/path)"),
                ("ssh://host", "it names no path after its host (host:path, or ssh://host/path)"),
            ]
            for (address, reason) in refused {
                it("refuses \(address), saying why") {
                    expect(parse(address)) == .refused(reason)
                    expect(RemoteURL.refusal(address)) == "is not an ssh address docket understands: " + reason
                    expect(RemoteURL.sshHost(address).port).to(beNil())
                }
            }

            it("is read whole or refused with a reason, whatever its characters (seeded)") {
                let alphabet =
                    Array("[]@:/~-.ab1 %\u{e9}").map(String.init) + ["ssh://", "git+ssh://", "::1", "[::1]", "user@"]
                forAll(2_000) { random in
                    let count = Int.random(in: 0...24, using: &random)
                    let address = (0..<count).map { _ in String(alphabet.randomElement(using: &random)!) }.joined()
                    return problem(with: address)
                }
            }
        }
    }
}
