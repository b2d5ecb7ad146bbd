import DocketCGit2
import Foundation

/// How a transfer's failure was classified: by what Docket saw in the callbacks, by libgit2's code, or by
/// a row of `TransferMessages`.
struct TransferClassification: Sendable {
    /// What decided it.
    enum Basis: Equatable, Sendable {
        /// A callback saw it first (an unknown host, an untrusted certificate, a redirect).
        case callback
        /// libgit2's error code.
        case code
        /// The errno of Docket's own start of the program carrying the transfer (`ExecTransport.c`).
        case errno
        /// A row of `TransferMessages`.
        case row(TransferMessages.Row.ID)
        /// Nothing: `TransferError.other`.
        case unclassified
    }

    /// libgit2's error as it came.
    let raw: GitError
    /// The error a person sees.
    let error: TransferError
    /// What decided it.
    let basis: Basis

    /// What decided it, in one line without libgit2's message (which may quote the address):
    /// "classified by row sshPermissionDenied (code -1, class 12)".
    var trace: String {
        let by =
            switch basis {
            case .callback: "a callback"
            case .code: "libgit2's code"
            case .errno: "the errno of starting the transport's program"
            case let .row(id): "row \(id)"
            case .unclassified: "nothing"
            }
        return "transfer failure classified by \(by) (code \(raw.code), class \(raw.errorClass))"
    }
}

extension TransferContext {
    /// The failure of a libgit2 transfer call, classified; `pushing` names the reference a push updates.
    func classify(_ raw: GitError, pushing reference: String? = nil) -> TransferError {
        let classification = classification(of: raw, pushing: reference)
        options.classified?(classification)
        return classification.error
    }

    private func classification(of raw: GitError, pushing reference: String?) -> TransferClassification {
        if isCancelled { return TransferClassification(raw: raw, error: .cancelled(url: url), basis: .callback) }
        if let hostProblem { return TransferClassification(raw: raw, error: hostProblem, basis: .callback) }
        let text = RemoteURL.scrub(raw.message, of: rawURL)
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        // A program's stderr may start with warnings; its last line says what failed.
        let detail = lines.last ?? text
        let byErrno: TransferError? =
            switch spawnErrno {
            case ENOENT: .missingRepository(url: url, detail: detail)
            case EACCES: .forbidden(url: url, detail: detail)
            default: nil
            }
        if let byErrno { return TransferClassification(raw: raw, error: byErrno, basis: .errno) }
        // NB: libgit2 1.5 refuses a folder repository another user owns, unless safe.directory names it, with
        // GIT_EOWNER ("… is not owned by current user") or, when no safe.directory is set at all, with the failed
        // lookup's GIT_ENOTFOUND ("config value 'safe.directory' was not found"), which reads as a missing folder.
        if raw.code == -36 || text.contains("safe.directory") || text.contains("not owned by current user") {
            let path = RemoteURL.localPath(url) ?? url
            return TransferClassification(raw: raw, error: .unsafeOwner(url: url, path: path), basis: .code)
        }
        let byCode: TransferError? =
            switch raw.code {
            case GIT_EAUTH.rawValue: refusedCredentials(detail)
            // NB: "early EOF": the server hung up mid-conversation.
            case GIT_EEOF.rawValue: .interrupted(url: url, detail: detail)
            // NB: libgit2 1.5 says "could not find repository from …", "failed to resolve path …" for a folder that is
            // not there.
            case GIT_ENOTFOUND.rawValue: .missingRepository(url: url, detail: detail)
            // NB: libgit2 1.5 checks before sending: the remote's branch is not behind (a reset here), or is at a
            // commit
            // this store lacks.
            case GIT_ENONFASTFORWARD.rawValue: reference.map { .rejected(url: url, reference: $0, reason: detail) }
            default: nil
            }
        if let byCode { return TransferClassification(raw: raw, error: byCode, basis: .code) }
        // NB: a remote's own address may hold any word or number ("…/9403-…/denied.git"); only the words around it
        // count.
        let message = RemoteURL.withoutAddress(text, of: rawURL).lowercased()
        guard let row = TransferMessages.row(for: message, url: url, ssh: options.ssh) else {
            let error = GitError(code: raw.code, function: raw.function, message: detail, errorClass: raw.errorClass)
            return TransferClassification(raw: raw, error: .other(url: url, error: error), basis: .unclassified)
        }
        let host = RemoteURL.sshHost(rawURL)
        let error: TransferError =
            switch row.meaning {
            case .sshHostChanged: .sshHostChanged(host: host.name, port: host.port)
            case .sshHostUnknown: .sshHostUnknown(host: host.name, port: host.port)
            case .libssh2HostKeyType: .libssh2HostKeyType(host: host.name, port: host.port)
            case .pushDisabled: .pushDisabled(url: url, detail: detail)
            case .authentication: refusedCredentials(detail)
            case .forbidden: .forbidden(url: url, detail: detail)
            case .missingRepository: .missingRepository(url: url, detail: detail)
            case .dumbHTTP: .dumbHTTP(url: url)
            case .unreachable: .unreachable(url: url, detail: detail)
            case .interrupted: .interrupted(url: url, detail: detail)
            }
        return TransferClassification(raw: raw, error: error, basis: .row(row.id))
    }

    /// Credentials refused: a key skipped for its passphrase is the likely reason, when there is one.
    private func refusedCredentials(_ detail: String) -> TransferError {
        encryptedKeys.first.map { .passphraseKey(url: url, key: $0) } ?? .authentication(url: url, detail: detail)
    }
}
