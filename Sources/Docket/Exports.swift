// `import Docket` gives a library user every model type and the merge.
@_exported import DocketModel
@_exported import DocketMerge
