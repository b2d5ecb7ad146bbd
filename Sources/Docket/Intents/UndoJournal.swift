import DocketModel
import DocketSystem
import Foundation

/// The undo journal: one file per change in `.git/docket/undo/`, named by a
/// sequence number (`0000000042.json`), so keeping a change writes one small
/// file and taking one back removes one. (It was one `undo.json` holding every
/// change, read and written whole by each command: 1 MiB of JSON cost an `add`
/// 50 ms.) A journal of that older form is taken in as the newest changes.
struct UndoJournal {
    static let folderName = "undo"
    static let legacyFile = "undo.json"
    /// The most the kept changes may weigh together; the oldest go first.
    static let totalLimit = 8 << 20

    /// One kept change's file.
    struct Page {
        let number: Int
        let size: Int
        var name: String { UndoJournal.name(of: number) }
    }

    /// `.git/docket/undo/`, and `.git/docket/` around it.
    let folder: Folder, parent: Folder

    /// The journal of `store`, its folder made when missing; refuses a folder that is a link or a file.
    init(_ store: Store) throws {
        parent = try StoreError.gate(writing: true) { try Folder.open(store.gitdir).makeFolder("docket") }
        do {
            folder = try parent.makeFolder(Self.folderName)
        } catch let problem as FileProblem {
            throw StoreError.state(
                .unreadableLocalFile(
                    path: parent.child(Self.folderName), reason: problem.description, advice: Self.fresh))
        }
    }

    /// The largest number a page is given (names stay at most 18 digits).
    static let largest = 999_999_999_999_999_998

    static func name(of number: Int) -> String {
        let digits = String(number)
        return String(repeating: "0", count: max(0, 10 - digits.count)) + digits + ".json"
    }

    /// The number a page's name holds; nil for any other name (a temporary file, something put there by hand).
    static func number(in name: String) -> Int? {
        guard name.hasSuffix(".json") else { return nil }
        let digits = name.dropLast(5)
        guard (1...18).contains(digits.utf8.count),
            digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        return Int(digits)
    }

    /// The kept changes' pages, oldest first.
    func pages() throws -> [Page] {
        let names = try StoreError.gate(writing: false) { try folder.allEntries() }
        return names.compactMap { name in
            Self.number(in: name).map { Page(number: $0, size: folder.status(name).map { Int($0.st_size) } ?? 0) }
        }.sorted { $0.number < $1.number }
    }

    /// The change a page holds.
    func read(_ page: Page) throws -> UndoEntry {
        let path = folder.child(page.name)
        do {
            return try DocketJSON.decode(UndoEntry.self, from: try folder.read(page.name, limit: Store.maximumFileSize))
        } catch let problem as FileProblem {
            throw StoreError.state(.unreadableLocalFile(path: path, reason: problem.description, advice: Self.pastIt))
        } catch {
            throw StoreError.state(.unreadableLocalFile(path: path, reason: decodingReason(error), advice: Self.pastIt))
        }
    }

    static let pastIt = "remove it, and undo goes on to the change before it"

    /// Keeps `entry` as the newest change and lets the oldest go past `Store.undoDepth`
    /// changes or `totalLimit` bytes; returns its page.
    @discardableResult
    func append(_ entry: UndoEntry) throws -> Page {
        var kept = try pages()
        if let last = kept.last, last.number >= Self.largest {
            // Numbered up to where the names stop reading (a page named so by hand): numbered again from 1, in order.
            for (index, page) in kept.enumerated() {
                renameat(folder.fd, page.name, folder.fd, Self.name(of: index + 1))
            }
            kept = try pages()
        }
        var data = try DocketJSON.encode(entry)
        if data.count > Store.maximumFileSize { data = try DocketJSON.encode(entry.withoutItems) }
        let page = Page(number: (kept.last?.number ?? 0) + 1, size: data.count)
        try StoreError.gate(writing: true) { try folder.write(data, to: page.name, durable: false) }
        kept.append(page)
        var total = kept.reduce(0) { $0 + $1.size }
        while kept.count > Store.undoDepth || (total > Self.totalLimit && kept.count > 1) {
            let oldest = kept.removeFirst()
            total -= oldest.size
            try? folder.remove(oldest.name)
        }
        removeAbandonedTemporaries()
        return page
    }

    func remove(_ page: Page) {
        try? folder.remove(page.name)
    }

    /// Temporary files of a docket killed while writing a page.
    private func removeAbandonedTemporaries() {
        for name in (try? folder.allEntries()) ?? [] where name.hasPrefix(AtomicFile.temporaryPrefix) {
            if let pid = AtomicFile.writer(ofTemporary: Substring(name)), !Spawn.isAlive(pid) {
                try? folder.remove(name)
            }
        }
    }

    /// Takes in a journal of the older form (`undo.json`, every change in one
    /// file) as the newest pages, then removes it. `strict` (for `undo`) says
    /// when it does not read; otherwise it is let go, as a journal that does
    /// not read always was, so it never stops a change.
    func takeInOlderForm(strict: Bool) throws {
        let path = parent.child(Self.legacyFile)
        let entries: [UndoEntry]
        do {
            entries = try DocketJSON.decode(
                [UndoEntry].self, from: try parent.read(Self.legacyFile, limit: Store.maximumFileSize))
        } catch FileProblem.missing {
            return
        } catch let problem as FileProblem {
            guard !strict else {
                throw StoreError.state(
                    .unreadableLocalFile(path: path, reason: problem.description, advice: Self.fresh))
            }
            entries = []
        } catch {
            guard !strict else {
                throw StoreError.state(
                    .unreadableLocalFile(path: path, reason: decodingReason(error), advice: Self.fresh))
            }
            entries = []
        }
        // NB: a docket killed between these pages and the removal takes them in again;
        // undoing such a copy finds its fields already put back and changes nothing.
        for entry in entries { try append(entry) }
        try StoreError.gate(writing: true) { try parent.remove(Self.legacyFile) }
    }

    static let fresh = "remove it to start a new undo history"
}
