import Foundation
import Strata
import StrataConformance
import StrataInMemory
import Testing

/// The fixture's tag model (Swift Testing also has a `Tag`).
private typealias Tag = StrataConformance.Tag

@Suite struct StoreTests {
    @Test func openingAnUnregisteredSchemeIsATypedError() async throws {
        let registry = BackendRegistry()
        await #expect(throws: StrataError.self) {
            try await Store.open(
                "nosuch:x", schema: try TravelDomain.schema(), options: OpenOptions(registry: registry))
        }
        do {
            _ = try await Store.open(
                "nosuch:x", schema: try TravelDomain.schema(), options: OpenOptions(registry: registry))
        } catch let error as StrataError {
            #expect(error.code == .unsupportedStore)
        }
    }

    @Test func namedMemoryStoresAreSharedWithinTheProcess() async throws {
        let registry = BackendRegistry()
        InMemoryBackend.register(in: registry)
        let name = "memory:shared-\(UUID())"
        let first = try await Store.open(
            name, schema: try TravelDomain.schema(), options: OpenOptions(registry: registry))
        let second = try await Store.open(
            name, schema: try TravelDomain.schema(), options: OpenOptions(registry: registry))
        try await first.repository(Tag.self).insert(Tag(id: "x", label: "X"))
        #expect(try await second.repository(Tag.self).fetch("x")?.label == "X")
        let anonymous = try await Store.open(
            "memory:", schema: try TravelDomain.schema(), options: OpenOptions(registry: registry))
        #expect(try await anonymous.repository(Tag.self).count() == 0)
    }

    @Test func aNamedStoreRefusesASchemaOfAnotherShape() async throws {
        let registry = BackendRegistry()
        InMemoryBackend.register(in: registry)
        let name = "memory:shape-\(UUID())"
        let store = try await Store.open(
            name, schema: try TravelDomain.schema(), options: OpenOptions(registry: registry))
        try await store.repository(Tag.self).insert(Tag(id: "kept", label: "Kept"))
        let other = try Schema(entities: [
            EntityDescription(
                name: "Tag", idKind: .string, attributes: [AttributeDescription(name: "title", type: .string)])
        ])
        do {
            _ = try await Store.open(name, schema: other, options: OpenOptions(registry: registry))
            Issue.record("expected incompatibleStore")
        } catch let error as StrataError {
            #expect(error.code == .incompatibleStore)
        }
        #expect(try await store.repository(Tag.self).fetch("kept") != nil, "the store is untouched")
    }

    @Test func schemaFingerprintsFollowShapeNotBehaviour() throws {
        let base = try TravelDomain.schema()
        #expect(base.fingerprint == (try TravelDomain.schema()).fingerprint)
        #expect(base.fingerprint.contains("Person#uuid"))
        #expect(base.fingerprint.contains("address.city:string"))
        let renamed = try Schema(
            entities: base.entities.map { entity in
                var copy = entity
                if copy.name == "Stop" { copy.attributes[0].name = "title" }
                return EntityDescription(
                    name: copy.name, idKind: copy.idKind, attributes: copy.attributes,
                    relationships: copy.relationships,
                    indexes: copy.indexes, uniqueConstraints: copy.uniqueConstraints)
            })
        #expect(renamed.fingerprint != base.fingerprint)
    }

    @Test func aFailedWriteRollsTheBackendBack() async throws {
        // Straight through the SPI, without the engine: the backend's own rollback.
        let backend = InMemoryBackend(schema: try TravelDomain.schema())
        struct Boom: Error {}
        try await backend.write { tx in
            try tx.put(Record(entity: "Tag", id: .string("keep"), version: 1, values: ["label": "Keep"]))
        }
        await #expect(throws: Boom.self) {
            try await backend.write { tx in
                try tx.put(Record(entity: "Tag", id: .string("new"), version: 1, values: ["label": "New"]))
                try tx.put(Record(entity: "Tag", id: .string("keep"), version: 2, values: ["label": "Changed"]))
                try tx.delete("Tag", id: .string("keep"))
                try tx.setLinks("Tag", relationship: "trips", from: .string("keep"), to: [.uuid(UUID())])
                try tx.setMetadata("k", [1])
                throw Boom()
            }
        }
        let state = try await backend.read { tx in
            (
                try tx.record("Tag", id: .string("keep")), try tx.record("Tag", id: .string("new")),
                try tx.links("Tag", relationship: "trips", from: .string("keep")), try tx.metadata("k"),
                try tx.referrers("Tag", property: "label", to: .string("Changed"))
            )
        }
        #expect(state.0?["label"] == .string("Keep"))
        #expect(state.1 == nil)
        #expect(state.2.isEmpty)
        #expect(state.3 == nil)
    }

    @Test func readsOfASnapshotAreNotDisturbedByLaterWrites() async throws {
        let store = Store(backend: InMemoryBackend(schema: try TravelDomain.schema()))
        try await store.repository(Tag.self).insert(Tag(id: "a", label: "A"))
        let counts = try await store.read { reader in
            let before = try reader.count(Query<Tag>.all)
            return before
        }
        try await store.repository(Tag.self).insert(Tag(id: "b", label: "B"))
        #expect(counts == 1)
        #expect(try await store.repository(Tag.self).count() == 2)
    }
}
