import Docket
import Foundation

/// Merging two states of `size` todos (plus projects with tasks and slips),
/// `changes` edits on each side, a tenth of them to the same items.
struct MergeBenchmark {
    let size: Int
    let changes: Int
    let runs: Int

    func run() {
        var rng = BenchRandom(seed: 42)
        let start = Date(timeIntervalSince1970: 1_795_339_800)
        let todos = (0..<size).map { i in
            TodoItem(
                id: rng.uuid(), text: rng.sentence(), creationDate: start.addingTimeInterval(Double(i)),
                completed: rng.chance(0.3), dueDate: rng.chance(0.2) ? start.addingTimeInterval(86_400 * 7) : nil,
                alterDate: nil)
        }
        let projects = (0..<20).map { p in
            Project(
                id: rng.uuid(), title: "Project \(p)",
                tasks: (0..<25).map { _ in
                    ProjectTask(
                        id: rng.uuid(), title: rng.sentence(), dueDate: .unknown, state: .unfinished,
                        timeSlips: [TimeSlip(id: rng.uuid(), start: start, stop: start.addingTimeInterval(3600))],
                        alterDate: nil)
                }, alterDate: nil)
        }
        let base = AppState(todos: todos, projects: projects, removed: [])

        // Ours edits todos 0..<changes; theirs edits the last tenth of those and changes-minus-that new ones.
        let shared = changes / 10
        func edited(_ indices: some Sequence<Int>, text: String, seconds: Double) -> AppState {
            var byIndex = todos
            for i in indices {
                let t = byIndex[i]
                byIndex[i] = TodoItem(
                    id: t.id, text: "\(text) \(t.text)", creationDate: t.creationDate, completed: !t.completed,
                    dueDate: t.dueDate, alterDate: start.addingTimeInterval(seconds + Double(i)))
            }
            return AppState(todos: byIndex, projects: projects, removed: [])
        }
        let ours = edited(0..<changes, text: "ours", seconds: 10_000)
        let theirs = edited((changes - shared)..<(2 * changes - shared), text: "theirs", seconds: 20_000)

        var times: [Double] = []
        var result: MergeResult?
        for _ in 0..<runs {
            let began = DispatchTime.now().uptimeNanoseconds
            result = merge(base: base, ours: ours, theirs: theirs)
            times.append(Double(DispatchTime.now().uptimeNanoseconds - began) / 1e6)
        }
        times.sort()
        let median = times[times.count / 2]
        print(
            "merge of \(size) todos + \(projects.count * 25) tasks, \(changes) + \(changes) changes (\(shared) on both sides):"
        )
        print(
            String(
                format: "  median %.1f ms over %d runs (min %.1f, max %.1f)", median, runs, times.first!, times.last!))
        print("  \(result!.report.items.count) items needed a decision; \(result!.state.todos.count) todos merged")
    }
}

/// A seeded generator of benchmark data: realistic text lengths, fixed output.
struct BenchRandom {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func chance(_ p: Double) -> Bool { Double(next() % 1_000_000) / 1_000_000 < p }

    mutating func uuid() -> UUID {
        let a = next()
        let b = next()
        var t = (
            UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0),
            UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0)
        )
        withUnsafeMutableBytes(of: &t) { raw in
            for i in 0..<8 {
                raw[i] = UInt8(truncatingIfNeeded: a >> (8 * UInt64(i)))
                raw[8 + i] = UInt8(truncatingIfNeeded: b >> (8 * UInt64(i)))
            }
            raw[6] = (raw[6] & 0x0F) | 0x40
            raw[8] = (raw[8] & 0x3F) | 0x80
        }
        return UUID(uuid: t)
    }

    static let words = [
        "buy", "milk", "call", "Anna", "about", "the", "party", "fix", "bike", "tyre", "book", "flights",
        "to", "Lisbon", "pay", "rent", "water", "plants", "review", "pull", "request", "for", "Docket",
        "send", "invoice", "dentist", "appointment", "on", "Tuesday", "renew", "passport",
    ]

    /// Three to twelve words: the length of a typical todo.
    mutating func sentence() -> String {
        let count = 3 + Int(next() % 10)
        return (0..<count).map { _ in Self.words[Int(next() % UInt64(Self.words.count))] }.joined(separator: " ")
    }
}
