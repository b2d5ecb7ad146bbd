import CGit2

/// The libgit2 library Docket runs on.
public enum LibGit2 {
    /// libgit2's version, as "major.minor.revision".
    public static var version: String {
        var major: Int32 = 0, minor: Int32 = 0, revision: Int32 = 0
        git_libgit2_version(&major, &minor, &revision)
        return "\(major).\(minor).\(revision)"
    }
}
