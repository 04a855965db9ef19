import Foundation
import Strata

enum HistoryChecks {
    static let all: [ConformanceCheck] = [
        ConformanceCheck(.history, "eachSaveAppendsOneTransactionWithIncreasingTokens") { c in
            let store = try await c.store()
            for index in 0..<3 { try await store.repository(Tag.self).insert(Tag(id: "h\(index)", label: "H\(index)")) }
            let entries = try await store.history()
            try expectEqual(entries.count, 3)
            try expect(entries[0].token < entries[1].token && entries[1].token < entries[2].token, "tokens increase")
            try expectEqual(try await store.currentHistoryToken(), entries[2].token)
            try expect(entries[0].timestamp <= entries[2].timestamp, "timestamps do not go backwards")
        },
        ConformanceCheck(.history, "insertListsThePropertiesItSet") { c in
            let store = try await c.store()
            let tag = Tag(id: "h", label: "History")
            try await store.repository(Tag.self).insert(tag)
            let change = try expectNotNil(try await store.history().last?.changes.first)
            try expectEqual(change.kind, .insert)
            try expectEqual(change.entity, "Tag")
            try expectEqual(change.id, .string("h"))
            try expectEqual(change.changedProperties, ["label"])
            try expectEqual(change.version, 1)
        },
        ConformanceCheck(.history, "updateListsOnlyChangedProperties") { c in
            let (store, data) = try await c.seeded()
            var ana = data.ana
            ana.age = 35
            ana.address.city = "Faro"
            try await store.repository(Person.self).update(ana)
            let change = try expectNotNil(try await store.history().last?.changes.first)
            try expectEqual(change.kind, .update)
            try expectEqual(change.changedProperties, ["address.city", "age"])
            try expectEqual(change.version, 2)
        },
        ConformanceCheck(.history, "deleteIsRecorded") { c in
            let (store, _) = try await c.seeded()
            try await store.repository(Tag.self).delete("food")
            let changes = try expectNotNil(try await store.history().last?.changes)
            try expect(
                changes.contains { $0.kind == .delete && $0.entity == "Tag" && $0.id == .string("food") },
                "delete recorded")
            try expect(
                changes.contains { $0.kind == .update && $0.entity == "Trip" && $0.changedProperties == ["tags"] },
                "the trip that lost the tag is recorded as changed")
        },
        ConformanceCheck(.history, "authorAndContextNameAreRecorded") { c in
            let store = try await c.store()
            try await store.transaction(author: "importer", contextName: "nightly") {
                try $0.insert(Tag(id: "a", label: "A"))
            }
            let entry = try expectNotNil(try await store.history().last)
            try expectEqual(entry.author, "importer")
            try expectEqual(entry.contextName, "nightly")
        },
        ConformanceCheck(.history, "historyAfterATokenReturnsOnlyLaterSaves") { c in
            let store = try await c.store()
            try await store.repository(Tag.self).insert(Tag(id: "1", label: "1"))
            let mark = try expectNotNil(try await store.currentHistoryToken())
            try await store.repository(Tag.self).insert(Tag(id: "2", label: "2"))
            try await store.repository(Tag.self).insert(Tag(id: "3", label: "3"))
            let later = try await store.history(after: mark)
            try expectEqual(later.flatMap { $0.changes.map(\.id) }, [.string("2"), .string("3")])
            try expectEqual(try await store.history(after: mark, limit: 1).count, 1)
        },
        ConformanceCheck(.history, "purgeRemovesOlderTransactionsOnly") { c in
            let store = try await c.store()
            for index in 0..<4 { try await store.repository(Tag.self).insert(Tag(id: "p\(index)", label: "P\(index)")) }
            let all = try await store.history()
            let purged = try await store.purgeHistory(before: all[2].token)
            try expectEqual(purged, 2)
            try expectEqual(try await store.history().map(\.token), [all[2].token, all[3].token])
            try await store.repository(Tag.self).insert(Tag(id: "p4", label: "P4"))
            try expect(
                (try await store.history().last?.token ?? HistoryToken(0)) > all[3].token,
                "tokens keep increasing after a purge")
        },
        ConformanceCheck(.history, "aSaveThatChangesNothingAppendsNothing") { c in
            let (store, data) = try await c.seeded()
            let before = try await store.currentHistoryToken()
            try await store.repository(Person.self).update(data.ana)
            try await store.transaction { _ in }
            try expectEqual(try await store.currentHistoryToken(), before)
        },
        ConformanceCheck(.history, "inverseUpkeepIsRecordedOnBothSides") { c in
            let (store, data) = try await c.seeded()
            let passport = Passport(number: "H-1", owner: data.bruno.id)
            try await store.repository(Passport.self).insert(passport)
            let changes = try expectNotNil(try await store.history().last?.changes)
            try expect(changes.contains { $0.entity == "Passport" && $0.kind == .insert }, "passport insert recorded")
            try expect(
                changes.contains {
                    $0.entity == "Person" && $0.kind == .update && $0.changedProperties == ["passport"]
                },
                "the person's side of the one-to-one is recorded")
        },
        ConformanceCheck(.history, "manyToManyChangesAreRecordedOnBothSides") { c in
            let (store, data) = try await c.seeded()
            try await store.repository(Trip.self).link(Trip.tags, from: data.azoresHike.id, to: "beach")
            let changes = try expectNotNil(try await store.history().last?.changes)
            try expectEqual(
                Set(changes.map { "\($0.entity).\($0.changedProperties)" }), ["Trip.[\"tags\"]", "Tag.[\"trips\"]"])
            try expectEqual(try await store.read { try $0.record("Trip", id: data.azoresHike.id.recordID)?.version }, 2)
            try expectEqual(try await store.read { try $0.record("Tag", id: .string("beach"))?.version }, 2)
        },
        ConformanceCheck(.history, "failedSavesLeaveNoHistory") { c in
            let (store, _) = try await c.seeded()
            let before = try await store.history()
            _ = try? await store.repository(Person.self).insert(Person(name: "", age: 1))
            try expectEqual(try await store.history(), before)
        },
        ConformanceCheck(.history, "tokensAreCodableAndComparable") { c in
            let store = try await c.store()
            try await store.repository(Tag.self).insert(Tag(id: "c", label: "C"))
            let token = try expectNotNil(try await store.currentHistoryToken())
            let decoded = try JSONDecoder().decode(HistoryToken.self, from: JSONEncoder().encode(token))
            try expectEqual(decoded, token)
            try expectEqual(try await store.history(after: decoded), [])
        },
        ConformanceCheck(.history, "historySurvivesReopen", requires: [.reopen]) { c in
            let (store, _) = try await c.seeded()
            try await store.repository(Tag.self).insert(Tag(id: "r", label: "R"))
            let before = try await store.history()
            let reopened = try await c.reopen(store)
            try expectEqual(try await reopened.history(), before)
            try await reopened.repository(Tag.self).insert(Tag(id: "r2", label: "R2"))
            try expect(
                (try await reopened.currentHistoryToken() ?? HistoryToken(0)) > (before.last?.token ?? HistoryToken(0)),
                "tokens continue")
        },
    ]
}
