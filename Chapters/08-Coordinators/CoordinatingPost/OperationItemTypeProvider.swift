// The article's collection, item and batch operations ("Operating on a collection of items"),
// written here with its names, structure and behaviour: a protocol that provides the item type,
// the collection, item and batch operations built on it, and the four protocols whose
// extensions perform a collection concurrently or serially, per item or per batch. Its final
// coordinators, rewritten on them, are `ConcurrentOperationCoordinatorAsItemOperation` and
// `SerialOperationCoordinatorAsItemOperation`.
//
// Changes from the article, none forced by Swift 6 (which compiles the rest as written: the
// completions are plain closures, so the concurrent extensions may capture and mutate `errors`):
// - Each extension's members carry the access (`public func`, `private func`) that the article
//   puts on the extension (`public extension`, `private extension`): the same access, written
//   the way the package's format rules ask.
// - `batched(withBatchSize:)`, which the article calls without showing it, is written here
//   (Array+Batched.swift).

/// The article's provider of an item type: every collection, item and batch operation has one.
public protocol OperationItemTypeProvider {
    associatedtype OperationItemType
}
