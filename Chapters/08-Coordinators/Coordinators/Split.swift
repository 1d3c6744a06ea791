/// `items` cut into batches of `size` items, the last one possibly shorter; nil if `size` is
/// less than 1. (`stride(by: 0)` would trap, and a negative stride would silently produce no
/// batch at all, so the size is checked first.)
func split<Item>(_ items: [Item], intoBatchesOf size: Int) -> [[Item]]? {
    guard size > 0 else { return nil }
    return stride(from: 0, to: items.count, by: size).map { start in
        Array(items[start..<min(start + size, items.count)])
    }
}
