import Foundation
import Strata

private struct Abort: Error {}

/// The storage SPI itself: a backend's batched forms (records by many IDs, referrers of many
/// targets, link lists of many owners and their owners of many targets, metadata of many keys,
/// put many, delete a set) answer exactly as its one-at-a-time
/// forms do. Sizes cross the batch sizes backends use (hundreds of IDs per statement), and the
/// sets hold duplicates, missing IDs and IDs no backend can store.
enum StorageChecks {
    static let overLongID = RecordID.string(String(repeating: "x", count: RecordID.maximumStringIDLength + 1))

    static func tags(_ range: Range<Int>, version: Int64 = 1) -> [Record] {
        range.map {
            Record(entity: "Tag", id: .string("tag \($0)"), version: version, values: ["label": .string("Label \($0)")])
        }
    }

    static let all: [ConformanceCheck] = [
        ConformanceCheck(.storage, "batchedLookupsAnswerAsSingleOnes") { c in
            let (store, data) = try await c.seeded()
            try await store.backend.write { tx in try tx.put(contentsOf: tags(0..<1_200)) }
            let people = data.people.map { RecordID.uuid($0.id) }
            try await store.backend.read { tx in
                let asked =
                    (0..<1_300).map { RecordID.string("tag \($0)") } + [
                        .string("tag 7"), .string("tag 1199"), overLongID,
                    ]
                var expected: [RecordID: Record] = [:]
                for id in asked { if let record = try tx.record("Tag", id: id) { expected[id] = record } }
                try expectEqual(expected.count, 1_200, "the single lookups")
                try expectEqual(try tx.records("Tag", ids: asked), expected, "records by many IDs")
                try expectEqual(try tx.records("Tag", ids: []), [:], "no IDs")

                let keys = try tx.metadata(prefix: "", after: nil, limit: nil).map(\.key)
                try expect(!keys.isEmpty, "a store keeps metadata (its schema at least)")
                let names = keys + ["strata.no-such-key", keys[0], "ünïcødé \u{1F600}"]
                var values: [String: [UInt8]] = [:]
                for key in names { if let value = try tx.metadata(key) { values[key] = value } }
                try expectEqual(try tx.metadata(keys: names), values, "metadata of many keys")
                try expectEqual(try tx.metadata(keys: []), [:], "no keys")

                let targets = people + [.uuid(UUID()), people[0]]
                var referrers: [RecordID: [RecordID]] = [:]
                for target in targets {
                    let found = try tx.referrers("Trip", property: "traveller", to: target)
                    if !found.isEmpty { referrers[target] = found }
                }
                try expect(!referrers.isEmpty, "the seeded trips have travellers")
                try expectEqual(
                    try tx.referrers("Trip", property: "traveller", toEach: targets), referrers,
                    "referrers of many targets")
            }
        },
        ConformanceCheck(.storage, "batchedLinkReadsAnswerAsSingleOnes") { c in
            let (store, data) = try await c.seeded()
            let template = try await store.backend.read { try $0.record("Person", id: .uuid(data.people[0].id)) }
            guard let template else { return try expect(false, "the seeded person is stored") }
            // 700 owners (past the batch sizes), one in five without a list, lists out of ID order.
            let owners = (0..<700).map { _ in RecordID.uuid(UUID()) }
            try await store.backend.write { tx in
                try tx.put(contentsOf: tags(0..<1_200))
                for (index, owner) in owners.enumerated() {
                    var person = template
                    person.id = owner
                    try tx.put(person)
                    guard index % 5 != 0 else { continue }
                    let targets = [(index * 3 + 2) % 1_200, (index * 3) % 1_200, (index + 5) % 1_200]
                    try tx.setLinks(
                        "Person", relationship: "interests", from: owner, to: targets.map { .string("tag \($0)") })
                }
            }
            try await store.backend.read { tx in
                let asked = owners + [.uuid(UUID()), owners[1], owners[0]]
                var lists: [RecordID: [RecordID]] = [:]
                for owner in asked {
                    let list = try tx.links("Person", relationship: "interests", from: owner)
                    if !list.isEmpty { lists[owner] = list }
                }
                try expectEqual(lists.count, 560, "the single reads")
                try expectEqual(
                    try tx.links("Person", relationship: "interests", fromEach: asked), lists, "lists of many owners")
                try expectEqual(try tx.links("Person", relationship: "interests", fromEach: []), [:], "no owners")
                let targets = tags(0..<1_300).map(\.id) + [.string("tag 7"), overLongID]
                var owning: [RecordID: [RecordID]] = [:]
                for target in targets {
                    let found = try tx.linkOwners("Person", relationship: "interests", to: target)
                    if !found.isEmpty { owning[target] = found }
                }
                try expect(owning.count > 500, "many tags are in a list")
                try expectEqual(
                    try tx.linkOwners("Person", relationship: "interests", toEach: targets), owning,
                    "owners of many targets")
            }
        },
        ConformanceCheck(.storage, "batchedWritesAnswerAsSingleOnes") { c in
            let (store, data) = try await c.seeded()
            // Put many: new records and replacements of existing ones, in one call.
            let replaced = tags(0..<600, version: 2).map { record -> Record in
                var record = record
                record["label"] = .string("Changed \(record.id)")
                return record
            }
            try await store.backend.write { tx in try tx.put(contentsOf: tags(0..<1_200)) }
            try await store.backend.write { tx in try tx.put(contentsOf: replaced + tags(1_200..<1_250)) }
            try await store.backend.read { tx in
                for record in replaced + tags(600..<1_250) {
                    try expectEqual(try tx.record("Tag", id: record.id), record, "put many")
                }
            }
            // Delete a set: present, missing and repeated IDs; a deleted owner's link lists go too.
            // Which side of Trip–Tag keeps the list is the schema's choice.
            let schema = store.backend.schema
            let (ownerEntity, relationship) =
                schema.entity("Trip")?.relationship("tags")?.keepsLinkList == true ? ("Trip", "tags") : ("Tag", "trips")
            let candidates =
                ownerEntity == "Trip"
                ? data.trips.map { RecordID.uuid($0.id) }
                : [data.beach, data.city, data.food].map { RecordID.string($0.id) }
            let owners = try await store.backend.read { tx in
                try candidates.filter { try !tx.links(ownerEntity, relationship: relationship, from: $0).isEmpty }
            }
            try expect(!owners.isEmpty, "the seeded trips have tags")
            let targets = try await store.backend.read { tx in
                try Set(owners.flatMap { try tx.links(ownerEntity, relationship: relationship, from: $0) })
            }
            let doomed =
                (0..<700).map { RecordID.string("tag \($0)") } + [
                    .string("tag 3"), .string("never stored"), overLongID,
                ]
            try await store.backend.write { tx in
                try tx.delete("Tag", ids: doomed)
                try tx.delete(ownerEntity, ids: owners + [owners[0]])
            }
            try await store.backend.read { tx in
                try expectEqual(try tx.records("Tag", ids: doomed), [:], "deleted set")
                try expectEqual(
                    try tx.records("Tag", ids: (700..<1_250).map { .string("tag \($0)") }).count, 550, "the rest stay")
                for owner in owners {
                    try expectEqual(try tx.record(ownerEntity, id: owner), nil)
                    try expectEqual(
                        try tx.links(ownerEntity, relationship: relationship, from: owner), [],
                        "a deleted owner's links")
                }
                for target in targets {
                    let remaining = try tx.linkOwners(ownerEntity, relationship: relationship, to: target)
                    try expect(
                        Set(remaining).isDisjoint(with: owners), "link owners of \(target) still name a deleted owner")
                }
            }
        },
        ConformanceCheck(.storage, "batchedWritesRollBackWithTheTransaction") { c in
            let (store, _) = try await c.seeded()
            let before = try await StoreSnapshot.take(store)
            do {
                try await store.backend.write { tx -> Void in
                    try tx.put(contentsOf: tags(0..<1_000))
                    try tx.delete("Trip", ids: try tx.fetch(FetchPlan(entity: "Trip")).map(\.id))
                    throw Abort()
                }
                try expect(false, "the write should have thrown")
            } catch is Abort {}
            try expectEqual(try await StoreSnapshot.take(store), before)
            try await store.backend.read { tx in
                try expectEqual(try tx.records("Tag", ids: tags(0..<1_000).map(\.id)), [:])
            }
        },
        // A set delete may update an index per key (dropping a key whose IDs all go, as a
        // cascade does to a parent's children): queries over the index must still agree.
        ConformanceCheck(.storage, "indexesFollowASetDelete") { c in
            let store = try await c.store()
            let samples = (0..<60).map { Sample(id: "s\($0)", count: $0 % 3) }
            try await store.repository(Sample.self).insert(contentsOf: samples)
            // Every sample with count 0 (a whole key), and two of those with count 1 (part of one).
            let gone = samples.filter { $0.count == 0 }.map(\.id) + ["s1", "s4"]
            try await store.backend.write { tx in try tx.delete("Sample", ids: gone.map(RecordID.string)) }
            let repository = store.repository(Sample.self)
            try expectEqual(try await repository.fetch(where: \Sample.count == 0).count, 0, "a key whose IDs all went")
            try expectEqual(try await repository.fetch(where: \Sample.count == 1).count, 18, "a key that lost two IDs")
            try expectEqual(try await repository.fetch(where: \Sample.count == 2).count, 20, "an untouched key")
            try expectEqual(try await repository.count(where: \Sample.count < 2), 18, "a range over the index")
            try expectEqual(
                try await repository.fetch(Query<Sample>.all.sorted(by: \Sample.count).limit(5)).map(\.count),
                [1, 1, 1, 1, 1], "a sorted page")
            try expectEqual(try await repository.count(), 38)
            // A dropped key takes new IDs as a new one would.
            try await repository.insert(Sample(id: "again", count: 0))
            try expectEqual(try await repository.fetch(where: \Sample.count == 0).map(\.id), ["again"])
        },
    ]
}
