import Foundation
import Strata
import Testing

/// Derived attributes in a schema: what may be derived from what (`invalidSchema` otherwise), and
/// the recorded form in schema files and stored descriptions, which keeps what a function is
/// called but not its body.
@Suite struct DerivationSchemaTests {
    static func entity(_ derived: AttributeDescription) -> [EntityDescription] {
        [
            EntityDescription(
                name: "List", idKind: .string,
                attributes: [AttributeDescription(name: "title", type: .string), derived],
                relationships: [
                    RelationshipDescription(name: "items", destination: "Item", inverse: "list", cardinality: .toMany),
                    RelationshipDescription(name: "owner", destination: "Item", inverse: nil, cardinality: .toOne),
                ]),
            EntityDescription(
                name: "Item", idKind: .string,
                relationships: [
                    RelationshipDescription(name: "list", destination: "List", inverse: "items", cardinality: .toOne)
                ]),
        ]
    }

    static func attribute(_ name: String, _ type: AttributeType, _ derivation: Derivation) -> AttributeDescription {
        var attribute = AttributeDescription(name: name, type: type, isOptional: true)
        attribute.derivation = derivation
        return attribute
    }

    @Test(arguments: [
        ("counts", AttributeType.int, Derivation.count("owner"), "not a to-many"),
        ("counts", .string, .count("items"), "so it is an int"),
        ("key", .string, .folded("missing"), "not a text attribute"),
        ("key", .int, .folded("title"), "so it is text"),
        ("label", .string, .function("a)b") { _ in .null }, "without parentheses"),
    ])
    func aDerivationThatCannotHoldIsRefused(_ name: String, _ type: AttributeType, _ how: Derivation, _ why: String) {
        do {
            _ = try Schema(entities: Self.entity(Self.attribute(name, type, how)))
            Issue.record("\(how) on a \(type) was accepted")
        } catch let error as StrataError {
            #expect(error.code == .invalidSchema && error.entity == "List" && error.property == name, "\(error)")
            #expect(error.message.contains(why), "\(error.message)")
        } catch {
            Issue.record("not a StrataError: \(error)")
        }
    }

    @Test func theRecordedFormRoundTripsThroughFilesAndDescriptions() throws {
        for how in [Derivation.count("items"), .folded("title"), .function("label") { _ in .string("x") }] {
            let type: AttributeType = how == .count("items") ? .int : .string
            let schema = try Schema(entities: Self.entity(Self.attribute("derived", type, how)))
            let file = SchemaFile(schema)
            let reread = try SchemaFile.decode(file.encoded(), path: "derived.schema.json")
            #expect(reread == file)
            let back = try reread.schema().entity("List")?.attribute("derived")?.derivation
            #expect(back == how, "the file keeps \(how)")
            #expect(back?.compute == nil, "but not a function's body")
            let description = SchemaDescription(schema)
            #expect(try description.schema().entity("List")?.attribute("derived")?.derivation == how)
        }
        let counted = try Schema(entities: Self.entity(Self.attribute("derived", .int, .count("items"))))
        let computed = try Schema(
            entities: Self.entity(Self.attribute("derived", .int, .function("n") { _ in .int(1) })))
        let changes = SchemaDescription(computed).differences(from: SchemaDescription(counted))
        #expect(
            changes.map(\.description) == ["List: attribute `derived` derived from count(items) → function(n)"],
            "\(changes)")
        #expect(counted.fingerprint != computed.fingerprint, "a store notices the derivation changed")
        #expect(Derivation(recorded: "sum(items)") == nil && Derivation(recorded: "count()") == nil)
    }
}
