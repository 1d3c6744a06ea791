// Chapter 5: the article's call site, as written (the typealias below gives its operation the
// article's name), in Swift 5 language mode (Package.swift). Whether its closure runs depends on
// where it is written:
// - `swift run chapter5-article-swift5`: as top-level code, which in Swift 5 mode is not main-actor
//   isolated when it does not await. Neither is the closure: it prints Executing, Finished, Hello World!
// - `... viewDidLoad`: the same lines in main-actor code, where an app writes them (UIViewController
//   is @MainActor). The closure inherits the main actor, whose thread waits in waitUntilFinished for
//   that closure: it never ends, in Swift 5 mode as in Swift 6.
// - `... viewDidLoad-sendable`: the same, with the closure written `{ @Sendable in`: it runs.
import ChapterSupport
import Foundation
import ManualState
import TaskOperations

#if !canImport(Darwin)
    // swift-format-ignore: AlwaysUseLowerCamelCase
    let NSEC_PER_SEC: UInt64 = 1_000_000_000  // Darwin's constant; Linux's Dispatch lacks it
#endif

flushOutputPeriodically()  // not the article's: so that its test sees each line even if it hangs

typealias AsyncOperation<Success> = AsyncAwaitPost.AsyncOperationWithTask<Success>  // the article's name for it

/// The article's call site in main-actor code.
@MainActor func viewDidLoad() {
    let operation = AsyncOperation {
        try await Task.sleep(nanoseconds: NSEC_PER_SEC * 2)
        print("Executing")
        return "Hello World!"
    }
    addAndPrintTheResult(of: operation)
}

/// The same, with a closure that cannot inherit the main actor.
@MainActor func viewDidLoadWithASendableClosure() {
    let operation = AsyncOperation { @Sendable in
        try await Task.sleep(nanoseconds: NSEC_PER_SEC * 2)
        print("Executing")
        return "Hello World!"
    }
    addAndPrintTheResult(of: operation)
}

/// The rest of the article's call site.
func addAndPrintTheResult(of operation: AsyncOperation<String>) {
    let queue = OperationQueue()
    queue.addOperations([operation], waitUntilFinished: true)
    print("Finished")

    switch operation.getResult() {
    case .success(let value):
        print(value)
    default:
        break
    }
}

switch CommandLine.arguments.dropFirst().first {
case "viewDidLoad":
    MainActor.assumeIsolated { viewDidLoad() }  // the main thread, as an app's
case "viewDidLoad-sendable":
    MainActor.assumeIsolated { viewDidLoadWithASendableClosure() }
default:
    let operation = AsyncOperation {
        try await Task.sleep(nanoseconds: NSEC_PER_SEC * 2)
        print("Executing")
        return "Hello World!"
    }

    let queue = OperationQueue()
    queue.addOperations([operation], waitUntilFinished: true)
    print("Finished")

    switch operation.getResult() {
    case .success(let value):
        print(value)
    default:
        break
    }
}
