import Foundation
import Strata

private struct Abort: Error {}

enum AtomicityChecks {
    static var all: [ConformanceCheck] { basics + afterReopen }

    static let basics: [ConformanceCheck] = [
        ConformanceCheck(.atomicity, "aFailingRecordAbortsTheWholeTransaction") { c in
            let (store, _) = try await c.seeded()
            try await expectRejected(store, .validationFailed, entity: "Person") {
                try await store.transaction { tx in
                    try tx.insert(Person(name: "Fine 1"))
                    try tx.insert(Tag(id: "fine", label: "Fine"))
                    try tx.insert(Person(name: "Broken", age: 999))
                }
            }
        },
        ConformanceCheck(.atomicity, "anErrorThrownByTheCallerAbortsTheTransaction") { c in
            let (store, data) = try await c.seeded()
            let before = try await StoreSnapshot.take(store)
            do {
                try await store.transaction { tx in
                    try tx.insert(Person(name: "Fine"))
                    try tx.delete(Person.self, id: data.bruno.id)
                    throw Abort()
                }
                try expect(false, "the transaction should have thrown")
            } catch is Abort {}
            try expectEqual(try await StoreSnapshot.take(store), before)
        },
        ConformanceCheck(.atomicity, "aDeniedDeleteAbortsOtherChangesInTheSave") { c in
            let (store, data) = try await c.seeded()
            try await expectRejected(store, .deleteDenied) {
                try await store.transaction { tx in
                    var ana = data.ana
                    ana.age = 35
                    try tx.update(ana)
                    try tx.link(Trip.tags, from: data.azoresHike.id, to: "beach")
                    try tx.delete(Agency.self, id: data.sol.id)
                }
            }
        },
        ConformanceCheck(.atomicity, "aFailureAfterACascadeUndoesTheCascade") { c in
            let (store, data) = try await c.seeded()
            try await expectRejected(store, .uniqueViolation) {
                try await store.transaction { tx in
                    try tx.delete(Person.self, id: data.ana.id)
                    try tx.insert(Person(name: "Clash", email: "bruno@example.com"))
                }
            }
        },
        ConformanceCheck(.atomicity, "relationshipChangesRollBackWithTheSave") { c in
            let (store, data) = try await c.seeded()
            try await expectRejected(store, .validationFailed) {
                try await store.transaction { tx in
                    try tx.setRelated(
                        Trip.stops, of: data.portoWine.id, to: [data.sintra.id, data.alfama.id, data.ribeira.id])
                    try tx.setRelated(Person.interests, of: data.ana.id, to: ["food", "city"])
                    try tx.insert(Person(name: ""))
                }
            }
        },
        ConformanceCheck(.atomicity, "transactionReturnsItsValueOnlyWhenCommitted") { c in
            let store = try await c.store()
            let id = try await store.transaction { tx -> UUID in
                let person = Person(name: "Returned")
                try tx.insert(person)
                return person.id
            }
            try expectEqual(try await store.repository(Person.self).fetch(id)?.name, "Returned")
        },
        ConformanceCheck(.atomicity, "concurrentSavesLoseNothing") { c in
            let store = try await c.store()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<16 {
                    group.addTask {
                        for index in 0..<10 {
                            try await store.repository(Person.self).insert(
                                Person(name: "T\(task)-\(index)", age: index))
                        }
                    }
                }
                try await group.waitForAll()
            }
            try expectEqual(try await store.repository(Person.self).count(), 160)
            try expectEqual(try await store.history().count, 160)
        },
        ConformanceCheck(.atomicity, "concurrentUniqueInsertsAdmitExactlyOne") { c in
            let store = try await c.store()
            let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<12 {
                    group.addTask {
                        do {
                            try await store.repository(Tag.self).insert(Tag(id: "tag\(index)", label: "Contested"))
                            return true
                        } catch let error as StrataError where error.code == .uniqueViolation {
                            return false
                        }
                    }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            try expectEqual(outcomes.filter { $0 }.count, 1)
            try expectEqual(try await store.repository(Tag.self).count(), 1)
        },
        ConformanceCheck(.atomicity, "readersSeeCommittedStateOnly") { c in
            let (store, _) = try await c.seeded()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for round in 0..<20 {
                        try await store.transaction { tx in
                            try tx.insert(Person(name: "A\(round)"))
                            try tx.insert(Person(name: "B\(round)"))
                        }
                    }
                }
                group.addTask {
                    for _ in 0..<40 {
                        let count = try await store.repository(Person.self).count()
                        try expect(count % 2 == 0, "a reader saw half a save (\(count) people)")
                    }
                }
                try await group.waitForAll()
            }
        },
    ]
}
