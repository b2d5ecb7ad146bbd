// swift-tools-version:6.0
import PackageDescription

/// Spec targets build in Swift 5 mode: Quick's `var x: T!` + `beforeEach` pattern does not compile in Swift 6 mode.
let specSettings: [SwiftSetting] = [.swiftLanguageMode(.v5)]

let package = Package(
    name: "Docket",
    products: [
        .library(name: "Docket", targets: ["Docket"]),
        .executable(name: "docket", targets: ["DocketCLI"]),
        .executable(name: "docket-mcp", targets: ["DocketMCPServer"]),
        .executable(name: "docket-bench", targets: ["DocketBench"]),
        .executable(name: "docket-sample", targets: ["LibrarySample"]),
        .executable(name: "docket-app-sample", targets: ["AppSample"]),
        .executable(name: "docket-server-sample", targets: ["ServerSample"]),
        // Seed 003's Mastermind and seed 004's quiz do not use Docket, so they are no products of its package: `swift
        // run MastermindGame` and `swift run QuizTerminal` run them here.
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/Quick/Quick", from: "7.6.2"),
        .package(url: "https://github.com/Quick/Nimble", from: "13.8.0"),
        // `swift package generate-documentation --target Docket`: the library's DocC catalog (CI builds it).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // `docket mcp`: the Model Context Protocol server agents talk to.
        .package(url: "https://github.com/modelcontextprotocol/swift-sdk", from: "0.12.1"),
    ],
    targets: [
        // libgit2's headers; DocketCGitTransport links it.
        .systemLibrary(name: "DocketCGit2", providers: [.apt(["libgit2-dev"])]),
        .target(name: "DocketCSystem"),
        // Deflate, CRC-32 and SHA-1 for the pack files Docket writes and the index it reads itself: zlib, and
        // OpenSSL's libcrypto, which DocketCGitTransport links statically after libssh2 (an archive is searched once,
        // in order, so it is named there only).
        .target(name: "DocketCPackFile", dependencies: ["DocketCGitTransport"], linkerSettings: [.linkedLibrary("z")]),
        // The ssh/local-program transport, the https check for IP-address hosts, the deferred certificates and
        // the lazily loaded Kerberos, in C against libgit2's extension points.
        // NB: libgit2, libssh2 (with OpenSSL's libcrypto), http-parser and PCRE2 are linked statically (`-l:lib….a`):
        // loading them and resolving their symbols was about 2 ms of every command's start. mbedTLS stays shared, as
        // DeferredCertificates.c replaces one of its functions; Kerberos is loaded on first use (LazyKerberos.c).
        .target(
            name: "DocketCGitTransport",
            dependencies: ["DocketCGit2"],
            linkerSettings: [
                .linkedLibrary(":libgit2.a"), .linkedLibrary(":libssh2.a"), .linkedLibrary(":libcrypto.a"),
                .linkedLibrary(":libhttp_parser.a"), .linkedLibrary(":libpcre2-8.a"),
                .linkedLibrary("mbedtls"), .linkedLibrary("mbedx509"), .linkedLibrary("mbedcrypto"),
                .linkedLibrary("z"),
            ]
        ),
        .target(name: "DocketSystem", dependencies: ["DocketCSystem"]),
        .target(name: "DocketModel"),
        .target(name: "DocketMerge", dependencies: ["DocketModel"]),
        .target(
            name: "DocketGit", dependencies: ["DocketCGit2", "DocketCGitTransport", "DocketCPackFile", "DocketSystem"]),
        .target(name: "Docket", dependencies: ["DocketModel", "DocketMerge", "DocketGit", "DocketSystem"]),
        .target(name: "DocketMCP", dependencies: ["Docket", .product(name: "MCP", package: "swift-sdk")]),
        .executableTarget(
            name: "DocketCLI",
            dependencies: [
                "Docket", "DocketSystem",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/docket"
        ),
        // `docket mcp` runs this program beside docket: linking the MCP SDK (and with it Foundation's networking,
        // libcurl and some thirty libraries) into docket cost every command 6 ms at its start.
        .executableTarget(
            name: "DocketMCPServer", dependencies: ["Docket", "DocketModel", "DocketMCP"], path: "Sources/docket-mcp"),
        .executableTarget(name: "DocketBench", dependencies: ["Docket", "DocketSystem"]),
        // Samples: Docket used as a library, and seed 003's and 004's systems built in Docket's style.
        .executableTarget(name: "LibrarySample", dependencies: ["Docket"], path: "Samples/Library"),
        // An app's life: stores shared by tasks, synced and observed (Swift 6 mode, strict concurrency).
        .executableTarget(name: "AppSample", dependencies: ["Docket"], path: "Samples/App"),
        // An HTTP service on Docket with Foundation and sockets alone, and its load script (Samples/Server/load.py).
        .executableTarget(
            name: "ServerSample", dependencies: ["Docket"], path: "Samples/Server", exclude: ["load.py"]),
        .target(name: "Mastermind", path: "Samples/Mastermind/Model"),
        .executableTarget(name: "MastermindGame", dependencies: ["Mastermind"], path: "Samples/Mastermind/Game"),
        .target(name: "QuizFlow", path: "Samples/Quiz/Flow"),
        .executableTarget(name: "QuizTerminal", dependencies: ["QuizFlow"], path: "Samples/Quiz/Terminal"),
        .target(
            name: "DocketSpecSupport",
            dependencies: ["DocketModel", "Nimble"],
            path: "Tests/DocketSpecSupport",
            swiftSettings: specSettings
        ),
        .testTarget(
            name: "DocketModelSpecs",
            dependencies: ["DocketModel", "DocketSpecSupport", "Quick", "Nimble"],
            resources: [.copy("Fixtures")],
            swiftSettings: specSettings
        ),
        .testTarget(
            name: "DocketGitSpecs",
            dependencies: ["DocketGit", "DocketSpecSupport", "Quick", "Nimble"],
            swiftSettings: specSettings
        ),
        .testTarget(
            name: "DocketMergeSpecs",
            dependencies: ["DocketMerge", "DocketModel", "DocketSpecSupport", "Quick", "Nimble"],
            swiftSettings: specSettings
        ),
        .testTarget(
            name: "DocketSyncSpecs",
            dependencies: ["Docket", "DocketGit", "DocketSystem", "DocketSpecSupport", "Quick", "Nimble"],
            swiftSettings: specSettings
        ),
        .testTarget(
            name: "SampleSpecs",
            dependencies: ["Mastermind", "QuizFlow", "DocketSpecSupport", "Quick", "Nimble"],
            swiftSettings: specSettings
        ),
        .testTarget(
            name: "DocketSpecs",
            dependencies: ["Docket", "DocketSystem", "DocketSpecSupport", "Quick", "Nimble"],
            swiftSettings: specSettings
        ),
    ]
)
