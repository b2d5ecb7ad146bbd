import CGit2
import Foundation

/// A configured remote.
public struct RemoteInfo: Equatable, Sendable {
    /// The remote's name, such as origin.
    public let name: String
    /// Its URL or path.
    public let url: String
}

extension Repository {
    /// The configured remotes.
    public func remotes() throws -> [RemoteInfo] {
        var names = git_strarray()
        try check(git_remote_list(&names, pointer), "git_remote_list")
        defer { git_strarray_dispose(&names) }
        return try (0..<names.count).compactMap { index in
            guard let name = names.strings[index].map({ String(cString: $0) }) else { return nil }
            return RemoteInfo(name: name, url: try remoteURL(name))
        }
    }

    /// The URL of a remote.
    public func remoteURL(_ name: String) throws -> String {
        try withRemote(name) { String(cString: git_remote_url($0)) }
    }

    /// Adds a remote with git's default fetch refspec.
    public func addRemote(_ name: String, url: String) throws {
        var remote: OpaquePointer?
        try check(git_remote_create(&remote, pointer, name, url), "git_remote_create")
        git_remote_free(remote)
    }

    /// Removes a remote and its remote-tracking references.
    public func removeRemote(_ name: String) throws {
        try check(git_remote_delete(pointer, name), "git_remote_delete")
    }

    func withRemote<T>(_ name: String, _ body: (OpaquePointer) throws -> T) throws -> T {
        var remote: OpaquePointer?
        try check(git_remote_lookup(&remote, pointer, name), "git_remote_lookup")
        defer { git_remote_free(remote) }
        return try body(remote!)
    }
}
