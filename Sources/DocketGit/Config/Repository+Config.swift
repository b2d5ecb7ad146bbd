import CGit2

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
}
