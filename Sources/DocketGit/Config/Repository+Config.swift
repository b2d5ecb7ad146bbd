import DocketCGit2
import DocketSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension Repository {
    /// A configuration value (repository, then user, then system); nil when unset.
    public func configString(_ name: String) throws -> String? {
        var config: OpaquePointer?
        try check(git_repository_config_snapshot(&config, pointer), "git_repository_config_snapshot")
        defer { git_config_free(config) }
        var value: UnsafePointer<CChar>?
        let code = git_config_get_string(&value, config, name)
        if code == GIT_ENOTFOUND.rawValue { return nil }
        try check(code, "git_config_get_string")
        return value.map { String(cString: $0) }
    }

    /// Every value a configuration key has (a multivar such as `remote.<name>.pushurl`), in the order git reads them.
    public func configValues(_ name: String) throws -> [String] {
        var config: OpaquePointer?
        try check(git_repository_config_snapshot(&config, pointer), "git_repository_config_snapshot")
        defer { git_config_free(config) }
        var iterator: OpaquePointer?
        try check(git_config_multivar_iterator_new(&iterator, config, name, nil), "git_config_multivar_iterator_new")
        defer { git_config_iterator_free(iterator) }
        var values: [String] = []
        var entry: UnsafeMutablePointer<git_config_entry>?
        while git_config_next(&entry, iterator) == 0, let value = entry?.pointee.value {
            values.append(String(cString: value))
        }
        return values
    }

    /// A yes/no configuration value; nil when unset.
    public func configBool(_ name: String) throws -> Bool? {
        var config: OpaquePointer?
        try check(git_repository_config_snapshot(&config, pointer), "git_repository_config_snapshot")
        defer { git_config_free(config) }
        var value: Int32 = 0
        let code = git_config_get_bool(&value, config, name)
        if code == GIT_ENOTFOUND.rawValue { return nil }
        try check(code, "git_config_get_bool")
        return value != 0
    }

    /// A whole-number configuration value, read as git reads one (`10k` is 10,240); nil when unset.
    public func configInt(_ name: String) throws -> Int? {
        var config: OpaquePointer?
        try check(git_repository_config_snapshot(&config, pointer), "git_repository_config_snapshot")
        defer { git_config_free(config) }
        var value: Int64 = 0
        let code = git_config_get_int64(&value, config, name)
        if code == GIT_ENOTFOUND.rawValue { return nil }
        try check(code, "git_config_get_int64")
        return Int(value)
    }

    /// Sets a value in the repository's own configuration.
    public func setConfig(_ name: String, to value: String) throws {
        var config: OpaquePointer?
        try check(git_repository_config(&config, pointer), "git_repository_config")
        defer { git_config_free(config) }
        try check(git_config_set_string(config, name, value), "git_config_set_string")
    }

    /// Makes `value` the only value of a multi-valued variable in the repository's own configuration (as
    /// `git config --replace-all` does).
    public func setConfigValues(_ name: String, to value: String) throws {
        var config: OpaquePointer?
        try check(git_repository_config(&config, pointer), "git_repository_config")
        defer { git_config_free(config) }
        try check(git_config_set_multivar(config, name, ".*", value), "git_config_set_multivar")
    }

    /// The branches the repository's own configuration (`.git/config`) has values for, as `[branch "<name>"]`.
    public func configuredBranches() throws -> Set<String> {
        Set(try localBranchEntries().map(\.branch))
    }

    /// Takes `[branch "<name>"]` out of the repository's own configuration, as `git config --remove-section`
    /// does: its values through libgit2, then the header libgit2 leaves behind (it removes values, never a
    /// section), under git's lock as git would take it; the empty header stays while someone holds that lock.
    public func removeBranchConfig(_ name: String) throws {
        var config: OpaquePointer?
        try check(git_repository_config(&config, pointer), "git_repository_config")
        defer { git_config_free(config) }
        var local: OpaquePointer?
        try check(git_config_open_level(&local, config, GIT_CONFIG_LEVEL_LOCAL), "git_config_open_level")
        defer { git_config_free(local) }
        for entry in try localBranchEntries() where entry.branch == name {
            try check(git_config_delete_multivar(local, entry.key, ".*"), "git_config_delete_multivar")
        }
        try dropEmptyHeader(of: name, in: commonDir + "config")
    }

    /// Each value of the own configuration under `branch.`: its key, and the branch it is for.
    private func localBranchEntries() throws -> [(key: String, branch: String)] {
        var config: OpaquePointer?
        try check(git_repository_config_snapshot(&config, pointer), "git_repository_config_snapshot")
        defer { git_config_free(config) }
        var local: OpaquePointer?
        try check(git_config_open_level(&local, config, GIT_CONFIG_LEVEL_LOCAL), "git_config_open_level")
        defer { git_config_free(local) }
        var iterator: OpaquePointer?
        try check(git_config_iterator_glob_new(&iterator, local, "^branch\\."), "git_config_iterator_glob_new")
        defer { git_config_iterator_free(iterator) }
        var entries: [(String, String)] = []
        var entry: UnsafeMutablePointer<git_config_entry>?
        while git_config_next(&entry, iterator) == 0, let entry {
            // "branch.<name>.<variable>": a branch's name may hold dots, a variable's may not.
            let key = String(cString: entry.pointee.name)
            let rest = key.dropFirst("branch.".count)
            if let dot = rest.lastIndex(of: ".") { entries.append((key, String(rest[..<dot]))) }
        }
        return entries
    }

    /// Removes the header line `[branch "<name>"]` from the configuration file at `path` where no value
    /// follows it before the next section, writing the file under `config.lock` as git does.
    private func dropEmptyHeader(of name: String, in path: String) throws {
        // NB: read without following a link, within a limit: a linked or oversized configuration is left as it is.
        guard let data = try? Folder.readFile(path, limit: 1 << 20) else { return }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let quoted =
            "\"" + name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        func isHeader(_ line: Substring) -> Bool {
            let text = line.trimmingCharacters(in: .whitespaces)
            guard text.hasPrefix("["), text.hasSuffix("]") else { return false }
            let inside = text.dropFirst().dropLast().trimmingCharacters(in: .whitespaces)
            guard inside.lowercased().hasPrefix("branch"), let space = inside.firstIndex(where: \.isWhitespace) else {
                return false
            }
            return inside[..<space].lowercased() == "branch"
                && inside[space...].trimmingCharacters(in: .whitespaces) == quoted
        }
        func isValue(_ line: Substring) -> Bool {
            let text = line.trimmingCharacters(in: .whitespaces)
            return !text.isEmpty && !text.hasPrefix("#") && !text.hasPrefix(";")
        }
        var kept: [Substring] = []
        for (index, line) in lines.enumerated() {
            if isHeader(line) {
                let next = lines[(index + 1)...].first { isValue($0) }
                if next == nil || next!.trimmingCharacters(in: .whitespaces).hasPrefix("[") { continue }
            }
            kept.append(line)
        }
        guard kept.count < lines.count else { return }
        let lock = path + ".lock"
        let fd = Glibc.open(lock, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return }
        var placed = false
        defer { if !placed { unlink(lock) } }
        let text = Data(kept.joined(separator: "\n").utf8)
        do {
            try text.withUnsafeBytes { try writeAll(fd, $0, path: lock) }
            try systemCall("fsync", path: lock) { fsync(fd) }
            close(fd)
        } catch {
            close(fd)
            throw error
        }
        try systemCall("rename", path: path) { rename(lock, path) }
        placed = true
    }
}
