import DocketSpecSupport
import Foundation
import Quick
import XCTest

@testable import DocketGitSpecs
@testable import DocketMergeSpecs
@testable import DocketModelSpecs
@testable import DocketSpecs
@testable import DocketSyncSpecs
@testable import SampleSpecs

// On Linux, Quick runs only the specs listed here: add every new QuickSpec.
// `scripts/check-linuxmain` (run by `scripts/test` and CI) fails when one is missing.
@main struct Main {
    static func main() {
        ScratchHome.install()
        // DOCKET_SPECS=StoreSpec,SyncSpec runs only those specs, DOCKET_SPECS=DocketMergeSpecs a group
        // (a test target); unset, all run.
        let environment = ProcessInfo.processInfo.environment
        let chosen = environment["DOCKET_SPECS"].map { Set($0.split(separator: ",").map(String.init)) }
        let specs = all.filter { spec in
            guard let chosen else { return true }
            let module = String(reflecting: spec).split(separator: ".").first.map(String.init) ?? ""
            return chosen.contains(String(describing: spec)) || chosen.contains(module)
        }
        // DOCKET_SHARD=1/2 runs the first of two shards, split by the seconds each spec took in the run whose times
        // DOCKET_SPEC_TIMES names (scripts/test keeps them in scripts/spec-times.tsv), so the shards end together.
        let shard = environment["DOCKET_SHARD"].flatMap { text -> (Int, Int)? in
            let parts = text.split(separator: "/").compactMap { Int($0) }
            return parts.count == 2 && parts[1] > 0 && (1...parts[1]).contains(parts[0])
                ? (parts[0] - 1, parts[1]) : nil
        }
        let times =
            environment["DOCKET_SPEC_TIMES"].flatMap { try? String(contentsOfFile: $0, encoding: .utf8) }
            .map(SpecShards.times) ?? [:]
        let names = specs.map { String(describing: $0) }
        let run = shard.map { Set(SpecShards.shard(names, times: times, index: $0.0, count: $0.1)) } ?? Set(names)
        let running = specs.filter { run.contains(String(describing: $0)) }
        // DOCKET_SPEC_TIMES_OUT: where this run writes the seconds each spec took.
        if let path = environment["DOCKET_SPEC_TIMES_OUT"] {
            SpecShards.record(running.map { String(describing: $0) }, to: path)
        }
        QCKMain(running)
    }

    static let all: [QuickSpec.Type] = [
        // DocketModel
        TodoItemSpec.self,
        ProjectSpecs.self,
        ProjectTaskSpecs.self,
        TimeSlipSpecs.self,
        AppStateSpec.self,
        AlterationRulesSpec.self,
        AppStateRemovalSpec.self,
        ReversalSpec.self,
        JSONFormatSpec.self,
        PlanningSpec.self,
        DueDateSpec.self,
        // DocketGit
        RepositorySpec.self,
        IndexFileSpec.self,
        CacheTreeSpec.self,
        GitLayerSpec.self,
        SSHAddressSpec.self,
        ObjectFilesSpec.self,
        // DocketMerge
        MergeRulesSpec.self,
        ClaimMergeSpec.self,
        RichItemsMergeSpec.self,
        MergeLawsSpec.self,
        // Docket
        AppStoreSpec.self,
        FieldPathSpec.self,
        DiskAppPersisterSpec.self,
        DiskAppPersisterFailureSpec.self,
        StoreSpec.self,
        GitIndexLockSpec.self,
        StoreSpeedSpec.self,
        OpenViewLawSpec.self,
        MonitorSpec.self,
        CommandLineSpec.self,
        EverydayUseSpec.self,
        DocsSpec.self,
        SpecShardsSpec.self,
        ItemCopySpec.self,
        ClaimCommandsSpec.self,
        ClaimDriverLawSpec.self,
        MCPServerSpec.self,
        AgentsLoadSpec.self,
        ExchangeSpec.self,
        CalendarSpec.self,
        RichItemsSpec.self,
        ItemCommandsSpec.self,
        AgendaSpec.self,
        WaitsAndDependenciesSpec.self,
        DatePhraseSpec.self,
        DueDatesSpec.self,
        EntryFilterSpec.self,
        ListFiltersSpec.self,
        InstallSpec.self,
        UntrustedFilesSpec.self,
        CommandLineInputSpec.self,
        FrontDoorSpec.self,
        // Sync
        SyncSpec.self,
        QuarantineSpec.self,
        WritersSpec.self,
        WritersLawSpec.self,
        RichItemsSyncSpec.self,
        ClaimSyncSpec.self,
        MastermindSpec.self,
        FlowSpec.self,
        SamplesRunSpec.self,
        SSHSpec.self,
        OpenSSHSpec.self,
        HTTPSSpec.self,
        FaultSpec.self,
        ConvergenceSpec.self,
        StoreQueueSpec.self,
        StoreErrorCodeSpec.self,
        StoreChangesSpec.self,
        StoreQueueWriteSpec.self,
        TemporaryStoreSpec.self,
        FolderCopySpec.self,
        FolderCopyPropertySpec.self,
        GitFuzzSpec.self,
        DoorsLawSpec.self,
        HostileRemoteSpec.self,
        TransferMessagesSpec.self,
        HostileAddressSpec.self,
        LeftoverFilesSpec.self,
        FaultScriptSpec.self,
        GitPeerSpec.self,
        GitIndexFlagsSpec.self,
        GitSettingsSpec.self,
        LineEndingsSpec.self,
        RewrittenHistorySpec.self,
        PartialCloneSpec.self,
        PushSettingsSpec.self,
        RebaseUnderWaySpec.self,
        HooksSpec.self,
        OpenHandleSpec.self,
        WatchSpec.self,
    ]
}
