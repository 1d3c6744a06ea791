import AsyncOperations
import Foundation
import ResultOperations

extension SwiftGenericsPost {
    /// An operation whose output a chained operation can take as its input.
    ///
    /// Change from the post: `public` (the post's default access), because the tests live in
    /// another module. Not Swift 6; the package's layout.
    public protocol ChainedOperationOutputProviding {
        var output: Any? { get }
    }
}
