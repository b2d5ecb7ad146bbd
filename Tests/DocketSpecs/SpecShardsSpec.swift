import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// How scripts/test splits the specs between its shards: by the last run's times, so both end together.
final class SpecShardsSpec: QuickSpec {
    override class func spec() {
        describe("splitting the specs by their last times") {
            it("runs every spec in exactly one shard, in the listed order, the same way each time it is asked") {
                forAll(300) { g in
                    let names = (0..<Int.random(in: 0...40, using: &g)).map { "Spec\($0)" }
                    var times: [String: Double] = [:]
                    for name in names where Bool.random(using: &g) {
                        times[name] = Double.random(in: 0...60, using: &g)
                    }
                    let count = Int.random(in: 1...4, using: &g)
                    let shards = (0..<count).map { SpecShards.shard(names, times: times, index: $0, count: count) }
                    let again = (0..<count).map { SpecShards.shard(names, times: times, index: $0, count: count) }
                    if shards != again { return "asked twice, split two ways" }
                    if shards.flatMap({ $0 }).sorted() != names.sorted() { return "not every spec once: \(shards)" }
                    for shard in shards where shard != names.filter(shard.contains) { return "out of order: \(shard)" }
                    return nil
                }
            }

            it("ends the shards within the longest spec of each other") {
                forAll(300) { g in
                    let names = (0..<Int.random(in: 1...60, using: &g)).map { "Spec\($0)" }
                    let times = Dictionary(
                        uniqueKeysWithValues: names.map { ($0, Double.random(in: 0.01...90, using: &g)) })
                    let count = Int.random(in: 2...3, using: &g)
                    let loads = (0..<count).map { index in
                        SpecShards.shard(names, times: times, index: index, count: count).reduce(0) { $0 + times[$1]! }
                    }
                    let longest = times.values.max()!
                    return loads.max()! - loads.min()! <= longest + 1e-9 ? nil : "loads \(loads), longest \(longest)"
                }
            }

            it("balances two long specs that every second spec would put in one shard") {
                let names = ["Long1", "Short1", "Long2", "Short2"]
                let times = ["Long1": 200.0, "Short1": 1, "Long2": 180, "Short2": 2]
                expect(SpecShards.shard(names, times: times, index: 0, count: 2)) == ["Long1"]
                expect(SpecShards.shard(names, times: times, index: 1, count: 2)) == ["Short1", "Long2", "Short2"]
            }

            it("counts a spec the times do not name as the median of those they do") {
                let names = ["New", "A", "B", "C"]
                let times = ["A": 10.0, "B": 10, "C": 30]
                // New counts 10 s: C (30) alone in one shard, A, B and New (30) in the other.
                expect(SpecShards.shard(names, times: times, index: 0, count: 2)) == ["C"]
                expect(SpecShards.shard(names, times: times, index: 1, count: 2)) == ["New", "A", "B"]
            }
        }

        describe("the times file") {
            it("reads a name and its seconds per line, and leaves out lines that do not read so") {
                let text = "StoreSpec\t12.5\nbroken line\nSyncSpec\tNaN\nMergeSpec\t-1\nGitSpec\t3\nStoreSpec\t13\n"
                expect(SpecShards.times(text)) == ["StoreSpec": 13, "GitSpec": 3]
            }
        }
    }
}
