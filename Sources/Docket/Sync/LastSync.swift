import DocketGit
import DocketModel
import Foundation

/// When this machine last synced a store, and how the last failing sync failed, kept in
/// `.git/docket/last-sync.json` by every `sync` (a command's, a watcher's, the library's), so
/// `docket autosync` can say whether syncing by itself works.
public struct LastSync: Codable, Equatable, Sendable {
    /// When a sync last finished.
    @OptionalMillisecondDate public var succeeded: Date?
    /// The remote it synced with.
    public let remote: String?
    /// When a sync last failed.
    @OptionalMillisecondDate public var failed: Date?
    /// What that failure said.
    public let failure: String?

    /// A record of these syncs.
    public init(succeeded: Date? = nil, remote: String? = nil, failed: Date? = nil, failure: String? = nil) {
        self.succeeded = succeeded
        self.remote = remote
        self.failed = failed
        self.failure = failure
    }

    /// The failure, when it came after the last sync that worked (or none ever worked).
    public var failingSince: (date: Date, reason: String)? {
        guard let failed, let failure, succeeded.map({ failed > $0 }) ?? true else { return nil }
        return (failed, failure)
    }

    static let fileName = "last-sync.json"
}

extension Store {
    /// When this machine last synced the store, and the last failure; empty when it never synced.
    /// A record that does not read is taken as none (the next sync writes it afresh).
    public func lastSync() -> LastSync {
        guard let text = try? localText(LastSync.fileName),
            let record = try? DocketJSON.decode(LastSync.self, from: Data(text.utf8))
        else { return LastSync() }
        return record
    }

    /// Notes how a sync ended. Another docket holding the store, or a sync stopped on purpose, is no
    /// failure of syncing, and is not noted. A record that cannot be written never fails the sync.
    func noteSync(remote: String?, failure: Error?) {
        var record = lastSync()
        if let failure {
            if case StoreError.state(.locked) = failure { return }
            if failure is CancellationError { return }
            if case StoreError.transfer(.cancelled) = failure { return }
            if case TransferError.cancelled = failure { return }
            record = LastSync(
                succeeded: record.succeeded, remote: record.remote, failed: DocketClock.now,
                failure: "\(failure)")
        } else {
            record = LastSync(
                succeeded: DocketClock.now, remote: remote, failed: record.failed, failure: record.failure)
        }
        guard let data = try? DocketJSON.encode(record) else { return }
        try? writeLocalText(String(decoding: data, as: UTF8.self), to: LastSync.fileName)
    }
}
