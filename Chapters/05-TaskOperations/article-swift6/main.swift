// Chapter 5: the article's call site, as written (the typealias below gives its operation the
// article's name). In Swift 6 language mode it never ends: the closure inherits the main actor of
// the top-level code, and the main thread is blocked in waitUntilFinished (chapter 5's README).
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
