import AsyncOperations

extension ResultProducing {
    /// Makes `next` take its input from this operation, and returns `next` — so that a chain
    /// reads in order and the compiler checks that each output type is the next input type:
    /// `unfurl.then(fetchTitle)`.
    @discardableResult
    public func then<Next: InputTaking>(_ next: Next) -> Next where Next.Input == Success {
        next.takeInput(from: self)
        return next
    }
}
