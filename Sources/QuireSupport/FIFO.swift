/// Items in the order they came, each let go as soon as it is taken (not when the array is
/// next compacted): the queue inside `ReadAhead` and `Handoff`, which hand out batches of
/// tens of MiB.
struct FIFO<Item> {
    private var items: [Item?] = []
    private var head = 0

    /// Items put and not yet taken.
    var count: Int { items.count - head }
    var isEmpty: Bool { count == 0 }

    mutating func append(_ item: Item) { items.append(item) }

    /// The oldest item, now no longer held here; nil when there is none.
    mutating func take() -> Item? {
        guard head < items.count else { return nil }
        let item = items[head]
        items[head] = nil
        head += 1
        if head >= 64, head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        return item
    }

    mutating func removeAll() {
        items.removeAll()
        head = 0
    }
}
