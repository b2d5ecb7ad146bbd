import Foundation
import XCTest

/// How `scripts/test` splits the specs between its shards: by the time each spec took in the last run, so the
/// shards end together, not by taking every second spec.
public enum SpecShards {
    /// The specs of shard `index` (0-based) of `count`, in the order given: each spec goes, longest first, to the
    /// shard with the least time so far (ties to the lowest shard). A spec the times do not name counts as the median
    /// of the named ones (1 s when none is named). The same names and times give every shard the same answer.
    public static func shard(_ names: [String], times: [String: Double], index: Int, count: Int) -> [String] {
        guard count > 1 else { return names }
        let known = times.values.sorted()
        let unknown = known.isEmpty ? 1 : known[known.count / 2]
        let weighed = names.enumerated().map {
            (offset: $0.offset, name: $0.element, time: times[$0.element] ?? unknown)
        }
        var loads = [Double](repeating: 0, count: count)
        var chosen = Set<Int>()
        for spec in weighed.sorted(by: { $0.time != $1.time ? $0.time > $1.time : $0.offset < $1.offset }) {
            let lightest = loads.indices.min { loads[$0] != loads[$1] ? loads[$0] < loads[$1] : $0 < $1 }!
            loads[lightest] += spec.time
            if lightest == index { chosen.insert(spec.offset) }
        }
        return weighed.filter { chosen.contains($0.offset) }.map(\.name)
    }

    /// Times as `scripts/test` keeps them: a line per spec, its name, a tab and its seconds. Lines that do not read
    /// so are left out; a name given twice keeps its last time.
    public static func times(_ text: String) -> [String: Double] {
        var times: [String: Double] = [:]
        for line in text.split(whereSeparator: \.isNewline) {
            let fields = line.split(separator: "\t")
            guard fields.count == 2, let seconds = Double(fields[1]), seconds.isFinite, seconds >= 0 else { continue }
            times[String(fields[0])] = seconds
        }
        return times
    }

    /// The times of `specs`, the specs this process runs in the order it runs them, written to `path` as each ends
    /// (so a killed run keeps what it measured).
    public static func record(_ specs: [String], to path: String) {
        XCTestObservationCenter.shared.addTestObserver(SpecTimeRecorder(specs: specs, path: path))
    }
}

/// Writes a line to its file as each spec's suite ends. XCTest on Linux names every Quick spec's suite and example
/// class `QuickSpec`, so a spec is told by its place: Quick gives XCTest one suite per spec, in the order listed.
private final class SpecTimeRecorder: NSObject, XCTestObservation {
    let specs: [String]
    let path: String
    var ended = 0

    init(specs: [String], path: String) {
        self.specs = specs
        self.path = path
        FileManager.default.createFile(atPath: path, contents: nil)
    }

    func testSuiteDidFinish(_ testSuite: XCTestSuite) {
        // The suites around the specs': all tests, and the bundle's.
        guard !testSuite.tests.contains(where: { $0 is XCTestSuite }), testSuite.name != "All tests",
            !testSuite.name.hasSuffix(".xctest"), let run = testSuite.testRun, ended < specs.count
        else { return }
        let line = "\(specs[ended])\t\(String(format: "%.3f", run.totalDuration))\n"
        ended += 1
        guard let file = FileHandle(forWritingAtPath: path) else { return }
        defer { try? file.close() }
        _ = try? file.seekToEnd()
        try? file.write(contentsOf: Data(line.utf8))
    }
}
