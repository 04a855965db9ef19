import Foundation
import Strata
import StrataSync
import StrataSyncServer

/// Exact decimals through sync: pushed by one client, applied by the server, pulled by another,
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
        }
    ]
}
