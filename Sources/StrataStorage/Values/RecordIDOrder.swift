import Foundation

/// The ID order of many records at once: UUIDs compared as pairs of big-endian 64-bit halves (the
/// contract's order for them) rather than as enums, which copies one per comparison.
package enum RecordIDOrder {
    /// The positions of `ids` in ascending ID order.
    package static func permutation(_ ids: [RecordID]) -> [Int] {
        var keys: [(high: UInt64, low: UInt64, position: Int)] = []
        keys.reserveCapacity(ids.count)
        for (position, id) in ids.enumerated() {
            guard case .uuid(let uuid) = id else { return ids.indices.sorted { ids[$0] < ids[$1] } }
            withUnsafeBytes(of: uuid.uuid) { bytes in
                keys.append(
                    (
                        bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self).bigEndian,
                        bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self).bigEndian, position
                    ))
            }
        }
        keys.sort { $0.high != $1.high ? $0.high < $1.high : $0.low < $1.low }
        return keys.map(\.position)
    }
}
