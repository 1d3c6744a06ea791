// An app target's code, as a learner writes it (see Base/main.swift): CompletionOperation.
import Foundation

func fail(_ why: String) -> Never {
    print("FAILED: \(why)")
    exit(1)
}

let queue = OperationQueue()
queue.maxConcurrentOperationCount = 1
let first = CompletionOperation { complete in
    DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) {
        print("First async operation complete")
        complete()
    }
}
let second = CompletionOperation { complete in
    print("Second operation starts")
    complete()
}
queue.addOperations([first, second], waitUntilFinished: true)
guard first.isFinished, second.isFinished else { fail("an operation never finished") }
