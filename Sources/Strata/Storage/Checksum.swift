import Foundation

/// CRC-32 (the IEEE polynomial, reflected — as zlib, PNG and Ethernet use it), table-driven. It
/// guards stored records: a flipped bit, a torn page or a record read under another key changes
/// it, so a damaged record is reported instead of read back with wrong values.
///
/// Every read verifies one, so the byte loop runs over raw buffers and is inlinable into the
/// backends that call it.
public struct Checksum: Sendable {
    @usableFromInline var crc: UInt32 = 0xFFFF_FFFF

    public init() {}

    @usableFromInline static let table: [UInt32] = (0..<256).map { index in
        var crc = UInt32(index)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        return crc
    }

    @inlinable
    public mutating func update(_ buffer: UnsafeRawBufferPointer) {
        var crc = self.crc
        Self.table.withUnsafeBufferPointer { table in
            for byte in buffer { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        }
        self.crc = crc
    }

    @inlinable
    public mutating func update(byte: UInt8) {
        crc = Self.table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
    }

    @inlinable
    public mutating func update(word: UInt64) {
        withUnsafeBytes(of: word.littleEndian) { update($0) }
    }

    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    public mutating func update(_ bytes: ArraySlice<UInt8>) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Adds a value in a form that depends only on the value (the same whatever a backend's
    /// storage class): a kind byte, then its bits or bytes; text and bytes with their length.
    @inlinable
    public mutating func update(_ value: Value) {
        switch value {
        case .null: update(byte: 0)
        case .bool(let flag):
            update(byte: 1)
            update(byte: flag ? 1 : 0)
        case .int(let number):
            update(byte: 2)
            update(word: UInt64(bitPattern: number))
        case .double(let number):
            update(byte: 3)
            update(word: number.bitPattern)
        case .string(var text):
            update(byte: 4)
            text.withUTF8 { utf8 in
                update(word: UInt64(utf8.count))
                update(UnsafeRawBufferPointer(utf8))
            }
        case .date(let date):
            update(byte: 5)
            update(word: date.timeIntervalSinceReferenceDate.bitPattern)
        case .uuid(let uuid):
            update(byte: 6)
            withUnsafeBytes(of: uuid.uuid) { update($0) }
        case .data(let bytes):
            update(byte: 7)
            update(word: UInt64(bytes.count))
            bytes.withUnsafeBytes { update($0) }
        }
    }

    /// The start of a record's checksum as backends that store columns keep it: its ID and its
    /// version; the caller then adds each stored property's value in the entity's declared order
    /// (as it writes or decodes them, so the values are walked once).
    @inlinable
    public static func record(id: RecordID, version: Int64) -> Checksum {
        var checksum = Checksum()
        checksum.update(id.value)
        checksum.update(.int(version))
        return checksum
    }

    /// The finished checksum.
    @inlinable public var final: UInt32 { crc ^ 0xFFFF_FFFF }

}
