import Foundation
import Strata

/// A fingerprint of a store's records — per entity, every record's ID, version, values and link
/// lists in ID order — to prove two stores hold the same data whatever their backends
/// (`strata copy` compares source and target with it).
public struct StoreDigest: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Records and a 64-bit FNV-1a hash of their JSON lines, by entity.
    public var entities: [String: Entity]

    /// A digest of these entities.
    public init(entities: [String: Entity] = [:]) { self.entities = entities }

    /// One entity's digest.
    public struct Entity: Sendable, Hashable, Codable {
        /// How many records.
        public var count: Int
        /// A hash of every record's ID, version, values and link lists, in ID order.
        public var hash: String
    }

    public var description: String {
        entities.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.count) \($0.value.hash)" }.joined(
            separator: "\n")
    }

    /// Accumulates one entity's records in ID order.
    public struct Accumulator: Sendable {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var count = 0
        /// The line being hashed, reused from record to record.
        private var line: [UInt8] = []

        /// An accumulator over no records.
        public init() {}

        /// Adds a record and its link lists (records must come in ID order).
        public mutating func add(_ record: Record, links: [String: [RecordID]], entity: EntityDescription) {
            line.removeAll(keepingCapacity: true)
            RecordJSON.write(record, links: links, entity: entity, into: &line)
            for byte in line {
                hash ^= UInt64(byte)
                hash = hash &* 0x100_0000_01b3
            }
            count += 1
        }

        /// The digest of the records added.
        public var result: Entity {
            let digits = String(hash, radix: 16)
            return Entity(count: count, hash: String(repeating: "0", count: 16 - digits.count) + digits)
        }
    }
}

extension Store {
    /// The digest of every entity's records, read page by page in ID order.
    public func digest(pageSize: Int = 1_000) async throws -> StoreDigest {
        var entities: [String: StoreDigest.Entity] = [:]
        for entity in schema.entities {
            var accumulator = StoreDigest.Accumulator()
            var after: RecordID?
            while true {
                let (records, lists) = try await readPage(entity, after: after, limit: pageSize)
                for (record, links) in zip(records, lists) { accumulator.add(record, links: links, entity: entity) }
                guard records.count == pageSize, let last = records.last else { break }
                after = last.id
            }
            entities[entity.name] = accumulator.result
        }
        return StoreDigest(entities: entities)
    }

    /// One page of an entity's records after `after` in ID order, with their link lists.
    public func readPage(_ entity: EntityDescription, after: RecordID?, limit: Int) async throws -> (
        [Record], [[String: [RecordID]]]
    ) {
        let name = entity.name
        let page = try await read { try $0.page(name, after: after, limit: limit) }
        return (page.map(\.record), page.map(\.links))
    }
}
