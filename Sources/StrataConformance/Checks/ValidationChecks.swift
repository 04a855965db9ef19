import Foundation
import Strata

/// Every kind of bad input: a typed error naming entity, record and property, and an unchanged store.
enum ValidationChecks {
    static func raw(_ entity: String, _ values: [String: Value], id: RecordID = .uuid(UUID())) -> Record {
        Record(entity: entity, id: id, values: values)
    }

    static let validPerson: [String: Value] = [
        "name": "Raw", "address.city": "Lisbon", "status": "regular", "isVerified": false,
    ]

    static var all: [ConformanceCheck] { basics + violations }

    static let basics: [ConformanceCheck] = [
        ConformanceCheck(.validation, "missingRequiredAttribute") { c in
            let (store, _) = try await c.seeded()
            var values = validPerson
            values["name"] = nil
            let record = raw("Person", values)
            let error = try await expectRejected(store, .missingValue, entity: "Person", property: "name") {
                try await store.transaction { try $0.insert(record) }
            }
            try expect(error.recordID != nil, "the error names the record")
        },
        ConformanceCheck(.validation, "wrongType") { c in
            let (store, _) = try await c.seeded()
            var values = validPerson
            values["name"] = .int(7)
            let record = raw("Person", values)
            try await expectRejected(store, .typeMismatch, entity: "Person", property: "name") {
                try await store.transaction { try $0.insert(record) }
            }
        },
        ConformanceCheck(.validation, "wrongTypeForAReference") { c in
            let (store, data) = try await c.seeded()
            try await expectRejected(store, .typeMismatch, entity: "Trip", property: "agency") {
                try await store.transaction {
                    try $0.update("Trip", id: data.portoWine.id.recordID, set: ["agency": .string("1")])
                }
            }
        },
        ConformanceCheck(.validation, "unknownEntity") { c in
            let (store, _) = try await c.seeded()
            try await expectRejected(store, .unknownEntity, entity: "Spaceship") {
                try await store.transaction { try $0.insert(raw("Spaceship", ["name": "x"])) }
            }
        },
        ConformanceCheck(.validation, "unknownAttribute") { c in
            let (store, _) = try await c.seeded()
            var values = validPerson
            values["shoeSize"] = 44
            let record = raw("Person", values)
            try await expectRejected(store, .unknownProperty, entity: "Person", property: "shoeSize") {
                try await store.transaction { try $0.insert(record) }
            }
        },
        ConformanceCheck(.validation, "toManyIsNotAStoredValue") { c in
            let (store, data) = try await c.seeded()
            try await expectRejected(store, .unknownProperty, entity: "Person", property: "trips") {
                try await store.transaction {
                    try $0.update("Person", id: data.ana.id.recordID, set: ["trips": .uuid(data.azoresHike.id)])
                }
            }
        },
        ConformanceCheck(.validation, "wrongIDKind") { c in
            let (store, _) = try await c.seeded()
            try await expectRejected(store, .typeMismatch, entity: "Tag", property: "id") {
                try await store.transaction { try $0.insert(raw("Tag", ["label": "Bad"], id: .uuid(UUID()))) }
            }
        },
        ConformanceCheck(.validation, "rangeRule") { c in
            let (store, _) = try await c.seeded()
            try await expectRejected(store, .validationFailed, entity: "Person", property: "age") {
                try await store.repository(Person.self).insert(Person(name: "Old", age: 151))
            }
            try await expectRejected(store, .validationFailed, entity: "Trip", property: "budget") {
                try await store.repository(Trip.self).insert(
                    Trip(name: "Negative", start: TravelDomain.day(1), budget: -1))
            }
        },
        ConformanceCheck(.validation, "lengthRule") { c in
            let (store, _) = try await c.seeded()
            try await expectRejected(store, .validationFailed, entity: "Person", property: "name") {
                try await store.repository(Person.self).insert(Person(name: ""))
            }
            try await expectRejected(store, .validationFailed, entity: "Person", property: "address.postcode") {
                try await store.repository(Person.self).insert(
                    Person(name: "Post", address: Address(city: "X", postcode: "1")))
            }
        },
        ConformanceCheck(.validation, "patternRule") { c in
            let (store, _) = try await c.seeded()
            try await expectRejected(store, .validationFailed, entity: "Person", property: "email") {
                try await store.repository(Person.self).insert(Person(name: "Mail", email: "not an email"))
            }
        },
        ConformanceCheck(.validation, "customRecordCheck") { c in
            let (store, _) = try await c.seeded()
            try await expectRejected(store, .validationFailed, entity: "Trip", property: "end") {
                try await store.repository(Trip.self).insert(
                    Trip(name: "Backwards", start: TravelDomain.day(10), end: TravelDomain.day(9)))
            }
        },
        ConformanceCheck(.validation, "enumValueOutsideItsCases") { c in
            let (store, data) = try await c.seeded()
            try await expectRejected(store, .validationFailed, entity: "Person", property: "status") {
                try await store.transaction {
                    try $0.update("Person", id: data.ana.id.recordID, set: ["status": "platinum"])
                }
            }
        },
        ConformanceCheck(.validation, "uniqueAgainstTheStore") { c in
            let (store, _) = try await c.seeded()
            try await expectRejected(store, .uniqueViolation, entity: "Person", property: "email") {
                try await store.repository(Person.self).insert(Person(name: "Copy", email: "ana@example.com"))
            }
        },
        ConformanceCheck(.validation, "uniqueWithinOneSave") { c in
            let (store, _) = try await c.seeded()
            try await expectRejected(store, .uniqueViolation, entity: "Person", property: "email") {
                try await store.transaction { tx in
                    try tx.insert(Person(name: "One", email: "same@example.com"))
                    try tx.insert(Person(name: "Two", email: "same@example.com"))
                }
            }
        },
        ConformanceCheck(.validation, "uniqueByUpdate") { c in
            let (store, data) = try await c.seeded()
            var bruno = data.bruno
            bruno.email = "dario@example.com"
            try await expectRejected(store, .uniqueViolation, entity: "Person") {
                try await store.repository(Person.self).update(bruno)
            }
        },
        ConformanceCheck(.validation, "uniqueValueFreedInTheSameSaveCanBeReused") { c in
            let (store, data) = try await c.seeded()
            try await store.transaction { tx in
                var ana = data.ana
                ana.email = "ana.old@example.com"
                try tx.update(ana)
                try tx.insert(Person(name: "New Ana", email: "ana@example.com"))
            }
            try expectEqual(try await store.repository(Person.self).count(where: \.email == "ana@example.com"), 1)
        },
        ConformanceCheck(.validation, "uniqueValuesCanBeSwappedInOneSave") { c in
            let (store, data) = try await c.seeded()
            try await store.transaction { tx in
                var ana = data.ana
                var bruno = data.bruno
                ana.email = data.bruno.email
                bruno.email = data.ana.email
                try tx.update(ana)
                try tx.update(bruno)
            }
            try expectEqual(try await store.repository(Person.self).fetch(data.ana.id)?.email, "bruno@example.com")
            try expectEqual(try await store.repository(Person.self).fetch(data.bruno.id)?.email, "ana@example.com")
        },
        ConformanceCheck(.validation, "compoundUnique") { c in
            let (store, data) = try await c.seeded()
            try await expectRejected(store, .uniqueViolation, entity: "Trip", property: "name,start") {
                try await store.repository(Trip.self).insert(Trip(name: "Porto Wine", start: data.portoWine.start))
            }
            try await store.repository(Trip.self).insert(Trip(name: "Porto Wine", start: TravelDomain.day(200)))
            try expectEqual(try await store.repository(Trip.self).count(where: \.name == "Porto Wine"), 2)
        },
        ConformanceCheck(.validation, "nullsNeverClash") { c in
            let (store, _) = try await c.seeded()
            try await store.repository(Person.self).insert(Person(name: "No Mail 1"))
            try await store.repository(Person.self).insert(Person(name: "No Mail 2"))
            try expectEqual(try await store.repository(Person.self).count(where: .isNil(\.email)), 3)
        },
        ConformanceCheck(.validation, "referenceToAMissingRecord") { c in
            let (store, _) = try await c.seeded()
            try await expectRejected(store, .invalidReference, entity: "Trip", property: "traveller") {
                try await store.repository(Trip.self).insert(
                    Trip(name: "Orphan", start: TravelDomain.day(3), traveller: UUID()))
            }
        },
        ConformanceCheck(.validation, "referenceToARecordInsertedInTheSameSave") { c in
            let store = try await c.store()
            let person = Person(name: "Later")
            let trip = Trip(name: "Early", start: TravelDomain.day(3), traveller: person.id)
            try await store.transaction { tx in
                try tx.insert(trip)
                try tx.insert(person)
            }
            try expectEqual(
                try await store.repository(Person.self).related(Person.trips, of: person.id).map(\.id), [trip.id])
        },
        ConformanceCheck(.validation, "referenceToARecordDeletedInTheSameSave") { c in
            let (store, _) = try await c.seeded()
            let photo = Photo()
            try await store.repository(Photo.self).insert(photo)
            try await expectRejected(store, .invalidReference, entity: "Trip", property: "coverPhoto") {
                try await store.transaction { tx in
                    try tx.delete(Photo.self, id: photo.id)
                    try tx.insert(Trip(name: "Doomed", start: TravelDomain.day(3), coverPhoto: photo.id))
                }
            }
        },
        ConformanceCheck(.validation, "linkToAMissingRecord") { c in
            let (store, data) = try await c.seeded()
            try await expectRejected(store, .invalidReference, entity: "Trip", property: "tags") {
                try await store.repository(Trip.self).link(Trip.tags, from: data.portoWine.id, to: "missing")
            }
        },
        ConformanceCheck(.validation, "requiredToOneMissing") { c in
            let (store, _) = try await c.seeded()
            try await expectRejected(store, .missingValue, entity: "Stop", property: "trip") {
                try await store.transaction {
                    try $0.insert(raw("Stop", ["name": "Lost", "city": "Nowhere", "nights": 1]))
                }
            }
        },
        ConformanceCheck(.validation, "toManyCountBounds") { c in
            let (store, data) = try await c.seeded()
            try await store.transaction { tx in
                for index in 0..<3 { try tx.insert(Tag(id: "t\(index)", label: "T\(index)")) }
                for index in 0..<3 { try tx.link(Trip.tags, from: data.lisbonSpring.id, to: "t\(index)") }
            }
            let error = try await expectRejected(store, .relationshipCount, entity: "Trip", property: "tags") {
                try await store.repository(Tag.self).link(Tag.trips, from: "food", to: data.lisbonSpring.id)
            }
            try expectEqual(error.count, 6)
        },
        ConformanceCheck(.validation, "textContainingNULIsRejected") { c in
            let (store, _) = try await c.seeded()
            try await expectRejected(store, .validationFailed, entity: "Person", property: "name") {
                try await store.repository(Person.self).insert(Person(name: "nul\u{0}inside"))
            }
            try await expectRejected(store, .validationFailed, entity: "Tag", property: "id") {
                try await store.repository(Tag.self).insert(Tag(id: "a\u{0}b", label: "NUL"))
            }
        },
        ConformanceCheck(.validation, "aRejectedSaveLeavesTheStoreUsable") { c in
            let (store, _) = try await c.seeded()
            try await expectRejected(store, .validationFailed) {
                try await store.repository(Person.self).insert(Person(name: "Bad", age: -1))
            }
            try await store.repository(Person.self).insert(Person(name: "Good", age: 1))
            try expectEqual(try await store.repository(Person.self).count(), 5)
        },
    ]
}
