import Foundation
import Strata
import StrataSync
import StrataSyncServer

/// Exact decimals, collections and documents through sync: pushed by one client, applied by the server, pulled by
/// another,
/// changed there and pushed back — the same digits everywhere.
extension OfflineFirstChecks {
    static let values: [ConformanceCheck] = [
        ConformanceCheck(.offlineFirst, "decimalsTravelExactlyBothWays") { c in
            let world = try await SyncWorld.make(c)
            let (a, engineA) = try await world.client("a")
            let (b, engineB) = try await world.client("b")
            let digits = ValueChecks.decimal("12345678901234567890123456789012345678")
            try await a.repository(Sample.self).insert(
                Sample(id: "m", price: ValueChecks.decimal("1.10"), cost: digits, fee: ValueChecks.decimal("-0.000001"))
            )
            try await engineA.syncNow()
            try await engineB.syncNow()
            for store in [world.server.store, b] {
                let sample = try expectNotNil(try await store.repository(Sample.self).fetch("m"))
                try expectEqual(sample.price, ValueChecks.decimal("1.1"), "1.10 arrives as 1.1")
                try expectEqual(sample.cost, digits, "38 significant digits arrive exactly")
                try expectEqual(sample.fee, ValueChecks.decimal("-0.000001"))
            }
            var changed = try expectNotNil(try await b.repository(Sample.self).fetch("m"))
            changed.cost = ValueChecks.decimal("0.1") + ValueChecks.decimal("0.2")
            try await b.repository(Sample.self).update(changed)
            try await engineB.syncNow()
            try await engineA.syncNow()
            try expectEqual(
                try await a.repository(Sample.self).fetch("m")?.cost, ValueChecks.decimal("0.3"), "and back, exactly")
            try await expectSettled([a, b], server: world.server)
        },
        ConformanceCheck(.offlineFirst, "collectionsAndDocumentsTravelBothWays") { c in
            let world = try await SyncWorld.make(c)
            let (a, engineA) = try await world.client("a")
            let (b, engineB) = try await world.client("b")
            let sent = ValueChecks.collectionSamples[0]
            try await a.repository(Sample.self).insert(sent)
            try await engineA.syncNow()
            try await engineB.syncNow()
            for store in [world.server.store, b] {
                let sample = try expectNotNil(try await store.repository(Sample.self).fetch(sent.id))
                try expectEqual(sample.tags, sent.tags.map { $0.map(ValueRules.nfc) }, "tags in order, duplicates kept")
                try expectEqual(sample.scores?.map(\.bitPattern), sent.scores?.map(\.bitPattern), "doubles bit for bit")
                try expectEqual(sample.labels, ["a", "b", "é"], "the set, canonical")
                try expectEqual(sample.counts, sent.counts)
                try expectEqual(sample.profile, sent.profile)
            }
            var changed = try expectNotNil(try await b.repository(Sample.self).fetch(sent.id))
            changed.tags = ["back"]
            changed.profile?.contact = nil
            try await b.repository(Sample.self).update(changed)
            try await engineB.syncNow()
            try await engineA.syncNow()
            let back = try expectNotNil(try await a.repository(Sample.self).fetch(sent.id))
            try expectEqual(back.tags, ["back"], "and back")
            try expectEqual(back.profile, SampleProfile(city: "Lisbon", floor: 2), "the document, changed")
            let found = try await a.repository(Sample.self).count(where: .contains(\.tags, element: "back"))
            try expectEqual(found, 1, "queryable where it arrived")
            try await expectSettled([a, b], server: world.server)
        },
    ]
}
