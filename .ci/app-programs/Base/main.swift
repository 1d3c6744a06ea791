// An app target's code, as a learner writes it: no isolation annotation anywhere. With Xcode 26's
// new-app settings everything here is main-actor isolated by default, except what inherits
// nonisolated from AsyncOperation. `.ci/app-target` builds it beside the copied files.
import Foundation

/// An operation subclass written in the app: it inherits `nonisolated` from `AsyncOperation`, and
/// restates `@unchecked Sendable`, as every `Operation` subclass must in Swift 6.
final class GreetingOperation: AsyncOperation, @unchecked Sendable {
    // @unchecked Sendable: `ran` is only touched under `lock`.
    private let greeted: String
    private let lock = NSLock()
    private var ran = false

    init(greeting greeted: String) {
        self.greeted = greeted
    }

    var didRun: Bool { lock.withLock { ran } }

    override func main() {
        DispatchQueue.global().async {
            self.lock.withLock { self.ran = true }
            print("Hello, \(self.greeted)")
            self.finish()
        }
    }
}

func fail(_ why: String) -> Never {
    print("FAILED: \(why)")
    exit(1)
}

let queue = OperationQueue()
let greeting = GreetingOperation(greeting: "app")
let cancelled = GreetingOperation(greeting: "nobody")
cancelled.cancel()
queue.addOperations([greeting, cancelled], waitUntilFinished: true)
guard greeting.didRun, greeting.isFinished else { fail("the operation did not run to its end") }
guard !cancelled.didRun, cancelled.isFinished else { fail("the cancelled operation ran, or never finished") }
print("A cancelled one finished without running")
