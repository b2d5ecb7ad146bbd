import DocketModel
import Foundation

/// Slips merged by id: every slip either side has is kept; a stop set on one
/// side is kept; stops set on both follow the later-edit rule. Then at most
/// one slip runs: each earlier running slip stops where the next one starts.
func mergeSlips(base: [TimeSlip], ours: [TimeSlip], theirs: [TimeSlip], fields: inout FieldMerge) -> (
    [TimeSlip], [StoppedSlip]
) {
    let baseSlips = index(base)
    let theirsSlips = index(theirs)
    let stopField = TimeSlip.fields.first { $0.key == "stop" }!
    var slips: [TimeSlip] = []
    var seen = Set<UUID>()
    for os in ours {
        seen.insert(os.id)
        guard let ts = theirsSlips[os.id] else {
            slips.append(os)
            continue
        }
        let bs = baseSlips[os.id]
        var slip = os
        if !stopField.isSame(os, ts) {
            let side = fields.choose(
                .slipStop(os.id), baseIsOurs: bs.map { stopField.isSame($0, os) },
                baseIsTheirs: bs.map { stopField.isSame($0, ts) },
                ours: stopField.text(of: os), theirs: stopField.text(of: ts))
            if side == .theirs { slip = stopField.copy(from: ts, into: slip) }
        }
        let start = os.start.docketMilliseconds <= ts.start.docketMilliseconds ? os.start : ts.start
        slips.append(TimeSlip(id: os.id, start: start, stop: slip.stop))
    }
    slips += theirs.filter { !seen.contains($0.id) }
    slips.sort { ($0.start.docketMilliseconds, $0.id.uuidString) < ($1.start.docketMilliseconds, $1.id.uuidString) }

    var stopped: [StoppedSlip] = []
    let running = slips.indices.filter { slips[$0].isRunning }
    for (index, next) in zip(running, running.dropFirst()) {
        let stop = slips[next].start
        slips[index] = TimeSlip(id: slips[index].id, start: slips[index].start, stop: stop)
        stopped.append(StoppedSlip(slipID: slips[index].id, stop: stop))
    }
    return (slips, stopped)
}
