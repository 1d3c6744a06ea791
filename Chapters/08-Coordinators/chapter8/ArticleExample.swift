// The article's own example, with its MyOperation (MyOperation.swift), run against the article's
// own coordinators (CoordinatingPost): first as the article first writes them, then as its final
// code rewrites them on its collection-item operations (`…AsItemOperation`). This file imports
// the article's module and not Foundation, so `Operation` here is the article's protocol: what
// the article means by "only import its library". In main.swift, which imports Foundation, the
// same name would be ambiguous.
import ChapterSupport
import CoordinatingPost

/// The article's two call sites: two `MyOperation`s, concurrently, then serially. (`say` is
/// the article's `print`, flushed at once.)
func runTheArticlesExample() {
    let operations = [MyOperation(), MyOperation()]
    let coordinator = ConcurrentOperationCoordinator()
    coordinator.perform(operations) { errors in
        say("All done")
    }

    let serialCoordinator = SerialOperationCoordinator()
    serialCoordinator.perform(operations) { errors in
        say("All done")
    }
}

/// The same call sites on the article's final coordinators, which the article gives the first
/// ones' names (here they add what sets them apart, `AsItemOperation`, beside the first ones).
func runTheArticlesExampleOnItsFinalCoordinators() {
    let operations = [MyOperation(), MyOperation()]
    let coordinator = ConcurrentOperationCoordinatorAsItemOperation()
    coordinator.perform(operations) { errors in
        say("All done")
    }

    let serialCoordinator = SerialOperationCoordinatorAsItemOperation()
    serialCoordinator.perform(operations) { errors in
        say("All done")
    }
}
