import Foundation
import StrataStorage

/// Sorting many record IDs at once (a save's new records entering the ID order): UUIDs are
/// sorted as pairs of big-endian 64-bit halves — the contract's order for them — without copying
/// an enum per comparison, which was nine-tenths of a generic sort's time.
enum RecordIDSorting {
    static func sorted(_ ids: [RecordID]) -> [RecordID] {
        var keys: [(high: UInt64, low: UInt64)] = []
        keys.reserveCapacity(ids.count)
        for id in ids {
            guard case .uuid(let uuid) = id else { return ids.sorted() }
            keys.append(halves(uuid))
        }
        keys.sort { $0.high != $1.high ? $0.high < $1.high : $0.low < $1.low }
        return keys.map { .uuid(uuid($0.high, $0.low)) }
    }

    static func halves(_ uuid: UUID) -> (high: UInt64, low: UInt64) {
        withUnsafeBytes(of: uuid.uuid) { bytes in
            (
                bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self).bigEndian,
                bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self).bigEndian
            )
        }
    }

    static func uuid(_ high: UInt64, _ low: UInt64) -> UUID {
        var bytes = (high.bigEndian, low.bigEndian)
        return withUnsafeBytes(of: &bytes) { raw in
            UUID(uuid: raw.loadUnaligned(as: uuid_t.self))
        }
    }
}
