import Foundation
import StrataConformance
import StrataInMemory
import Testing

@testable import Strata

private enum Mood: String, Codable, Sendable, AttributeConvertible { case calm, busy }

/// Every kind the key-path decoder writes: scalars, optionals, an enum and
/// to-one references, optional and required.
private struct Flat: PersistentModel, Equatable {
    var id: UUID
    var title: String
    var count: Int
    var small: Int16
    var ratio: Double
    var scale: Float?
    var flag: Bool
    var when: Date
    var blob: Data?
    var mood: Mood
    var maybeMood: Mood?
    var note: String?
    var parent: UUID?
    var owner: UUID

    static let entity = Entity<Flat>([
        .attribute(\.title), .attribute(\.count, indexed: true), .attribute(\.small), .attribute(\.ratio),
        .attribute(\.scale), .attribute(\.flag), .attribute(\.when), .attribute(\.blob), .attribute(\.mood),
        .attribute(\.maybeMood), .attribute(\.note), .toOne(\.parent, Flat.self, deleteRule: .noAction),
        .toOne(\.owner, Holder.self, inverse: Holder.flats),
    ])

    static func make(_ n: Int, owner: UUID) -> Flat {
        Flat(
            id: UUID(), title: "title \(n)", count: n * 7 - 300, small: Int16(n % 300), ratio: Double(n) / 3,
            scale: n.isMultiple(of: 2) ? Float(n) : nil,
            flag: n.isMultiple(of: 3), when: Date(timeIntervalSince1970: Double(n) * 1_000.25),
            blob: n.isMultiple(of: 5) ? Data([UInt8(n % 256)]) : nil,
            mood: n.isMultiple(of: 2) ? .calm : .busy, maybeMood: n.isMultiple(of: 4) ? nil : .busy,
            note: n.isMultiple(of: 7) ? nil : "note \(n)",
            parent: nil, owner: owner)
    }
}

private struct Holder: PersistentModel, Equatable {
    var id: UUID
    static let flats = ToMany<Holder, Flat>("flats")
    static let entity = Entity<Holder>([.toMany(flats, inverse: \Flat.owner, deleteRule: .cascade)])
}

@Suite struct KeyPathDecodingTests {
    @Test func keyPathsDecodeWhatCodableDecodes() async throws {
        let store = Store(backend: InMemoryBackend(schema: try Schema(Flat.self, Holder.self)))
        let holder = Holder(id: UUID())
        try await store.repository(Holder.self).insert(holder)
        var flats = (0..<(KeyPathDecoding.verifiedRecords + 200)).map { Flat.make($0, owner: holder.id) }
        for index in stride(from: 1, to: flats.count, by: 2) { flats[index].parent = flats[index - 1].id }
        try await store.repository(Flat.self).insert(contentsOf: flats)
        // Read twice: the first reads verify, the rest go through key paths alone.
        for _ in 0..<2 {
            let read = try await store.repository(Flat.self).fetch()
            #expect(read.count == flats.count)
            let byID = Dictionary(uniqueKeysWithValues: flats.map { ($0.id, $0) })
            for model in read { #expect(model == byID[model.id], "\(model.id)") }
        }
        #expect(KeyPathDecoding.usesKeyPaths(Flat.self))
        // A stored value of the wrong kind still fails with the Codable path's typed error.
        var bad = try flats[0].record()
        bad["count"] = .string("many")
        #expect(throws: StrataError.self) { _ = try Flat(record: bad) }
        var missing = try flats[1].record()
        missing["title"] = .null
        #expect { _ = try Flat(record: missing) } throws: { ($0 as? StrataError)?.code == .missingValue }
    }

    @Test func aCustomDecodingKeepsGoingThroughCodable() throws {
        for n in 0..<(KeyPathDecoding.verifiedRecords + 10) {
            let record = try CustomCoding(id: UUID(), name: "n\(n)").record()
            #expect(try CustomCoding(record: record).name == "N\(n)!")
        }
        #expect(!KeyPathDecoding.usesKeyPaths(CustomCoding.self))
    }
}
