import AsyncOperations

/// An operation whose output a later operation can take as its input: any operation that
/// ends with a result — an `AsyncResultOperation` or a `TaskOperation` (`ResultProducing`,
/// from AsyncOperations). Its `outputResult` is the result with the failure type erased.
public typealias OutputProviding = ResultProducing
