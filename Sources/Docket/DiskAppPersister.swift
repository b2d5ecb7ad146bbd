import DocketModel
import DocketSystem
import Foundation

/// Saves an `AppState` as one JSON file.
///
/// The file is `pathInDocuments` inside `baseDirectory`, which defaults to
/// `~/Documents` when that folder exists, and otherwise to Docket's XDG data
/// folder, `$XDG_DATA_HOME/docket` (`~/.local/share/docket`), created on first save.
///
/// A file that does not decode is never replaced silently: loading reports it
/// in `lastError` and gives an empty state, and the next save first moves the
/// unreadable file aside to `<name>.corrupt-<date>` so nothing is lost.
public final class DiskAppPersister: AppPersisting {
    /// Why loading or saving failed.
    public enum Failure: Error, CustomStringConvertible, Equatable {
        /// The file exists but does not decode.
        case unreadable(path: String, reason: String)
        /// The file could not be written.
        case unwritable(path: String, reason: String)
        /// An unreadable file was moved aside before saving over it.
        case movedAside(path: String, to: String)

        public var description: String {
            switch self {
            case let .unreadable(path, reason):
                "\(path) is not a Docket state file (\(reason)); it is kept, and the next save moves it aside"
            case let .unwritable(path, reason):
                "could not save \(path): \(reason)"
            case let .movedAside(path, to):
                "\(path) did not decode, so it was moved to \(to) before saving"
            }
        }
    }

    /// The file the state is saved in.
    public let fileURL: URL
    /// What went wrong last, if anything; cleared by a successful load or save.
    public private(set) var lastError: Failure?

    private let fileManager: FileManager
    private var unreadableFileFound = false

    /// A persister of the file `pathInDocuments` in `baseDirectory` (see the type's notes for the default).
    public init(pathInDocuments: String = "state.json", fileManager: FileManager = .default, baseDirectory: URL? = nil)
    {
        self.fileManager = fileManager
        self.fileURL = (baseDirectory ?? DiskAppPersister.defaultBaseDirectory(fileManager))
            .appendingPathComponent(pathInDocuments)
    }

    /// `~/Documents` when it exists, else `$XDG_DATA_HOME/docket`, else `~/.local/share/docket`.
    public static func defaultBaseDirectory(_ fileManager: FileManager = .default) -> URL {
        let home = Home.folder
        let documents = home.appendingPathComponent("Documents")
        var isFolder: ObjCBool = false
        if fileManager.fileExists(atPath: documents.path, isDirectory: &isFolder), isFolder.boolValue {
            return documents
        }
        if let xdg = ProcessInfo.processInfo.environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg).appendingPathComponent("docket")
        }
        return home.appendingPathComponent(".local/share/docket")
    }

    /// The saved state; a missing file is an empty state. Throws when the file does not decode.
    public func load() throws -> AppState {
        let data: Data
        do {
            data = try Data(contentsOf: fileURL)
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
            unreadableFileFound = false
            return AppState()
        } catch {
            unreadableFileFound = true
            throw Failure.unreadable(path: fileURL.path, reason: error.localizedDescription)
        }
        do {
            let state = try DocketJSON.decode(AppState.self, from: data)
            unreadableFileFound = false
            return state
        } catch {
            unreadableFileFound = true
            throw Failure.unreadable(path: fileURL.path, reason: decodingReason(error))
        }
    }

    /// Saves the state atomically; an unreadable file found by `load` is moved aside first.
    public func save(_ state: AppState) throws {
        do {
            try fileManager.createDirectory(at: fileURL.deletingLastPathComponent(), withIntermediateDirectories: true)
            var movedAside: Failure?
            if unreadableFileFound, fileManager.fileExists(atPath: fileURL.path) {
                let stem = fileURL.path + ".corrupt-" + ISODate.string(from: DocketClock.now)
                var aside = stem
                var attempt = 1
                while fileManager.fileExists(atPath: aside) {
                    attempt += 1
                    aside = stem + "-\(attempt)"
                }
                try fileManager.moveItem(atPath: fileURL.path, toPath: aside)
                movedAside = .movedAside(path: fileURL.path, to: aside)
            }
            unreadableFileFound = false
            try DocketJSON.encode(state).write(to: fileURL, options: .atomic)
            lastError = movedAside
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure.unwritable(path: fileURL.path, reason: error.localizedDescription)
        }
    }

    public func loadAppState() -> AppState {
        do {
            let state = try load()
            lastError = nil
            return state
        } catch {
            lastError = error as? Failure
            return AppState()
        }
    }

    public func persist(appState: AppState) {
        do {
            try save(appState)
        } catch {
            lastError = error as? Failure
        }
    }

    public func destroy() {
        try? fileManager.removeItem(at: fileURL)
    }
}
