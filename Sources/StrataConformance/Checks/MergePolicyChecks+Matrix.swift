import Foundation
import Strata

/// The policy matrix: each scenario run under every policy.
extension MergePolicyChecks {
    // MARK: The matrix

    static func updateUpdateSameProperty(_ c: ConformanceContext, _ policy: PolicyUnderTest) async throws {
        let (store, data) = try await c.seeded()
        let context = store.makeContext(name: "editor", mergePolicy: policy.policy)
        var mine = try expectNotNil(try await context.fetch(Person.self, id: data.ana.id))
        var theirs = data.ana
        theirs.name = "Ana Store"
        try await store.repository(Person.self).update(theirs)
        mine.name = "Ana Context"
        try await context.update(mine)
        let conflicts = try await saveExpectingConflicts(context, store, policy)
        let conflict = conflicts[0]
        try expectEqual(conflict.kind, .updatedInBoth)
        try expectEqual(conflict.baseVersion, 1)
        try expectEqual(conflict.storedVersion, 2)
        try expectEqual(conflict.base?["name"], "Ana")
        try expectEqual(conflict.stored?["name"], "Ana Store")
        try expectEqual(conflict.context?["name"], "Ana Context")
        try expectEqual(conflict.contextChanges, ["name"])
        try expectEqual(conflict.storeChanges, ["name"])
        let expected: String =
            switch policy {
            case .error, .storeTrumpByProperty, .rollback: "Ana Store"
            case .objectTrumpByProperty, .overwrite: "Ana Context"
            case .custom: "Ana Store|Ana Context"
            }
        try expectEqual(try await store.repository(Person.self).fetch(data.ana.id)?.name, expected)
        // After a save the context holds what was stored; after a refused one, its own change.
        try expectEqual(
            try await context.fetch(Person.self, id: data.ana.id)?.name, policy == .error ? "Ana Context" : expected)
    }

    static func updateUpdateDifferentProperties(_ c: ConformanceContext, _ policy: PolicyUnderTest) async throws {
        let (store, data) = try await c.seeded()
        let context = store.makeContext(mergePolicy: policy.policy)
        var mine = try expectNotNil(try await context.fetch(Person.self, id: data.ana.id))
        var theirs = data.ana
        theirs.age = 40
        try await store.repository(Person.self).update(theirs)
        mine.name = "Ana Context"
        try await context.update(mine)
        let conflict = try await saveExpectingConflicts(context, store, policy)[0]
        try expectEqual(conflict.contextChanges, ["name"])
        try expectEqual(conflict.storeChanges, ["age"])
        let (name, age): (String, Int?) =
            switch policy {
            case .error: ("Ana", 40)
            case .objectTrumpByProperty, .storeTrumpByProperty, .custom: ("Ana Context", 40)
            case .overwrite: ("Ana Context", 34)
            case .rollback: ("Ana", 40)
            }
        let stored = try expectNotNil(try await store.repository(Person.self).fetch(data.ana.id))
        try expectEqual(stored.name, name)
        try expectEqual(stored.age, age)
        try expectEqual(stored.email, data.ana.email, "a property neither side changed is kept")
    }

    static func updatedHereDeletedInStore(_ c: ConformanceContext, _ policy: PolicyUnderTest) async throws {
        let (store, data) = try await c.seeded()
        let context = store.makeContext(mergePolicy: policy.policy)
        var mine = try expectNotNil(try await context.fetch(Person.self, id: data.dario.id))
        try await store.repository(Person.self).delete(data.dario.id)
        mine.age = 46
        try await context.update(mine)
        let conflict = try await saveExpectingConflicts(context, store, policy)[0]
        try expectEqual(conflict.kind, .deletedInStore)
        try expectEqual(conflict.storedVersion, nil)
        try expectEqual(conflict.stored, nil)
        try expectEqual(conflict.context?["age"], 46)
        let revived = try await store.repository(Person.self).fetch(data.dario.id)
        switch policy {
        case .objectTrumpByProperty, .overwrite, .custom:
            try expectEqual(revived?.age, 46, "the context's record is written back")
            try expectEqual(revived?.email, data.dario.email)
        case .error, .storeTrumpByProperty, .rollback:
            try expectEqual(revived, nil, "the deletion stands")
        }
    }

    static func deletedHereUpdatedInStore(_ c: ConformanceContext, _ policy: PolicyUnderTest) async throws {
        let (store, data) = try await c.seeded()
        let context = store.makeContext(mergePolicy: policy.policy)
        _ = try await context.fetch(Person.self, id: data.dario.id)
        var theirs = data.dario
        theirs.age = 50
        try await store.repository(Person.self).update(theirs)
        try await context.delete(Person.self, id: data.dario.id)
        let conflict = try await saveExpectingConflicts(context, store, policy)[0]
        try expectEqual(conflict.kind, .deletedInContext)
        try expectEqual(conflict.context, nil)
        try expectEqual(conflict.stored?["age"], 50)
        let remaining = try await store.repository(Person.self).fetch(data.dario.id)
        switch policy {
        case .objectTrumpByProperty, .overwrite:
            try expectEqual(remaining, nil, "the context's delete wins")
        case .error, .storeTrumpByProperty, .rollback, .custom:
            try expectEqual(remaining?.age, 50, "the store's record stands")
        }
    }

