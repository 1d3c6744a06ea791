// The article's code ("Coordinating async operations", Jan 26, 2019), written here with its
// names, structure and behaviour: the `Operation` protocol, the `OperationCoordinator`
// protocol, and the two coordinators as the article first writes them (one file each, as
// every file of this module holds one of the article's types). The chapter's README
// shows what goes wrong with them, each with a test; the package's own versions are in the
// `Coordinators` module.
//
// A module of its own, which imports nothing (the article's code needs only the standard
// library), because the protocol is named `Operation`, like `Foundation.Operation`: the article
// says to write `[MyLib].Operation` wherever both are visible, "or only import its library".
// The one change that makes: the article declares its coordinators `class` with the default
// (internal) access of an app's own code; here they are `public`, with a `public init()`, so
// that chapter 8 and the tests can use them from their modules. Swift 6 language mode compiles
// the rest as written: the completions are plain closures, not `@Sendable`, so the concurrent
// coordinator may capture and mutate `errors`.

/// The article's basic operation: anything that can be performed without parameters and
/// completes with an optional error.
public protocol Operation {
    typealias OperationCompletion = (Error?) -> Void

    func perform(completion: @escaping OperationCompletion)
}
