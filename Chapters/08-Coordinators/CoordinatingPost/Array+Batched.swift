extension Array {
    /// Not in the article, which calls it without showing it: the elements in consecutive
    /// batches of `batchSize`, the last one shorter if they do not divide evenly. Written the
    /// plain way: a `batchSize` of 0 traps (a stride of 0), a negative one gives no batch.
    func batched(withBatchSize batchSize: Int) -> [[Element]] {
        stride(from: 0, to: count, by: batchSize).map { start in
            Array(self[start..<Swift.min(start + batchSize, count)])
        }
    }
}