    static func uniquenessClash(_ c: ConformanceContext, _ policy: PolicyUnderTest) async throws {
        let (store, _) = try await c.seeded()
        let context = store.makeContext(mergePolicy: policy.policy)
        let born = TravelDomain.day(-9_000)
        let mine = Person(name: "Eva Silva", email: "eva@example.com", birthDate: born)
        try await context.insert(mine)
        let trip = Trip(name: "Eva's trip", start: TravelDomain.day(400), traveller: mine.id)
        try await context.insert(trip)
        // Another writer takes the email first.
        let theirs = Person(name: "Eva", email: "eva@example.com", age: 30)
        try await store.repository(Person.self).insert(theirs)
        let conflict = try await saveExpectingConflicts(context, store, policy)[0]
        try expectEqual(conflict.kind, .uniqueness)
        try expectEqual(conflict.id, .uuid(mine.id))
        try expectEqual(conflict.stored?.id, .uuid(theirs.id))
        try expectEqual(conflict.constraint, ["email"])
        let people = store.repository(Person.self)
        if policy == .error {
            try expectEqual(try await people.count(where: \.email == "eva@example.com"), 1)
            return
        }
        try expectEqual(try await people.fetch(mine.id), nil, "the stored record's ID survives")
        let survivor = try expectNotNil(try await people.fetch(theirs.id))
        switch policy {
        case .objectTrumpByProperty:
            try expectEqual(survivor.name, "Eva Silva")
            try expectEqual(survivor.age, 30, "a value the new record lacks is kept")
            try expectEqual(survivor.birthDate, born)
        case .storeTrumpByProperty, .custom:
            try expectEqual(survivor.name, "Eva")
            try expectEqual(survivor.age, 30)
            try expectEqual(survivor.birthDate, born, "what the stored record lacked is filled")
        case .overwrite:
            try expectEqual(survivor.name, "Eva Silva")
            try expectEqual(survivor.age, nil, "the new record's values replace the stored ones")
            try expectEqual(survivor.birthDate, born)
        case .rollback:
            try expectEqual(survivor.name, "Eva")
            try expectEqual(survivor.birthDate, nil)
        case .error:
            break
        }
        // References to the merged-away record are redirected, and the inverse agrees.
        try expectEqual(try await store.repository(Trip.self).fetch(trip.id)?.traveller, theirs.id)
        try expectEqual(
            try await store.repository(Person.self).related(Person.trips, of: theirs.id).map(\.id), [trip.id])
    }

    static func relationshipChangedOnBothSides(_ c: ConformanceContext, _ policy: PolicyUnderTest) async throws {
        let (store, data) = try await c.seeded()
        let context = store.makeContext(mergePolicy: policy.policy)
        let trip = data.lisbonSpring.id
        // The context adds food and removes city; the store meanwhile removes beach.
        try await context.link(Trip.tags, from: trip, to: "food")
        try await context.unlink(Trip.tags, from: trip, to: "city")
        try expectEqual(try await context.related(Trip.tags, of: trip).map(\.id), ["beach", "food"])
        try await store.repository(Trip.self).unlink(Trip.tags, from: trip, to: "beach")
        let conflict = try await saveExpectingConflicts(context, store, policy)[0]
        try expectEqual(conflict.kind, .updatedInBoth)
        try expectEqual(conflict.memberships["tags"]?.base, [.string("beach"), .string("city")])
        try expectEqual(conflict.memberships["tags"]?.stored, [.string("city")])
        try expectEqual(conflict.memberships["tags"]?.context, [.string("beach"), .string("food")])
        let expected: [String] =
            switch policy {
            case .error, .storeTrumpByProperty, .rollback: ["city"]
            case .objectTrumpByProperty, .custom: ["food"]
            case .overwrite: ["beach", "food"]
            }
        let trips = store.repository(Trip.self)
        try expectEqual(try await trips.related(Trip.tags, of: trip).map(\.id), expected)
        for tag in ["beach", "city", "food"] {
            let members = try await store.repository(Tag.self).related(Tag.trips, of: tag).map(\.id)
            try expectEqual(members.contains(trip), expected.contains(tag), "the inverse side of \(tag) agrees")
        }
    }

    static func threeContextsRacing(_ c: ConformanceContext, _ policy: PolicyUnderTest) async throws {
        let (store, data) = try await c.seeded()
        let contexts = (0..<3).map { store.makeContext(name: "racer\($0)", mergePolicy: policy.policy) }
        var copies: [Person] = []
        for context in contexts {
            copies.append(try expectNotNil(try await context.fetch(Person.self, id: data.ana.id)))
        }
        copies[0].name = "A"
        copies[1].age = 40
        copies[2].name = "C"
        for (context, copy) in zip(contexts, copies) { try await context.update(copy) }
        try expectEqual(try await contexts[0].save().conflicts.count, 0, "the first save finds nothing")
        let second = try await saveExpectingConflicts(contexts[1], store, policy)[0]
        try expectEqual(second.baseVersion, 1)
        try expectEqual(second.storedVersion, 2)
        let third = try await saveExpectingConflicts(contexts[2], store, policy)[0]
        try expectEqual(third.baseVersion, 1)
        try expectEqual(third.storedVersion, policy == .error || policy == .rollback ? 2 : 3)
        let (name, age): (String, Int?) =
            switch policy {
            case .error, .rollback: ("A", 34)
            case .objectTrumpByProperty: ("C", 40)
            case .storeTrumpByProperty: ("A", 40)
            case .overwrite: ("C", 34)
            case .custom: ("A|C", 40)
            }
        let stored = try expectNotNil(try await store.repository(Person.self).fetch(data.ana.id))
        try expectEqual(stored.name, name)
        try expectEqual(stored.age, age)
    }
}
