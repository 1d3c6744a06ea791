// Dropped by .ci/mac-ready into every target of a scratch copy of the package: it makes the
// blocking waits that Apple's SDK marks unavailable from asynchronous contexts unavailable
// here too, so that a build on Linux fails where Xcode's would. Compiled, never run.
//
// A member declared in the module being compiled shadows the one with the same signature
// from Dispatch or Foundation, so every call in that module resolves to these.
import Dispatch
import Foundation

extension DispatchSemaphore {
    @available(*, noasync, message: "Apple's SDK: unavailable from asynchronous contexts")
    func wait() { fatalError("compile-only") }
    @available(*, noasync, message: "Apple's SDK: unavailable from asynchronous contexts")
    func wait(timeout: DispatchTime) -> DispatchTimeoutResult { fatalError("compile-only") }
    @available(*, noasync, message: "Apple's SDK: unavailable from asynchronous contexts")
    func wait(wallTimeout: DispatchWallTime) -> DispatchTimeoutResult { fatalError("compile-only") }
}

extension DispatchGroup {
    @available(*, noasync, message: "Apple's SDK: unavailable from asynchronous contexts")
    func wait() { fatalError("compile-only") }
    @available(*, noasync, message: "Apple's SDK: unavailable from asynchronous contexts")
    func wait(timeout: DispatchTime) -> DispatchTimeoutResult { fatalError("compile-only") }
    @available(*, noasync, message: "Apple's SDK: unavailable from asynchronous contexts")
    func wait(wallTimeout: DispatchWallTime) -> DispatchTimeoutResult { fatalError("compile-only") }
}

extension NSLock {
    @available(*, noasync, message: "Apple's SDK: use withLock in asynchronous contexts")
    func lock() { fatalError("compile-only") }
    @available(*, noasync, message: "Apple's SDK: use withLock in asynchronous contexts")
    func unlock() { fatalError("compile-only") }
}

extension NSRecursiveLock {
    @available(*, noasync, message: "Apple's SDK: use withLock in asynchronous contexts")
    func lock() { fatalError("compile-only") }
    @available(*, noasync, message: "Apple's SDK: use withLock in asynchronous contexts")
    func unlock() { fatalError("compile-only") }
}

extension NSCondition {
    @available(*, noasync, message: "Apple's SDK: use withLock in asynchronous contexts")
    func lock() { fatalError("compile-only") }
    @available(*, noasync, message: "Apple's SDK: use withLock in asynchronous contexts")
    func unlock() { fatalError("compile-only") }
    @available(*, noasync, message: "Apple's SDK: unavailable from asynchronous contexts")
    func wait() { fatalError("compile-only") }
}

extension NSConditionLock {
    @available(*, noasync, message: "Apple's SDK: use withLock in asynchronous contexts")
    func lock() { fatalError("compile-only") }
    @available(*, noasync, message: "Apple's SDK: use withLock in asynchronous contexts")
    func unlock() { fatalError("compile-only") }
}
