import Foundation
import Strata

/// Moving an existing to-one away — to another record or to nil — updates the old destination's
/// side (an ordered list, a derived to-many, a one-to-one partner), through every write path.
extension RelationshipChecks {
    /// How a check changes one property of one record.
    enum WritePath: String, CaseIterable, Sendable {
        case repository, transaction, context

        func set(_ store: Store, _ key: RecordKey, _ property: String, _ value: Value) async throws {
            switch self {
            case .repository, .transaction:
                try await store.transaction { tx in try tx.update(key.entity, id: key.id, set: [property: value]) }
            case .context:
                let context = store.makeContext()
                try await context.setValue(key, property, value)
                try await context.save()
            }
        }
    }

    static func version(_ store: Store, _ entity: String, _ id: RecordID) async throws -> Int64? {
        try await store.read { try $0.record(entity, id: id)?.version }
    }

    static let moves: [ConformanceCheck] = [
        ConformanceCheck(.relationships, "movingAToOneAwayUpdatesTheOldOrderedList") { c in
            let store = try await c.store()
            for path in WritePath.allCases {
                let (first, second) = (Shelf(label: "1"), Shelf(label: "2"))
                let book = Book(title: "B", shelf: first.id)
                let other = Book(title: "O", shelf: first.id)
                try await store.transaction { tx in
                    for model in [first, second] { try tx.insert(model) }
                    try tx.insert(book)
                    try tx.insert(other)
                }
                let key = RecordKey(entity: "Book", id: book.id.recordID)
                let firstVersion = try await version(store, "Shelf", first.id.recordID)
                let before = try await store.currentHistoryToken()
                if path == .repository {
                    var moved = book
                    moved.shelf = second.id
                    try await store.repository(Book.self).update(moved)
                } else {
                    try await path.set(store, key, "shelf", second.id.recordID.value)
                }
                try expectEqual(
                    try await store.repository(Shelf.self).related(Shelf.books, of: first.id).map(\.id), [other.id],
                    "\(path): the old list lets go")
                try expectEqual(
                    try await store.repository(Shelf.self).related(Shelf.books, of: second.id).map(\.id), [book.id],
                    "\(path): the new list holds it")
                try expectEqual(
                    try await version(store, "Shelf", first.id.recordID), firstVersion.map { $0 + 1 },
                    "\(path): the old owner's version moves")
                let changes = try await store.history(after: before).flatMap(\.changes)
                try expect(
                    changes.contains {
                        $0.entity == "Shelf" && $0.id == first.id.recordID && $0.changedProperties == ["books"]
                    },
                    "\(path): history names the old owner's list: \(changes)")
                try await path.set(store, key, "shelf", .null)
                try expectEqual(
                    try await store.repository(Shelf.self).related(Shelf.books, of: second.id), [],
                    "\(path): moved to nil")
                try expectEqual(try await store.repository(Book.self).fetch(book.id)?.shelf, nil)
            }
        },
        ConformanceCheck(.relationships, "movingAToOneAwayUpdatesTheOldDerivedToMany") { c in
            let (store, data) = try await c.seeded()
            for (index, path) in WritePath.allCases.enumerated() {
                let trip = Trip(name: "Moving \(index)", start: TravelDomain.day(Double(index)), traveller: data.ana.id)
                try await store.repository(Trip.self).insert(trip)
                let key = RecordKey(entity: "Trip", id: trip.id.recordID)
                try await path.set(store, key, "traveller", data.bruno.id.recordID.value)
                try expect(
                    !(try await store.repository(Person.self).related(Person.trips, of: data.ana.id)).contains {
                        $0.id == trip.id
                    }, "\(path): Ana lets go")
                try expect(
                    try await store.repository(Person.self).related(Person.trips, of: data.bruno.id).contains {
                        $0.id == trip.id
                    }, "\(path): Bruno holds it")
                try expectEqual(try await version(store, "Trip", trip.id.recordID), 2)
                try await path.set(store, key, "traveller", .null)
                try expect(
                    !(try await store.repository(Person.self).related(Person.trips, of: data.bruno.id)).contains {
                        $0.id == trip.id
                    }, "\(path): to nil")
            }
        },
        ConformanceCheck(.relationships, "movingAOneToOneAwayClearsTheOldPartnerFromEitherSide") { c in
            let (store, data) = try await c.seeded()
            for path in WritePath.allCases {
                let (old, new) = (Passport(number: "O-\(path)", owner: data.ana.id), Passport(number: "N-\(path)"))
                try await store.transaction { tx in
                    try tx.insert(old)
                    try tx.insert(new)
                }
                let oldVersion = try await version(store, "Passport", old.id.recordID)
                // From the person's side, to another passport.
                try await path.set(
                    store, RecordKey(entity: "Person", id: data.ana.id.recordID), "passport", new.id.recordID.value)
                try expectEqual(
                    try await store.repository(Passport.self).fetch(old.id)?.owner, nil,
                    "\(path): the old partner lets go")
                try expectEqual(
                    try await version(store, "Passport", old.id.recordID), oldVersion.map { $0 + 1 },
                    "\(path): its version moves")
                try expectEqual(try await store.repository(Passport.self).fetch(new.id)?.owner, data.ana.id)
                // From the person's side, to nil.
                try await path.set(store, RecordKey(entity: "Person", id: data.ana.id.recordID), "passport", .null)
                try expectEqual(try await store.repository(Passport.self).fetch(new.id)?.owner, nil, "\(path): to nil")
                // From the passport's side: it moves from Ana to Bruno, then to nil.
                try await path.set(
                    store, RecordKey(entity: "Passport", id: new.id.recordID), "owner", data.ana.id.recordID.value)
                try await path.set(
                    store, RecordKey(entity: "Passport", id: new.id.recordID), "owner", data.bruno.id.recordID.value)
                try expectEqual(
                    try await store.repository(Person.self).fetch(data.ana.id)?.passport, nil, "\(path): Ana lets go")
                try expectEqual(try await store.repository(Person.self).fetch(data.bruno.id)?.passport, new.id)
                try await path.set(store, RecordKey(entity: "Passport", id: new.id.recordID), "owner", .null)
                try expectEqual(
                    try await store.repository(Person.self).fetch(data.bruno.id)?.passport, nil,
                    "\(path): Bruno lets go")
                try await store.transaction { tx in
                    try tx.delete(Passport.self, id: old.id)
                    try tx.delete(Passport.self, id: new.id)
                }
            }
        },
    ]
}

extension ModelContext {
    /// Stages one property of an untyped record through the context's own update path.
    func setValue(_ key: RecordKey, _ property: String, _ value: Value) async throws {
        switch key.entity {
        case "Book": try await update(try changed(Book.self, key, property, value))
        case "Trip": try await update(try changed(Trip.self, key, property, value))
        case "Person": try await update(try changed(Person.self, key, property, value))
        case "Passport": try await update(try changed(Passport.self, key, property, value))
        case "Sample": try await update(try changed(Sample.self, key, property, value))
        default: throw StrataError(.unknownEntity, entity: key.entity, "no typed update for \(key.entity) in the suite")
        }
    }

    private func changed<M: PersistentModel>(_ type: M.Type, _ key: RecordKey, _ property: String, _ value: Value)
        async throws -> M
    {
        guard let id = M.ID(recordID: key.id), let model = try await fetch(M.self, id: id) else {
            throw StrataError(.notFound, entity: key.entity, recordID: key.id, "record does not exist")
        }
        var record = try model.record()
        record[property] = value
        return try M(record: record)
    }
}
