/// A dictionary that keeps its keys in the order they were first inserted: what a context saves
/// in, and what its overlay and pending changes list in. Removing a key drops it from the order;
/// inserting it again puts it last.
struct OrderedMap<Key: Hashable, Value> {
    private var values: [Key: Value] = [:]
    /// The keys, in insertion order.
    private(set) var keys: [Key] = []

    subscript(key: Key) -> Value? {
        get { values[key] }
        set {
            guard let newValue else {
                if values.removeValue(forKey: key) != nil { keys.removeAll { $0 == key } }
                return
            }
            if values.updateValue(newValue, forKey: key) == nil { keys.append(key) }
        }
    }

    /// The entries in insertion order.
    var entries: [(key: Key, value: Value)] { keys.compactMap { key in values[key].map { (key, $0) } } }

    var isEmpty: Bool { values.isEmpty }

    /// Removes the entries whose key matches, in one pass.
    mutating func removeAll(where shouldRemove: (Key) -> Bool) {
        let removed = keys.filter(shouldRemove)
        guard !removed.isEmpty else { return }
        for key in removed { values[key] = nil }
        keys.removeAll(where: shouldRemove)
    }

    mutating func removeAll() {
        values.removeAll()
        keys.removeAll()
    }
}

/// Keys in the order they were first added, each once.
struct OrderedKeys<Key: Hashable>: Sequence {
    private var order: [Key] = []
    private var members: Set<Key> = []

    /// Adds `key` last unless it is already here.
    mutating func append(_ key: Key) {
        if members.insert(key).inserted { order.append(key) }
    }

    /// Keeps the keys that match, in order.
    mutating func keep(where shouldKeep: (Key) -> Bool) {
        order = order.filter(shouldKeep)
        members = Set(order)
    }

    mutating func removeAll() {
        order.removeAll()
        members.removeAll()
    }

    func makeIterator() -> IndexingIterator<[Key]> { order.makeIterator() }
}
