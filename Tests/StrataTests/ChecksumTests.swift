import Foundation
import StrataConformance
import Testing

@testable import Strata
@testable import StrataStorage

/// The record checksum is CRC-32 (IEEE, reflected): stored checksums depend on it staying exactly
/// that, whatever the implementation does to go faster.
@Suite("Checksum")
struct ChecksumTests {
    /// The bit-at-a-time definition, the reference for the table-driven one.
    static func reference(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return crc ^ 0xFFFF_FFFF
    }

    @Test func theStandardCheckValue() {
        var checksum = Checksum()
        checksum.update(Array("123456789".utf8))
        #expect(checksum.final == 0xCBF4_3926)
    }

    @Test func everyLengthAndSplitMatchesTheDefinition() {
        let seed: UInt64 = 0xC4C
        var random = SeededRandom(seed: seed)
        for length in 0..<300 {
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let split = random.below(length + 1)
            var checksum = Checksum()
            checksum.update(bytes[..<split])
            checksum.update(bytes[split...])
            #expect(checksum.final == Self.reference(bytes), "seed \(seed), length \(length), split at \(split)")
        }
    }
}

/// A record's checksum covers its bytes and its ID as `BinaryWriter` encodes it; the codec folds
/// the ID in without building those bytes, and must match them exactly.
@Suite("Record checksum")
struct RecordChecksumTests {
    @Test func theIDIsFoldedInAsItsEncodedBytes() {
        let seed: UInt64 = 0x1D5
        var random = SeededRandom(seed: seed)
        var ids: [RecordID] = [.int(0), .int(-1), .int(.max), .int(.min), .string(""), .string("é-ü"), .uuid(UUID())]
        for _ in 0..<200 {
            ids.append(.int(Int64(bitPattern: random.next())))
            ids.append(.string(String(repeating: "x", count: random.below(300))))
            ids.append(.uuid(random.uuid()))
        }
        let payload = ArraySlice((0..<37).map { UInt8($0) })
        for id in ids {
            var writer = BinaryWriter()
            writer.recordID(id)
            var reference = Checksum()
            reference.update(payload)
            reference.update(writer.bytes)
            #expect(RecordCodec.checksum(payload, id: id) == reference.final, "seed \(seed), id \(id)")
        }
    }
}
