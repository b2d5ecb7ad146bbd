import DocketSystem
import Foundation

// Files of this machine's own in `.git/docket/`: never committed, never in
// /tmp where another user could lay a link. Read like store files (no link,
// a size limit) and written in one step, so a killed docket leaves the old
// file or the new one.
extension Store {
    /// The path of a file of this machine's own in `.git/docket/`, the folder made when missing.
    package func localFile(_ name: String) throws -> URL {
        let folder = URL(fileURLWithPath: gitdir + "docket", isDirectory: true)
        try StoreError.gate(writing: true) {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        return folder.appendingPathComponent(name)
    }

    /// The text of a local file; nil when there is none.
    package func localText(_ name: String) throws -> String? {
        let path = try localFile(name).path
        do {
            return String(decoding: try Folder.readFile(path, limit: Store.maximumFileSize), as: UTF8.self)
        } catch FileProblem.missing {
            return nil
        } catch let problem as FileProblem {
            throw StoreError.io(.read(path: path, reason: problem.description))
        }
    }

    /// Writes a local file in one step.
    package func writeLocalText(_ text: String, to name: String) throws {
        let path = try localFile(name).path
        try StoreError.gate(writing: true) { try AtomicFile.write(Data(text.utf8), to: path, durable: false) }
    }

    /// Removes a local file, if it is there.
    package func removeLocalFile(_ name: String) {
        try? FileManager.default.removeItem(at: URL(fileURLWithPath: gitdir + "docket/" + name))
    }
}
