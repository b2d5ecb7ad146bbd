import DocketSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

// A status that asks the change monitor (see `ChangeMonitor`) where changes
// can be, and lists only those folders.
//
// NB: what the last monitored status saw is noted in `.git/docket/monitor-scan`:
// the monitor's token taken before it looked, the index it compared with, and
// the folders holding a file not as its index entry says. The next status
// trusts every other file's index entry only while the index is still that
// one (or one Docket wrote from it, see `writeIndex`) and the monitor answers
// for that token; anything else is a full scan, which notes afresh.
extension Repository {
    /// What a monitored status noted.
    struct MonitorNote: Equatable {
        var token: MonitorToken
        /// The index file's checksum.
        var index: [UInt8]
        /// The folders the status looked under.
        var folders: [String]
        /// The folders holding a file not as its index entry says.
        var dirty: Set<String>
    }

    var monitorNotePath: String { gitdir + "docket/monitor-scan" }

    /// The note, when it reads as `noteMonitorScan` writes it.
    func monitorNote() -> MonitorNote? {
        guard let data = try? Folder.readFile(monitorNotePath, limit: 1 << 26) else { return nil }
        let parts = data.split(separator: 0, omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
        guard parts.count >= 5, parts[0] == "docket-monitor-scan 1", let token = MonitorToken(Substring(parts[1])),
            let index = ObjectID(hex: parts[2]), parts.last == ""
        else { return nil }
        return MonitorNote(
            token: token, index: index.bytes, folders: parts[3].split(separator: "/").map(String.init),
            dirty: Set(parts[4..<(parts.count - 1)]))
    }

    /// Writes the note, or removes it (nil), so the next monitored status looks everywhere.
    func noteMonitorScan(_ note: MonitorNote?) {
        guard let note else {
            unlink(monitorNotePath)
            return
        }
        let parts =
            [
                "docket-monitor-scan 1", note.token.description, Hex.encode(note.index),
                note.folders.joined(separator: "/"),
            ]
            + note.dirty.sorted()
        try? AtomicFile.write(Data(parts.map { $0 + "\0" }.joined().utf8), to: monitorNotePath, durable: false)
    }

    /// `scanWorkdir`, asking the change monitor first where changes can be.
    func monitoredScan(_ index: IndexFile, under folders: [String], alwaysTracked: (String) -> Bool) throws
        -> StatusReport?
    {
        let note = monitorNote()
        let since = note.flatMap { $0.index == index.checksum && $0.folders == folders ? $0 : nil }
        guard let answer = ChangeMonitor.ask(in: gitdir + "docket", since: since?.token) else {
            noteMonitorScan(nil)
            startChangeMonitor?()
            return try scanWorkdir(index, under: folders, alwaysTracked: alwaysTracked).map {
                StatusReport(entries: $0.changes, stale: $0.stale)
            }
        }
        var scope: ScanScope?
        var now: MonitorToken
        switch answer {
        case let .unknown(token):
            now = token
        case let .changed(token, changed, subtrees):
            now = token
            if let since { scope = ScanScope(folders: since.dirty.union(changed), subtrees: subtrees) }
        }
        guard let scan = try scanWorkdir(index, under: folders, alwaysTracked: alwaysTracked, scope: scope) else {
            noteMonitorScan(nil)
            return nil
        }
        let next = MonitorNote(token: now, index: index.checksum, folders: folders, dirty: scan.dirtyFolders)
        if next != note { noteMonitorScan(next) }
        return StatusReport(entries: scan.changes, stale: scan.stale)
    }

    /// After Docket wrote a new index from `old` with `paths` changed: the
    /// note, if it was of `old`, now is of `new`, with those paths' folders listed next time.
    func carryMonitorNote(from old: [UInt8], to new: [UInt8], changing paths: [String]) {
        guard var note = monitorNote() else { return }
        guard note.index == old else { return noteMonitorScan(nil) }
        note.index = new
        for path in paths { note.dirty.insert(Self.folder(of: path)) }
        noteMonitorScan(note)
    }
}
