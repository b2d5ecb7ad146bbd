import Foundation

/// Docket's benchmarks: programs that print figures (never timed tests).
///
///     swift run -c release docket-bench generate <dir> [--size N] [--no-commit] [--lived-in [--open-only]]
///     swift run -c release docket-bench load <dir> [--runs N]
///     swift run -c release docket-bench merge [--size N] [--changes N] [--runs N]
///     swift run -c release docket-bench changes [--size N] [--runs N] [--poll S] [--docket PATH]
///     swift run -c release docket-bench observed [--size N] [--runs N] [--listeners N] [--pause MS]
@main
struct DocketBench {
    static func main() {
        var arguments = Array(CommandLine.arguments.dropFirst())
        let command = arguments.isEmpty ? "merge" : arguments.removeFirst()
        func option(_ name: String, _ fallback: Int) -> Int {
            guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count, let value = Int(arguments[i + 1])
            else { return fallback }
            return value
        }
        switch command {
        case "generate":
            let folder = arguments.first { !$0.hasPrefix("--") && Int($0) == nil } ?? "docket-bench-store"
            do {
                try Generate(
                    size: option("--size", 10_000), folder: URL(fileURLWithPath: folder),
                    commit: !arguments.contains("--no-commit"), livedIn: arguments.contains("--lived-in"),
                    openOnly: arguments.contains("--open-only")
                ).run()
            } catch {
                FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
                exit(1)
            }
        case "load":
            let folder = arguments.first { !$0.hasPrefix("--") && Int($0) == nil } ?? "docket-bench-store"
            do {
                try LoadBenchmark(folder: URL(fileURLWithPath: folder), runs: option("--runs", 3)).run()
            } catch {
                FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
                exit(1)
            }
        case "grow":
            let folder = arguments.first { !$0.hasPrefix("--") && Int($0) == nil } ?? "docket-bench-store"
            do {
                try Grow(
                    count: option("--add", 1000), folder: URL(fileURLWithPath: folder),
                    seed: UInt64(option("--seed", 7))
                ).run()
            } catch {
                FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
                exit(1)
            }
        case "changes":
            let docket =
                arguments.firstIndex(of: "--docket").map { arguments[$0 + 1] }
                ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
                .appendingPathComponent("docket").path
            let benchmark = ChangesBenchmark(
                size: option("--size", 1000), runs: option("--runs", 20), poll: Double(option("--poll", 1)),
                docket: docket)
            let done = DispatchSemaphore(value: 0)
            Task.detached {
                do {
                    try await benchmark.run()
                } catch {
                    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
                    exit(1)
                }
                done.signal()
            }
            done.wait()
        case "observed":
            let benchmark = ObservedBenchmark(
                size: option("--size", 2000), runs: option("--runs", 50), listeners: option("--listeners", 1),
                pause: option("--pause", 20))
            let done = DispatchSemaphore(value: 0)
            Task.detached {
                do {
                    try await benchmark.run()
                } catch {
                    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
                    exit(1)
                }
                done.signal()
            }
            done.wait()
        case "merge":
            MergeBenchmark(
                size: option("--size", 100_000), changes: option("--changes", 1000), runs: option("--runs", 5)
            ).run()
        default:
            FileHandle.standardError.write(
                Data(
                    "usage: docket-bench generate <dir> [--size N] [--no-commit] [--lived-in [--open-only]] | load <dir> [--runs N] | merge [--size N] [--changes N] [--runs N] | grow <dir> [--add N] [--seed N] | changes [--size N] [--runs N] [--poll S] | observed [--size N] [--runs N] [--listeners N] [--pause MS]\n"
                        .utf8))
            exit(64)
        }
    }
}
