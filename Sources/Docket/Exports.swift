// `import Docket` gives a library user every model type and the merge (DocketModel, DocketMerge), and of DocketGit
// what a library user needs to sync and read history (the types named below). The formatter sorts these imports,
// so this note stays above them all rather than beside one.
@_exported import DocketMerge
@_exported import DocketModel

@_exported import struct DocketGit.CommitInfo
@_exported import struct DocketGit.GitError
@_exported import enum DocketGit.GitOperation
@_exported import enum DocketGit.LibGit2
@_exported import struct DocketGit.ObjectID
@_exported import struct DocketGit.RemoteInfo
@_exported import enum DocketGit.RemoteURL
@_exported import enum DocketGit.TransferError
@_exported import struct DocketGit.TransferOptions
@_exported import struct DocketGit.TransferProgress
