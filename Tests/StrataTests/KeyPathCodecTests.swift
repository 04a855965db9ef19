import Foundation
import StrataConformance
import StrataInMemory
import Testing

@testable import Strata

/// A model that stores a property its entity does not declare: a contract violation the save
/// must keep reporting, even though encoding no longer goes through `Codable`.
private struct Undeclared: PersistentModel {
    var id: UUID
    var name: String
    var secret: String

    static let entity = Entity<Undeclared>([.attribute(\.name)])
}

/// A model whose custom `Codable` differs from its key paths both ways: it stores the name
/// uppercased, and reads it back with a "!" appended. Key-path encoding and decoding must each
/// notice and keep going through `Codable` (KeyPathCodecTests, KeyPathDecodingTests).
struct CustomCoding: PersistentModel {
    var id: UUID
    var name: String

    static let entity = Entity<CustomCoding>([.attribute(\.name)])

    enum CodingKeys: String, CodingKey { case id, name }
    init(id: UUID, name: String) {
        self.id = id
        self.name = name
    }
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(UUID.self, forKey: .id)
        name = try container.decode(String.self, forKey: .name) + "!"
    }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name.uppercased(), forKey: .name)
    }
}

@Suite struct KeyPathCodecTests {
    @Test func keyPathsEncodeWhatCodableEncodes() throws {
        // Past the verified records, the key paths alone encode; the result must not differ.
        for n in 0..<(KeyPathCodec.verifiedRecords + 50) {
            var model = Everything.sample
            model.id = Int64(n)
            model.maybeInt = n.isMultiple(of: 2) ? nil : n
            model.address.street = n.isMultiple(of: 3) ? "Rua \(n)" : nil
            let record = try model.record()
            let viaCodable = try RecordEncoder.encode(model)
            #expect(!record.differs(from: viaCodable), "record \(n)")
            #expect(try Everything(record: record) == model)
        }
        #expect(KeyPathCodec.usesKeyPaths(Everything.self))
        let travel = TravelData()
        for person in travel.people {
            #expect(!(try person.record()).differs(from: try RecordEncoder.encode(person)))
        }
        for trip in travel.trips {
            #expect(!(try trip.record()).differs(from: try RecordEncoder.encode(trip)))
        }
    }

    @Test func anUndeclaredPropertyStillFailsTheSave() async throws {
        let store = Store(backend: InMemoryBackend(schema: try Schema(Undeclared.self)))
        for n in 0..<(KeyPathCodec.verifiedRecords + 10) {
            await #expect(throws: StrataError.self, "record \(n)") {
                try await store.repository(Undeclared.self).insert(Undeclared(id: UUID(), name: "n\(n)", secret: "s"))
            }
        }
        #expect(try await store.repository(Undeclared.self).count() == 0)
        #expect(!KeyPathCodec.usesKeyPaths(Undeclared.self))
    }

    @Test func aCustomEncodingKeepsGoingThroughCodable() throws {
        for n in 0..<(KeyPathCodec.verifiedRecords + 10) {
            #expect(try CustomCoding(id: UUID(), name: "n\(n)").record()["name"] == .string("N\(n)"))
        }
        #expect(!KeyPathCodec.usesKeyPaths(CustomCoding.self))
    }
}
