import Docket
import DocketMCP
import DocketModel
import Foundation

// `docket-mcp <store folder> <agent>`: the server `docket mcp` hands over to once it has read its options, found the
// store and checked the agent's name (see MCP.swift in Sources/docket). It lives in a program of its own because the
// MCP SDK links Foundation's networking, and with it libcurl and some thirty libraries: loading those and searching
// the SDK's type conformances took 6 ms from every other docket command's start.
let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: docket-mcp <store folder> <agent>; run 'docket mcp' instead\n".utf8))
    exit(64)
}
// `DOCKET_NOW`, which docket checked before handing over: the clock runs on from it.
if let text = ProcessInfo.processInfo.environment["DOCKET_NOW"], !text.isEmpty, let start = ISODate.date(from: text) {
    let began = Date()
    DocketClock.use { start.addingTimeInterval(Date().timeIntervalSince(began)) }
}
do {
    try DocketMCP.serve(store: try Store.open(at: URL(fileURLWithPath: arguments[1])), agent: arguments[2])
} catch {
    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
    exit(1)
}
