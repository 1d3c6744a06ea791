// Imports the article's module and not Foundation, as ArticleExample.swift does: `Operation`
// here is the article's protocol.
import CoordinatingPost

/// The article's operation that does nothing: it completes at once, without an error.
class MyOperation: Operation {
    func perform(completion: @escaping (Error?) -> Void) {
        completion(nil)
    }
}
