import AsyncOperations
import ChainedOperations
import Foundation
import ResultOperations
import TestSupport
import Testing

#if os(Linux)
    @Suite("Chapter 7 — a completion block that captures its own operation")
    struct CompletionBlockCycleTests {
        @Test("Linux never clears completionBlock: an operation captured strongly by it is never freed")
        func strongCaptureIsACycleOnLinux() async {
            // Darwin: Apple documents that "this property is set to nil after the completion
            // block begins executing" (iOS 8 / macOS 10.10 and later), which breaks the cycle;
            // there the operation would be freed (not run on a Mac).
            let completed = Flag()
            let reference = WeakReference()
            do {
                let operation = Value("hello")
                operation.completionBlock = {
                    _ = operation.result  // a strong capture of the operation itself
                    completed.raise()
                }
                reference.object = operation
                #expect(await OperationQueue().runs(operation))
            }
            #expect(await completed.wait())
            #expect(await reference.staysAlive(for: 0.5), "the block holds the operation, and the operation the block")
            (reference.object as? Operation)?.completionBlock = nil  // break the cycle by hand
            #expect(await reference.isFreed())
        }

        @Test("captured weakly, the operation is freed once it has finished")
        func weakCaptureIsFreed() async {
            let completed = Flag()
            let reference = WeakReference()
            do {
                let operation = Value("hello")
                operation.completionBlock = { [weak operation] in
                    _ = operation?.result
                    completed.raise()
                }
                reference.object = operation
                #expect(await OperationQueue().runs(operation))
            }
            #expect(await completed.wait())
            #expect(await reference.isFreed())
        }
    }
#endif
