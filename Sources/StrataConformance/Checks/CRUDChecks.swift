import Foundation
import Strata

enum CRUDChecks {
    static var all: [ConformanceCheck] { basics + getOrCreate }

    static let basics: [ConformanceCheck] = [
        ConformanceCheck(.crud, "insertThenFetchRoundTripsEveryAttributeKind") { c in
            let store = try await c.store()
            let ana = TravelData().ana
            try await store.repository(Person.self).insert(ana)
            try expectEqual(try await store.repository(Person.self).fetch(ana.id), ana)
        },
        ConformanceCheck(.crud, "nilOptionalsRoundTrip") { c in
            let store = try await c.store()
            let person = Person(name: "Nil", address: Address(city: "X"))
            try await store.repository(Person.self).insert(person)
            let fetched = try expectNotNil(try await store.repository(Person.self).fetch(person.id))
            try expectEqual(fetched, person)
            try expect(fetched.email == nil && fetched.age == nil && fetched.rating == nil && fetched.avatar == nil)
        },
        ConformanceCheck(.crud, "compositeAttributeFieldsRoundTrip") { c in
            let store = try await c.store()
            let person = Person(name: "C", address: Address(city: "Évora", street: "Rua 1", postcode: "7000"))
            try await store.repository(Person.self).insert(person)
            try expectEqual(try await store.repository(Person.self).fetch(person.id)?.address, person.address)
        },
        ConformanceCheck(.crud, "enumStoresRawValue") { c in
            let store = try await c.store()
            let person = Person(name: "E", status: .silver)
            try await store.repository(Person.self).insert(person)
            let record = try await store.read { try $0.record("Person", id: person.id.recordID) }
            try expectEqual(record?["status"], .string("silver"))
            try expectEqual(try await store.repository(Person.self).fetch(person.id)?.status, .silver)
        },
        ConformanceCheck(.crud, "stringAndInt64IDsRoundTrip") { c in
            let store = try await c.store()
            try await store.repository(Tag.self).insert(Tag(id: "näive-ü", label: "Unicode"))
            try await store.repository(Agency.self).insert(Agency(id: Int64.max, name: "Max"))
            try await store.repository(Agency.self).insert(Agency(id: Int64.min, name: "Min"))
            try expectEqual(try await store.repository(Tag.self).fetch("näive-ü")?.label, "Unicode")
            try expectEqual(try await store.repository(Agency.self).fetch(Int64.max)?.name, "Max")
            try expectEqual(try await store.repository(Agency.self).fetch(Int64.min)?.name, "Min")
        },
        ConformanceCheck(.crud, "fetchMissingIDReturnsNil") { c in
            let store = try await c.store()
            try expectEqual(try await store.repository(Person.self).fetch(UUID()), nil)
            try expectEqual(try await store.repository(Tag.self).fetch("nope"), nil)
        },
        ConformanceCheck(.crud, "insertExistingIDIsDuplicateID") { c in
            let store = try await c.store()
            let person = Person(name: "Dup")
            try await store.repository(Person.self).insert(person)
            var again = person
            again.name = "Other"
            try await expectRejected(store, .duplicateID, entity: "Person") {
                try await store.repository(Person.self).insert(again)
            }
        },
        ConformanceCheck(.crud, "updateReplacesValues") { c in
            let store = try await c.store()
            var person = Person(name: "Before", age: 20)
            try await store.repository(Person.self).insert(person)
            person.name = "After"
            person.age = nil
            person.address.street = "New Street"
            try await store.repository(Person.self).update(person)
            try expectEqual(try await store.repository(Person.self).fetch(person.id), person)
        },
        ConformanceCheck(.crud, "updateMissingIsNotFound") { c in
            let store = try await c.store()
            try await expectRejected(store, .notFound, entity: "Person") {
                try await store.repository(Person.self).update(Person(name: "Ghost"))
            }
        },
        ConformanceCheck(.crud, "upsertInsertsThenReplaces") { c in
            let store = try await c.store()
            var person = Person(name: "Up")
            try await store.repository(Person.self).upsert(person)
            try expectEqual(try await store.repository(Person.self).count(), 1)
            person.name = "Upserted"
            try await store.repository(Person.self).upsert(person)
            try expectEqual(try await store.repository(Person.self).count(), 1)
            try expectEqual(try await store.repository(Person.self).fetch(person.id)?.name, "Upserted")
        },
        ConformanceCheck(.crud, "deleteRemovesRecord") { c in
            let store = try await c.store()
            let person = Person(name: "Gone")
            try await store.repository(Person.self).insert(person)
            try await store.repository(Person.self).delete(person.id)
            try expectEqual(try await store.repository(Person.self).fetch(person.id), nil)
            try expectEqual(try await store.repository(Person.self).count(), 0)
        },
        ConformanceCheck(.crud, "deleteMissingIsNotFound") { c in
            let store = try await c.store()
            try await store.repository(Person.self).insert(Person(name: "Stays"))
            try await expectRejected(store, .notFound, entity: "Person") {
                try await store.repository(Person.self).delete(UUID())
            }
        },
        ConformanceCheck(.crud, "deleteWhereDeletesMatchesAndCounts") { c in
            let (store, _) = try await c.seeded()
            let deleted = try await store.repository(Tag.self).delete(where: .hasPrefix(\.label, "F"))
            try expectEqual(deleted, 1)
            try expectEqual(
                try await store.repository(Tag.self).fetch(.all.sorted(by: \.label)).map(\.id), ["beach", "city"])
        },
        ConformanceCheck(.crud, "batchInsertInOneSave") { c in
            let store = try await c.store()
            let people = (0..<250).map { Person(name: "P\($0)", age: $0 % 100) }
            try await store.repository(Person.self).insert(contentsOf: people)
            try expectEqual(try await store.repository(Person.self).count(), 250)
            try expectEqual(try await store.history().count, 1, "one save, one history transaction")
        },
        ConformanceCheck(.crud, "versionStartsAtOneAndBumpsOnChange") { c in
            let store = try await c.store()
            var person = Person(name: "V")
            try await store.repository(Person.self).insert(person)
            let id = person.id.recordID
            func version() async throws -> Int64? { try await store.read { try $0.record("Person", id: id)?.version } }
            try expectEqual(try await version(), 1)
            person.age = 40
            try await store.repository(Person.self).update(person)
            try expectEqual(try await version(), 2)
            try await store.repository(Person.self).update(person)
            try expectEqual(try await version(), 2, "an update that changes nothing writes nothing")
        },
        ConformanceCheck(.crud, "untypedRecordFlattensCompositeAndReferences") { c in
            let (store, data) = try await c.seeded()
            let record = try expectNotNil(try await store.read { try $0.record("Person", id: data.ana.id.recordID) })
            try expectEqual(record["address.city"], .string("Lisbon"))
            try expectEqual(record["address.postcode"], .string("1100"))
            let trip = try expectNotNil(
                try await store.read { try $0.record("Trip", id: data.lisbonSpring.id.recordID) })
            try expectEqual(trip["traveller"], .uuid(data.ana.id))
            try expectEqual(trip.entity, "Trip")
        },
        ConformanceCheck(.crud, "untypedInsertAppliesDefaults") { c in
            let store = try await c.store()
            let id = UUID()
            try await store.transaction { tx in
                try tx.insert(
                    Record(entity: "Trip", id: .uuid(id), values: ["name": "Raw", "start": .date(TravelDomain.day(1))]))
            }
            let trip = try expectNotNil(try await store.repository(Trip.self).fetch(id))
            try expectEqual(trip.isFavorite, false)
            try expectEqual(trip.budget, nil)
        },
        ConformanceCheck(.crud, "untypedPatchChangesOnlyGivenProperties") { c in
            let (store, data) = try await c.seeded()
            try await store.transaction { tx in
                try tx.update("Person", id: data.bruno.id.recordID, set: ["age": 29, "address.city": "Braga"])
            }
            var expected = data.bruno
            expected.age = 29
            expected.address.city = "Braga"
            try expectEqual(try await store.repository(Person.self).fetch(data.bruno.id), expected)
        },
        ConformanceCheck(.crud, "datesAndBytesRoundTripExactly") { c in
            let store = try await c.store()
            let precise = Date(timeIntervalSince1970: 1_767_225_600.123456)
            let bytes = Data((0...255).map(UInt8.init))
            let person = Person(name: "Exact", birthDate: precise, avatar: bytes)
            try await store.repository(Person.self).insert(person)
            let fetched = try expectNotNil(try await store.repository(Person.self).fetch(person.id))
            try expectEqual(fetched.avatar, bytes)
            try expect(
                abs((fetched.birthDate ?? .distantPast).timeIntervalSince(precise)) < 0.000_001, "date precision lost")
        },
        ConformanceCheck(.crud, "textIsStoredVerbatim") { c in
            let store = try await c.store()
            let names = [
                "'); DROP TABLE Person; --", "emoji 🧳✈️", "line\nbreak\ttab", "\"quotes\" and \\backslash",
                String(repeating: "x", count: 80),
            ]
            for name in names { try await store.repository(Person.self).insert(Person(name: name)) }
            let stored = Set(try await store.repository(Person.self).fetch().map(\.name))
            try expectEqual(stored, Set(names))
        },
        ConformanceCheck(.crud, "numericExtremesRoundTrip") { c in
            let store = try await c.store()
            let people = [
                Person(name: "a", age: 0, rating: 0), Person(name: "b", age: 150, rating: 5.0),
                Person(name: "c", rating: 0.1 + 0.2),
            ]
            try await store.repository(Person.self).insert(contentsOf: people)
            for person in people { try expectEqual(try await store.repository(Person.self).fetch(person.id), person) }
            try await store.repository(Agency.self).insert(Agency(id: -42, name: "Negative"))
            try expectEqual(try await store.repository(Agency.self).fetch(-42)?.name, "Negative")
        },
        ConformanceCheck(.crud, "aClosedStoreRefusesWork") { c in
            let store = try await c.store()
            try await store.repository(Tag.self).insert(Tag(id: "x", label: "X"))
            try await store.close()
            try await expectError(.storeClosed) { _ = try await store.repository(Tag.self).count() }
            try await expectError(.storeClosed) {
                try await store.repository(Tag.self).insert(Tag(id: "y", label: "Y"))
            }
            try await store.close()
        },
        ConformanceCheck(.crud, "reopenKeepsRecords", requires: [.reopen]) { c in
            let (store, data) = try await c.seeded()
            let reopened = try await c.reopen(store)
            try expectEqual(try await reopened.repository(Person.self).fetch(data.ana.id), data.ana)
            try expectEqual(try await reopened.repository(Trip.self).count(), data.trips.count)
            try expectEqual(try await reopened.repository(Agency.self).fetch(data.sol.id), data.sol)
        },
        ConformanceCheck(.crud, "reopenKeepsVersionsAndAcceptsWrites", requires: [.reopen]) { c in
            let store = try await c.store()
            var person = Person(name: "Keep")
            try await store.repository(Person.self).insert(person)
            person.age = 1
            try await store.repository(Person.self).update(person)
            let reopened = try await c.reopen(store)
            let id = person.id.recordID
            try expectEqual(try await reopened.read { try $0.record("Person", id: id)?.version }, 2)
            person.age = 2
            try await reopened.repository(Person.self).update(person)
            try expectEqual(try await reopened.repository(Person.self).fetch(person.id)?.age, 2)
        },
    ]
}
