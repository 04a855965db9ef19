import Foundation

/// The in-memory backend's metadata: values by key, and the keys in UTF-8 byte order (as SQLite,
/// LMDB and PostgreSQL's `COLLATE "C"` order them), so a prefix scan reads only its own keys —
/// full-text indexes and history keep many keys under their prefixes.
struct MetadataTable: Sendable {
    /// A key ordered by its UTF-8 bytes.
    struct Key: Comparable, Sendable {
        let text: String

        init(text: String) {
            var text = text
            text.makeContiguousUTF8()
            self.text = text
        }

        static func < (lhs: Key, rhs: Key) -> Bool { compare(lhs, rhs) < 0 }
        static func == (lhs: Key, rhs: Key) -> Bool { compare(lhs, rhs) == 0 }

        /// The keys' UTF-8 bytes compared with `memcmp` (both are contiguous: `init` made them so).
        private static func compare(_ lhs: Key, _ rhs: Key) -> Int {
            let result = lhs.text.utf8.withContiguousStorageIfAvailable { left in
                rhs.text.utf8.withContiguousStorageIfAvailable { right -> Int in
                    let common = min(left.count, right.count)
                    if common > 0, let a = left.baseAddress, let b = right.baseAddress {
                        let order = memcmp(a, b, common)
                        if order != 0 { return Int(order) }
                    }
                    return left.count - right.count
                }
            }
            if let result, let result { return result }
            if lhs.text.utf8.elementsEqual(rhs.text.utf8) { return 0 }
            return lhs.text.utf8.lexicographicallyPrecedes(rhs.text.utf8) ? -1 : 1
        }
    }

    private var values: [String: [UInt8]] = [:]
    private var keys = SortedChunks<Key>()

    subscript(key: String) -> [UInt8]? {
        get { values[key] }
        set {
            if let newValue {
                if values.updateValue(newValue, forKey: key) == nil { _ = keys.insert(Key(text: key)) }
            } else if values.removeValue(forKey: key) != nil {
                _ = keys.remove(Key(text: key))
            }
        }
    }

    /// Entries whose key starts with `prefix` and sorts after `after`, in key order, at most `limit`.
    func scan(prefix: String, after: String?, limit: Int?) -> [(key: String, value: [UInt8])] {
        var result: [(key: String, value: [UInt8])] = []
        if let limit, limit <= 0 { return result }
        let start = after.map { Key(text: $0) }.map { max($0, Key(text: prefix)) } ?? Key(text: prefix)
        keys.walk(from: start) { key in
            guard key.text.utf8.starts(with: prefix.utf8) else { return false }
            if let after, !(Key(text: after) < key) { return true }
            if let value = values[key.text] { result.append((key.text, value)) }
            return limit.map { result.count < $0 } ?? true
        }
        return result
    }
}
