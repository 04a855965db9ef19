import Foundation
import Strata
import StrataConformance
import Testing

/// The schema file: everything a schema declares that is not a closure survives the round trip
/// through JSON, and a malformed file is refused naming where.
@Suite struct SchemaFileTests {
    static func rich() throws -> Schema {
        try Schema(entities: [
            EntityDescription(
                name: "Item", idKind: .string,
                attributes: [
                    AttributeDescription(
                        name: "title", type: .string,
                        rules: [
                            .length(1...80), .pattern("[A-Z].*"), .pattern("[A-Za-z ]+", named: "words"),
                            .custom("noSwearing") { _ in true },
                        ],
                        renamedFrom: "name"),
                    AttributeDescription(
                        name: "price", type: .double, defaultValue: .double(-.infinity), rules: [.range(0.0...)]),
                    AttributeDescription(
                        name: "stock", type: .int, defaultValue: .int(3), isIndexed: true, rules: [.range(0...1_000)]),
                    AttributeDescription(name: "kind", type: .string, allowedValues: [.string("a"), .string("b")]),
                    AttributeDescription(
                        name: "since", type: .date, isOptional: true,
                        defaultValue: .date(Date(timeIntervalSinceReferenceDate: 12.5))),
                    AttributeDescription(name: "tag", type: .uuid, isOptional: true),
                    AttributeDescription(name: "blob", type: .data, defaultValue: .data(Data([0, 1, 255]))),
                    AttributeDescription(name: "on", type: .bool, defaultValue: .bool(false)),
                ],
                relationships: [
                    RelationshipDescription(
                        name: "shelf", destination: "Shelf", inverse: "items", cardinality: .toOne, deleteRule: .deny,
                        isRequired: true),
                    RelationshipDescription(
                        name: "related", destination: "Item", inverse: "relatedOf", cardinality: .toMany,
                        isOrdered: true, deleteRule: .noAction, minCount: 0, maxCount: 5),
                    RelationshipDescription(
                        name: "relatedOf", destination: "Item", inverse: "related", cardinality: .toMany),
                ],
                indexes: [["kind", "stock"]], uniqueConstraints: [["title", "shelf"]], renamedFrom: "Thing"),
            EntityDescription(
                name: "Shelf", idKind: .int, attributes: [AttributeDescription(name: "label", type: .string)],
                relationships: [
                    RelationshipDescription(
                        name: "items", destination: "Item", inverse: "shelf", cardinality: .toMany, deleteRule: .cascade
                    )
                ]),
        ]).versioned("7")
    }

    @Test func aFileReadsBackAsItWasWritten() throws {
        let file = SchemaFile(try Self.rich())
        let bytes = file.encoded(pretty: true)
        let read = try SchemaFile.decode(bytes, path: "t.json")
        #expect(read == file)
        #expect(read.encoded() == file.encoded(), "one schema, one encoding")
        let item = try #require(read.entities.first)
        #expect(item.attributes[0].customRules == ["noSwearing"], "a closure travels by name only")
        #expect(
            item.attributes[0].rules == [
                .length(min: 1, max: 80), .pattern("[A-Z].*"), .pattern("[A-Za-z ]+", name: "words"),
            ])
        #expect(String(decoding: bytes, as: UTF8.self).contains("\"name\" : \"words\""), "a pattern keeps its name")
        #expect(item.attributes[1].defaultValue == .double(-.infinity))
        #expect(item.relationships[1].deleteRule == .noAction && item.relationships[1].maxCount == 5)
        #expect(read.version == "7")
    }

    @Test func theFilesSchemaHasTheShapeAndTheRulesOfTheOriginal() throws {
        let original = try Self.rich()
        let schema = try SchemaFile(original).schema()
        #expect(SchemaDescription(schema) == SchemaDescription(original))
        #expect(schema.version == "7")
        let item = try #require(schema.entity("Item"))
        #expect(item.relationship("shelf")?.deleteRule == .deny)
        #expect(item.relationship("shelf")?.isRequired == true)
        #expect(item.attribute("title")?.renamedFrom == "name")
        #expect(item.relationship("related")?.isOrdered == true)
        #expect(item.renamedFrom == "Thing")
        #expect(item.attribute("stock")?.defaultValue == .int(3))
        #expect(item.attribute("title")?.rules.count == 3, "the custom rule is not enforced from a file")
        #expect(item.attribute("title")?.rules.last?.name == "words", "a pattern's name reaches clients")
    }

    @Test(
        arguments: [
            (
                #"{"strata":"schema","format":1,"entities":[{"name":"A","attributes":[{"name":"x","type":"text"}]}]}"#,
                "A", "x", "has type \"text\""
            ),
            (
                #"{"strata":"schema","format":1,"entities":[{"name":"A","relationships":[{"name":"r","destination":"A","cardinality":"toOne","deleteRule":"wipe"}]}]}"#,
                "A", "r", "deleteRule \"wipe\""
            ),
            (
                #"{"strata":"schema","format":1,"entities":[{"name":"A","attributes":[{"name":"n","type":"int","defaultValue":"three"}]}]}"#,
                "A", "n", "defaultValue is not a int value"
            ),
            (#"{"strata":"schema","format":1,"entities":[{"name":"A","idKind":"guid"}]}"#, "A", nil, "idKind \"guid\""),
            (#"{"strata":"schema","format":2,"entities":[]}"#, nil, nil, "has format 2"),
            (#"{"strata":"export","format":1}"#, nil, nil, "is not a Strata schema file"),
            (#"[1, 2"#, nil, nil, "is not a JSON object"),
            // A misspelt key is refused, naming it and the key meant, never silently ignored.
            (
                #"{"strata":"schema","format":1,"entities":[{"name":"A","attributes":[{"name":"n","type":"int","default":3}]}]}"#,
                "A", "n", #"unknown key "default" in an attribute (did you mean "defaultValue"?)"#
            ),
            (
                #"{"strata":"schema","format":1,"entities":[{"name":"A","relationships":[{"name":"r","destination":"A","cardinality":"toOne","deleteRul":"cascade"}]}]}"#,
                "A", "r", #"unknown key "deleteRul" in a relationship (did you mean "deleteRule"?)"#
            ),
            (
                #"{"strata":"schema","format":1,"entities":[{"name":"A","atributes":[]}]}"#, "A", nil,
                #"did you mean "attributes"?"#
            ),
            (
                #"{"strata":"schema","format":1,"version":"2","entities":[],"comment":"x"}"#, nil, nil,
                #"unknown key "comment""#
            ),
        ] as [(String, String?, String?, String)])
    func aMalformedFileIsRefusedNamingWhere(_ text: String, _ entity: String?, _ property: String?, _ says: String)
        throws
    {
        let error = try #require(throws: StrataError.self) { try SchemaFile.decode(Array(text.utf8), path: "s.json") }
        #expect(error.code == .invalidSchema)
        #expect(error.entity == entity)
        #expect(error.property == property)
        #expect(error.message.contains(says), "\(error.message)")
        #expect(error.message.hasPrefix("s.json"))
    }

    @Test func aFileOfAnInvalidSchemaFailsAsTheSchemaWould() throws {
        let text =
            #"{"strata":"schema","format":1,"entities":[{"name":"A","relationships":[{"name":"b","destination":"B","cardinality":"toOne"}]}]}"#
        let file = try SchemaFile.decode(Array(text.utf8), path: "s.json")
        let error = try #require(throws: StrataError.self) { try file.schema() }
        #expect(error.code == .invalidSchema)
        #expect(error.entity == "A")
    }
}
