import Foundation
import Strata
import StrataConformance
import StrataTools
import Testing

/// The NDJSON form of records that `strata export` writes and `strata import` reads: every value
/// kind reads back bit-exact, and a value of the wrong kind is a typed error naming the property.
@Suite struct RecordJSONTests {
    let schema: Schema

    init() throws {
        schema = try Schema(entities: [
            EntityDescription(
                name: "Thing", idKind: .string,
                attributes: [
                    AttributeDescription(name: "flag", type: .bool), AttributeDescription(name: "count", type: .int),
                    AttributeDescription(name: "ratio", type: .double, isOptional: true),
                    AttributeDescription(name: "text", type: .string, isOptional: true),
                    AttributeDescription(name: "when", type: .date, isOptional: true),
                    AttributeDescription(name: "key", type: .uuid, isOptional: true),
                    AttributeDescription(name: "blob", type: .data, isOptional: true),
                ],
                relationships: [
                    RelationshipDescription(
                        name: "parent", destination: "Thing", inverse: "children", cardinality: .toOne),
                    RelationshipDescription(
                        name: "children", destination: "Thing", inverse: "parent", cardinality: .toMany),
                    RelationshipDescription(
                        name: "friends", destination: "Other", inverse: "things", cardinality: .toMany,
                        isOrdered: true),
                ]),
            EntityDescription(
                name: "Other", idKind: .int,
                relationships: [
                    RelationshipDescription(
                        name: "things", destination: "Thing", inverse: "friends", cardinality: .toMany)
                ]),
        ])
    }

    @Test(arguments: [
        0.1, -0.0, Double.leastNonzeroMagnitude * 2_024_000_000_000_000, .greatestFiniteMagnitude, .nan, .infinity,
        -.infinity, 12345678.123456789,
    ])
    func everyValueReadsBackExactly(_ ratio: Double) throws {
        let entity = try #require(schema.entity("Thing"))
        let record = Record(
            entity: "Thing", id: .string("a \"quoted\"\n\u{1}id"), version: 7,
            values: [
                "flag": .bool(true), "count": .int(Int64.min), "ratio": .double(ratio), "text": .string("é\t\\ 🙂"),
                "when": .date(Date(timeIntervalSinceReferenceDate: 123_456.789_012_345_6)), "key": .uuid(UUID()),
                "blob": .data(Data([0, 255, 1])),
                "parent": .string("p"),
            ])
        let line = RecordJSON.line(record, links: ["friends": [.int(3), .int(1)]], entity: entity)
        #expect(!line.contains("\n"))
        let (back, links) = try RecordJSON.parse(line, schema: schema)
        #expect(back.version == 7)
        #expect(back.id == record.id)
        for name in ["flag", "count", "text", "when", "key", "blob", "parent"] {
            #expect(back[name] == record[name], "\(name)")
        }
        guard case .double(let read) = back["ratio"] else {
            Issue.record("ratio is not a double")
            return
        }
        #expect(read.bitPattern == ratio.bitPattern || (read.isNaN && ratio.isNaN))
        #expect(links == ["friends": [.int(3), .int(1)]], "link order kept")
    }

    /// Text is escaped scalar by scalar, whatever characters the escaped ones join: a quote with a
    /// combining mark after it is one character but two scalars.
    @Test(arguments: [
        "\"\u{301}", "a\\\u{301}\"\u{301}b", "\r\n\u{301}", "\u{1}\u{1f}é\t", "👩‍👩‍👧\"\u{200D}👧", "", "日本語",
    ])
    func textReadsBackScalarForScalar(_ text: String) throws {
        let entity = try #require(schema.entity("Thing"))
        let record = Record(
            entity: "Thing", id: .string(text), version: 1,
            values: ["flag": .bool(false), "count": .int(0), "text": .string(text)])
        let line = RecordJSON.line(record, links: [:], entity: entity)
        #expect(!line.unicodeScalars.contains { $0.value < 0x20 }, "control characters are escaped: \(line)")
        let (back, _) = try RecordJSON.parse(line, schema: schema)
        guard case .string(let read) = back["text"], case .string(let id) = back.id else {
            Issue.record("text or ID did not read back as text: \(line)")
            return
        }
        #expect(Array(read.unicodeScalars) == Array(text.unicodeScalars))
        #expect(Array(id.unicodeScalars) == Array(text.unicodeScalars))
    }

    @Test func aUUIDIsWrittenAsFoundationSpellsIt() throws {
        var generator = SystemRandomNumberGenerator()
        let seed = generator.next()
        print("aUUIDIsWrittenAsFoundationSpellsIt: seed \(seed)")
        var random = SeededRandom(seed: seed)
        var uuids = [UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))]
        uuids.append(UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255)))
        uuids += (0..<200).map { _ in random.uuid() }
        for uuid in uuids {
            #expect(RecordJSON.text(.uuid(uuid)) == "\"\(uuid.uuidString)\"")
        }
    }

    @Test func aValueOfTheWrongKindIsNamed() throws {
        let cases = [
            (#"{"entity":"Thing","id":"x","version":1,"values":{"count":1.5}}"#, "count"),
            (#"{"entity":"Thing","id":"x","version":1,"values":{"count":true}}"#, "count"),
            (#"{"entity":"Thing","id":"x","version":1,"values":{"flag":1}}"#, "flag"),
            (#"{"entity":"Thing","id":"x","version":1,"values":{"key":"not-a-uuid"}}"#, "key"),
            (#"{"entity":"Thing","id":"x","version":1,"values":{"nope":1}}"#, "nope"),
            (#"{"entity":"Thing","id":7,"version":1,"values":{}}"#, "id"),
        ]
        for (line, property) in cases {
            let error = try #require(throws: StrataError.self) { try RecordJSON.parse(line, schema: schema) }
            #expect(error.property == property, "\(line)")
            #expect(error.entity == "Thing")
        }
        #expect(throws: StrataError.self) { try RecordJSON.parse("not json", schema: schema) }
        #expect(throws: StrataError.self) { try RecordJSON.parse(#"{"entity":"Missing","id":"x"}"#, schema: schema) }
    }
}
