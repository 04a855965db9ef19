import Foundation
import StrataConformance
import Testing

@testable import Strata

/// Records in a schema's slots and records of named values are the same records: equality,
/// differences and name access do not depend on the layout, and the ID-order sort's integer fast
/// path orders exactly as ``RecordID``'s own comparison.
@Suite("Record layout")
struct RecordLayoutTests {
    static let entity = EntityDescription(
        name: "Item",
        attributes: [
            AttributeDescription(name: "title", type: .string),
            AttributeDescription(name: "count", type: .int, isOptional: true),
        ])

    @Test func descriptionsOfTheSameNamesShareOneLayout() throws {
        let other = EntityDescription(name: "Other", attributes: Self.entity.attributes)
        #expect(other.layout === Self.entity.layout)
        #expect(Self.entity.layout.names == ["title", "count"])
        var changed = Self.entity
        changed.attributes.append(AttributeDescription(name: "extra", type: .bool, isOptional: true))
        #expect(changed.layout.names == ["title", "count", "extra"])
        #expect(changed.layout !== Self.entity.layout)
    }

    @Test func aSlottedRecordEqualsTheNamedOneWithAbsentAsNull() {
        let id = RecordID.int(7)
        let slotted = Record(entity: "Item", id: id, layout: Self.entity.layout, slots: [.string("a"), .null])
        let named = Record(entity: "Item", id: id, values: ["title": .string("a")])
        #expect(slotted == named)
        #expect(slotted.hashValue == named.hashValue)
        #expect(!slotted.differs(from: named))
        #expect(slotted.value(named: "count") == .null)
        #expect(named.value(named: "count") == nil)
        #expect(named["count"] == .null)
        var changed = named
        changed["count"] = .int(3)
        #expect(changed.changedProperties(comparedTo: slotted) == ["count"])
        #expect(slotted.changedProperties(comparedTo: changed) == ["count"])
        #expect(changed.inLayout(Self.entity.layout).slots == [.string("a"), .int(3)])
        #expect(changed.inLayout(Self.entity.layout).layout === Self.entity.layout)
    }

    @Test func settingANameOutsideTheLayoutKeepsIt() {
        var record = Record(entity: "Item", id: .int(1), layout: Self.entity.layout, slots: [.string("a"), .null])
        record["unknown"] = .null
        #expect(record.value(named: "unknown") == .null)
        #expect(record.values.keys.sorted() == ["count", "title", "unknown"])
        #expect(Self.entity.layout.names == ["title", "count"])
    }

    @Test(arguments: [RecordID.Kind.int, .uuid])
    func idOrderMatchesRecordIDComparison(kind: RecordID.Kind) {
        let seed: UInt64 = 0x51_07
        var random = SeededRandom(seed: seed)
        let ids: [RecordID] = (0..<2_000).map { _ in
            switch kind {
            case .int: .int(Int64(bitPattern: random.next()) >> Int64(random.next() % 60))
            default:
                .uuid(
                    UUID(
                        uuid: withUnsafeBytes(of: (random.next(), random.next())) { bytes in
                            (
                                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                            )
                        }))
            }
        }
        var records = ids.map { Record(entity: "Item", id: $0) }
        PredicateEvaluator.sort(&records, by: [])
        #expect(records.map(\.id) == ids.sorted(by: <), "seed \(seed)")
    }
}
