import DocketCGit2
import DocketCGitTransport
import Foundation

/// The certificate authorities https transfers trust, shared by the whole process.
///
/// NB: libgit2 1.5 with mbedTLS trusts one set of certificates for the whole process
/// (GIT_OPT_SET_SSL_CERT_LOCATIONS). A transfer takes the set it needs — the system's bundle, or the file and
/// folder `http.sslCAInfo` and `http.sslCAPath` name — for as long as it runs: transfers that need the same set run
/// together, and one that needs another waits until they have ended. So one store's settings never reach another
/// store's transfer, at the same time or later.
final class TrustedCertificates: @unchecked Sendable {
    /// A set of authorities: a file, a folder, or both; nil for the system's bundle.
    struct Locations: Equatable {
        let file: String?
        let folder: String?
    }

    static let shared = TrustedCertificates()

    // The state below is read and changed under `condition`'s lock only.
    private let condition = NSCondition()
    /// The set libgit2 trusts now: nil for the system's (parsed or still deferred).
    private var current: Locations?
    /// How many transfers use `current`.
    private var users = 0

    /// Waits until `wanted` is the set libgit2 trusts (making it so once no transfer uses another), and counts this
    /// transfer as one of its users until `leave`.
    func enter(_ wanted: Locations?) {
        condition.lock()
        defer { condition.unlock() }
        while users > 0 && current != wanted { condition.wait() }
        if let wanted {
            // NB: set again for each transfer, as the files may have changed.
            docket_git_forget_certificates()
            _ = docket_git_set_ssl_cert_locations(wanted.file, wanted.folder)
        } else if current != nil {
            _ = docket_git_set_ssl_cert_locations(docket_git_system_certificates(), nil)
        } else {
            _ = docket_git_load_certificates()
        }
        current = wanted
        users += 1
    }

    /// Ends a transfer's use of the set it entered with.
    func leave() {
        condition.lock()
        defer { condition.unlock() }
        users -= 1
        if users == 0 { condition.broadcast() }
    }
}
