import Foundation
import StrataConformance
import Testing

@testable import Strata
@testable import StrataLMDB

/// What LMDB hands back is bytes; damaged bytes must become a typed error naming the entity and
/// record — never a trap in Strata's own decoding, and never a record with wrong values. Seeded mutations of real
/// encodings
/// — flipped bits, cut ends, random tails, zeroed runs — through the record codec, the key decoder
/// and the history codec. `STRATA_FUZZ_TRIALS` (default 3,000) and `STRATA_FUZZ_SEED` replay.
@Suite("LMDB: decoding damaged bytes")
struct LMDBDecodingFuzzTests {
    static func damage(_ input: [UInt8], _ random: inout SeededRandom) -> [UInt8] {
        var bytes = input
        switch random.below(5) {
        case 0:
            for _ in 0...random.below(4) where !bytes.isEmpty {
                bytes[random.below(bytes.count)] ^= UInt8(1 << random.below(8))
            }
        case 1: bytes = Array(bytes.prefix(random.below(bytes.count)))
        case 2: bytes += (0..<random.below(40)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        case 3:
            let start = random.below(bytes.count)
            for index in start..<min(bytes.count, start + 1 + random.below(16)) { bytes[index] = 0 }
        default:
            for _ in 0...random.below(3) where !bytes.isEmpty {
                bytes[random.below(bytes.count)] = UInt8(truncatingIfNeeded: random.next())
            }
        }
        return bytes
    }

    /// Runs `body`; anything but success or a ``StrataError`` is a failure naming the trial.
    static func expectTypedOutcome(_ what: String, _ body: () throws -> Void) {
        do { try body() } catch is StrataError {} catch { Issue.record("\(what): \(type(of: error)) \(error)") }
    }

    @Test func damagedBytesNeverTrap() throws {
        let environment = ProcessInfo.processInfo.environment
        let trials = Int(environment["STRATA_FUZZ_TRIALS"] ?? "") ?? 3_000
        let seed = UInt64(environment["STRATA_FUZZ_SEED"] ?? "") ?? 0xF022
        var random = SeededRandom(seed: seed)
        let schema = try TravelDomain.schema()
        let data = TravelData()
        var encoded: [(entity: EntityDescription, id: RecordID, bytes: [UInt8])] = []
        for record in try data.people.map({ try $0.record() }) + data.trips.map({ try $0.record() }) {
            let entity = try schema.requireEntity(record.entity)
            var stored = record
            stored.version = Int64(random.below(1_000)) + 1
            encoded.append((entity, record.id, RecordCodec.encode(stored, entity)))
        }
        let history = HistoryCodec.encode(
            HistoryTransaction(
                token: HistoryToken(7), timestamp: Date(), author: "fuzz", contextName: nil,
                changes: data.people.map {
                    HistoryChange(
                        kind: .update, entity: "Person", id: $0.id.recordID, changedProperties: ["name", "age"],
                        version: 3)
                }))
        let keys: [(RecordID.Kind, [UInt8])] = [
            (.uuid, try LMDBKeys.id(.uuid(UUID()))), (.int, try LMDBKeys.id(.int(-42))),
            (.string, try LMDBKeys.id(.string("beach"))),
        ]

        for trial in 0..<trials {
            let label = "seed \(seed) trial \(trial)"
            let original = encoded[random.below(encoded.count)]
            let damaged = Self.damage(original.bytes, &random)
            // Decoding with the wrong entity is damage of another kind: the layout does not match.
            let entity = random.below(4) == 0 ? encoded[random.below(encoded.count)].entity : original.entity
            Self.expectTypedOutcome("\(label) record") { _ = try RecordCodec.decode(damaged, id: original.id, entity) }
            // The checksum turns damage into an error: a changed record never decodes.
            if damaged != original.bytes {
                do {
                    let decoded = try RecordCodec.decode(
                        damaged, id: original.id, original.entity)
                    Issue.record("\(label): a damaged record decoded as \(decoded)")
                } catch let error as StrataError {
                    #expect([.corruptStore, .incompatibleStore].contains(error.code), "\(label): \(error)")
                    #expect(error.entity == original.entity.name && error.recordID == original.id, "\(label): \(error)")
                }
            }
            Self.expectTypedOutcome("\(label) history") { _ = try HistoryCodec.decode(Self.damage(history, &random)) }
            let (kind, key) = keys[random.below(keys.count)]
            Self.expectTypedOutcome("\(label) key") { _ = try LMDBKeys.decodeID(Self.damage(key, &random), kind: kind) }
        }
    }

    @Test func aRecordOfAnotherFormatByteOrUnderAnotherIDIsDamage() throws {
        // Every record of a store of format 1 carries format byte 2 and a checksum; the
        // unreleased unchecked form (byte 1) is damage like any other byte.
        let schema = try TravelDomain.schema()
        let entity = try schema.requireEntity("Tag")
        var writer = BinaryWriter()
        writer.byte(1)
        writer.signed(3)
        for name in entity.storedPropertyNames { writer.value(name == "label" ? .string("Beach") : .null) }
        let unchecked = writer.bytes
        let error = try #require(throws: StrataError.self) {
            try RecordCodec.decode(unchecked, id: .string("beach"), entity)
        }
        #expect(error.code == .corruptStore && error.recordID == .string("beach"))
        // A checksummed record read under another ID is damage too.
        let current = RecordCodec.encode(
            Record(entity: "Tag", id: .string("beach"), version: 3, values: ["label": .string("Beach")]), entity)
        #expect(throws: StrataError.self) { try RecordCodec.decode(current, id: .string("city"), entity) }
        #expect(try RecordCodec.decode(current, id: .string("beach"), entity)["label"] == .string("Beach"))
    }
}
