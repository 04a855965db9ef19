import Foundation

/// CRC-32 (the IEEE polynomial, reflected — as zlib, PNG and Ethernet use it), table-driven. It
/// guards stored records: a flipped bit, a torn page or a record read under another key changes
/// it, so a damaged record is reported instead of read back with wrong values.
public struct Checksum: Sendable {
    public private(set) var value: UInt32 = 0xFFFF_FFFF

    public init() {}

    private static let table: [UInt32] = (0..<256).map { index in
        var crc = UInt32(index)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        return crc
    }

    public mutating func update(_ bytes: some Sequence<UInt8>) {
        var crc = value
        Self.table.withUnsafeBufferPointer { table in
            for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        }
        value = crc
    }

    /// Adds a value in a form that depends only on the value (the same whatever a backend's
    /// storage class): a kind byte, then its bits or bytes; text and bytes with their length.
    public mutating func update(_ value: Value) {
        func word(_ bits: UInt64) { withUnsafeBytes(of: bits.littleEndian) { update($0) } }
        switch value {
        case .null: update(CollectionOfOne(UInt8(0)))
        case .bool(let flag): update([1, flag ? 1 : 0])
        case .int(let number):
            update(CollectionOfOne(UInt8(2)))
            word(UInt64(bitPattern: number))
        case .double(let number):
            update(CollectionOfOne(UInt8(3)))
            word(number.bitPattern)
        case .string(let text):
            update(CollectionOfOne(UInt8(4)))
            word(UInt64(text.utf8.count))
            update(text.utf8)
        case .date(let date):
            update(CollectionOfOne(UInt8(5)))
            word(date.timeIntervalSinceReferenceDate.bitPattern)
        case .uuid(let uuid):
            update(CollectionOfOne(UInt8(6)))
            withUnsafeBytes(of: uuid.uuid) { update($0) }
        case .data(let bytes):
            update(CollectionOfOne(UInt8(7)))
            word(UInt64(bytes.count))
            update(bytes)
        }
    }

    /// The checksum of a record as backends that store columns keep it: its ID, its version, then
    /// each stored property's value in the entity's declared order.
    public static func of(id: RecordID, version: Int64, values: some Sequence<Value>) -> UInt32 {
        var checksum = Checksum()
        checksum.update(id.value)
        checksum.update(.int(version))
        for value in values { checksum.update(value) }
        return checksum.final
    }

    /// The finished checksum.
    public var final: UInt32 { value ^ 0xFFFF_FFFF }

    /// The checksum of `bytes`.
    public static func of(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var checksum = Checksum()
        checksum.update(bytes)
        return checksum.final
    }
}
