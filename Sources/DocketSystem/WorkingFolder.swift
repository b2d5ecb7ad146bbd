import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The process's working folder, however long its path.
///
/// NB: Foundation on Linux reads it into a buffer of 1,024 bytes and, past
/// that, answers with an empty path, so a store deeper than that read as
/// "./.git/docket" and `docket list` failed there.
public enum WorkingFolder {
    /// The working folder's absolute path; Foundation's answer when the system has none (the folder was removed).
    public static var path: String {
        // NB: glibc allocates a buffer as long as the path needs when given none.
        guard let buffer = getcwd(nil, 0) else { return FileManager.default.currentDirectoryPath }
        defer { free(buffer) }
        return String(cString: buffer)
    }

    /// The working folder as a file URL.
    public static var url: URL { URL(fileURLWithPath: path, isDirectory: true) }
}
