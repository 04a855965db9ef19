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

    /// The finished checksum.
    public var final: UInt32 { value ^ 0xFFFF_FFFF }

    /// The checksum of `bytes`.
    public static func of(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var checksum = Checksum()
        checksum.update(bytes)
        return checksum.final
    }
}
