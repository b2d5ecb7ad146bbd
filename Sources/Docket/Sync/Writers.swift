import DocketGit
import Foundation

/// Many writers, one remote, and no sync that gives up because another pushed first.
///
/// A sync pushes to the shared branch when it can. When another machine moved that branch in between, the sync does
/// not pull and try again: it publishes this machine's commits on a reference of its own on the remote,
/// `refs/docket/writers/<writer>`, which no other machine writes, so that push is always taken. Every pull and sync
/// fetches the writers' references and merges each it does not hold yet with Docket's rules (commutative and
/// symmetric, so every machine reaches the same files), and the next sync whose push to the shared branch wins
/// carries all of it there, for plain `git clone` and `git pull` users too. A writer's reference goes once the
/// shared branch holds it: its own machine removes it then; any machine removes one the shared branch holds whose
/// newest commit is more than a day old (a machine that stopped syncing).
extension Store {
    /// Where writers publish on a remote.
    static let writersPrefix = "refs/docket/writers/"

    /// Where this store keeps the writers' references it fetched from `remote`.
    static func seenWriters(_ remote: String) -> String { "refs/docket/seen/\(remote)/" }

    /// This store's writer name on its remotes: made once, kept in `.git/config` as `docket.writer`.
    func writerName() throws -> String {
        if let name = try git.configString("docket.writer"), Self.isWriterName(name) { return name }
        let name = String((0..<12).map { _ in "0123456789abcdef".randomElement()! })
        try git.setConfig("docket.writer", to: name)
        return name
    }

    /// A writer's name: 1 to 64 letters, digits, '-' and '_'.
    static func isWriterName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64
            && name.unicodeScalars.allSatisfy {
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_")
            }
    }

    /// Fetches the writers' references from `remote` and takes in, one by one, each the branch does not hold yet.
    func pullWritersHoldingLock(remote: String, options: TransferOptions) throws -> [PullOutcome] {
        let seen = Self.seenWriters(remote)
        let own = seen + (try writerName())
        let writers = try retryingAbandonedLock {
            try StoreError.gate(writing: true) {
                try git.repository.fetchReferences(
                    remote: remote, under: Self.writersPrefix, into: seen, options: options)
            }
        }
        var outcomes: [PullOutcome] = []
        for (reference, tip) in writers.sorted(by: { $0.key < $1.key }) where reference != own {
            guard let head = try git.head() else { break }
            if try head == tip || withinHistory({ try git.mergeBase(head, tip) }) == tip { continue }
            let name = String(reference.dropFirst(seen.count))
            guard Self.isWriterName(name) else { continue }
            outcomes.append(try integrate(tip, from: "\(remote) writer \(name)", options: options))
        }
        return outcomes
    }

    /// Publishes the branch on this store's own writer reference on `remote`: a push no other machine can win.
    func pushWriterHoldingLock(remote: String, options: TransferOptions) throws -> Pushed {
        let (ref, _) = try localBranch()
        let name = try writerName()
        try retryingAbandonedLock {
            try StoreError.gate(writing: true) {
                try git.repository.pushReference(
                    remote: remote, refspec: "+\(ref):\(Self.writersPrefix)\(name)",
                    reference: Self.writersPrefix + name, options: options)
            }
        }
        if let head = try git.head() {
            try? git.setReference(Self.seenWriters(remote) + name, to: head, message: "docket: push writer")
        }
        return Pushed(remote: remote, branch: Self.writersPrefix + name, remoteHeadNamesMissing: nil, asWriter: name)
    }

    /// After the shared branch took this store's branch: removes the writers' references it holds that are done
    /// with: this store's own, and any whose newest commit is more than a day old. A removal that fails is left for
    /// the next sync.
    func retireWritersHoldingLock(remote: String, options: TransferOptions) {
        guard let head = try? git.head(), let own = try? writerName() else { return }
        let seen = Self.seenWriters(remote)
        let writers = (try? git.references(startingWith: seen)) ?? [:]
        for (reference, tip) in writers {
            let name = String(reference.dropFirst(seen.count))
            guard Self.isWriterName(name), (try? git.mergeBase(head, tip)) == tip else { continue }
            let stale =
                (try? git.repository.commitInfo(tip)).map { $0.date < Date().addingTimeInterval(-86_400) } ?? false
            guard name == own || stale else { continue }
            do {
                try git.repository.pushReference(
                    remote: remote, refspec: ":\(Self.writersPrefix)\(name)", reference: Self.writersPrefix + name,
                    options: options)
                try? git.repository.deleteReference(reference)
            } catch {
                continue
            }
        }
    }
}
