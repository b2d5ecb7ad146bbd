import DocketCGit2
import Foundation

// The working tree's files as git reads and writes them: through the filters
// its attributes and settings put between a file and its blob (line endings:
// `core.autocrlf`, `core.eol`, the `text`, `eol` and `crlf` attributes; `ident`).
// A file checked out with CRLF by a peer's `* text eol=crlf` is unchanged to
// git while it cleans to its blob; so it is here.
extension Repository {
    /// Whether any of git's filters could apply to one of these paths (see `mayFilter`);
    /// when none can, a file's blob is its bytes as they are.
    public func filtersMayApply(to paths: [String]) throws -> Bool { try mayFilter(paths) }

    /// The id the blob of a working-tree file at `path` holding `data` would have, as `git add`
    /// would write it: after the filters git applies on the way into the repository.
    public func blobID(ofWorkingTreeBytes data: Data, at path: String) throws -> ObjectID {
        try Self.blobID(of: filtered(data, at: path, toRepository: true))
    }

    /// What git's checkout writes at `path` for a blob holding `data`: the blob after the filters git
    /// applies on the way out of the repository (CRLF line endings where the attributes ask for them).
    public func workingTreeBytes(ofBlob data: Data, at path: String) throws -> Data {
        try filtered(data, at: path, toRepository: false)
    }

    /// `data` through the filters for `path` in one direction; as it is when none applies.
    private func filtered(_ data: Data, at path: String, toRepository: Bool) throws -> Data {
        var filters: OpaquePointer?
        // NB: git warns about an irreversible conversion (`core.safecrlf`) and goes on; so does this.
        try check(
            git_filter_list_load(
                &filters, pointer, nil, path, toRepository ? GIT_FILTER_TO_ODB : GIT_FILTER_TO_WORKTREE,
                GIT_FILTER_ALLOW_UNSAFE.rawValue), "git_filter_list_load")
        guard let filters else { return data }
        defer { git_filter_list_free(filters) }
        var out = git_buf()
        defer { git_buf_dispose(&out) }
        // An empty file has no bytes to point at: one zero byte stands in, none of it read.
        let bytes = data.isEmpty ? Data([0]) : data
        _ = try bytes.withUnsafeBytes { raw in
            try check(
                git_filter_list_apply_to_buffer(
                    &out, filters, raw.baseAddress!.assumingMemoryBound(to: CChar.self), data.count),
                "git_filter_list_apply_to_buffer")
        }
        guard let bytes = out.ptr else { return Data() }
        return Data(bytes: bytes, count: out.size)
    }
}
