import Docket
import Foundation

/// Times opening a store and loading every item into an `AppState`, the
/// library call every whole-store command starts from.
struct LoadBenchmark {
    let folder: URL
    let runs: Int

    func run() throws {
        var times: [Double] = []
        var count = 0
        for _ in 0..<max(1, runs) {
            let began = DispatchTime.now().uptimeNanoseconds
            let snapshot = try Store.open(at: folder).load()
            times.append(Double(DispatchTime.now().uptimeNanoseconds - began) / 1e6)
            count = snapshot.state.todos.count + snapshot.state.projects.reduce(0) { $0 + 1 + $1.tasks.count }
        }
        let median = times.sorted()[times.count / 2]
        print(String(format: "load %d items: median %.1f ms of %d runs", count, median, times.count))
    }
}
