@_exported import DocketMerge
// `import Docket` gives a library user every model type and the merge.
@_exported import DocketModel

@_exported import struct DocketGit.CommitInfo
@_exported import struct DocketGit.GitError
@_exported import enum DocketGit.GitOperation
@_exported import enum DocketGit.LibGit2
@_exported import struct DocketGit.ObjectID
@_exported import struct DocketGit.RemoteInfo
@_exported import enum DocketGit.RemoteURL
@_exported import enum DocketGit.TransferError
// What a library user needs of DocketGit to sync and read history.
@_exported import struct DocketGit.TransferOptions
@_exported import struct DocketGit.TransferProgress
