import Foundation
import Strata
import StrataSync

/// A client ID no one can guess: a server binds an ID to the first identity that pushes with it,
/// so a guessable one can be taken first. Generated per store, kept in it, stable across opens.
extension OfflineFirstChecks {
    static let clientIDs: [ConformanceCheck] = [
        ConformanceCheck(
            .offlineFirst, "aGeneratedClientIDIsRandomPerStoreAndKeptAcrossAReopen", requires: [.reopen]
        ) { c in
            var store = try await c.store()
            let first = try await SyncConfiguration.generated(for: store).clientID
            try expect(first.hasPrefix("c-") && first.count == 38, "a prefixed UUID: \(first)")
            try expectEqual(try await SyncConfiguration.generated(for: store).clientID, first, "kept in the store")
            let other = try await SyncConfiguration.generated(for: try await c.store()).clientID
            try expect(other != first, "another store has another ID")
            store = try await c.reopen(store)
            try expectEqual(try await SyncConfiguration.generated(for: store).clientID, first, "after a reopen")
            // A store whose mutations carry it.
            let local = store.withSync(try await SyncConfiguration.generated(for: store))
            try await local.repository(Person.self).insert(Person(name: "Ana", email: "ana@example.com"))
            let engine = try SyncEngine(store: local, remote: NoRemote())
            try expectEqual(try await engine.pendingMutations().map(\.id.clientID), [first])
        },
        ConformanceCheck(.offlineFirst, "aGeneratedClientIDThatWasNeverMadeRefusesSavesAndEnginesAndKeepsTheStore") {
            c in
            let store = try await c.store()
            let unmade = store.withSync(SyncConfiguration())
            try await expectRejected(unmade, .unsupportedStore) {
                try await unmade.repository(Person.self).insert(Person(name: "Ana", email: "ana@example.com"))
            }
            try expectEqual(try await store.repository(Person.self).count(), 0, "the refused save left nothing")
            do {
                _ = try SyncEngine(store: unmade, remote: NoRemote())
                try expect(false, "an engine over an unmade ID was made")
            } catch let error as StrataError {
                try expectEqual(error.code, .unsupportedStore, "\(error)")
                try expect(error.message.contains("generated(for:)"), "it says what to do: \(error.message)")
            }
        },
    ]
}
