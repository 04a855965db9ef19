import Foundation
import Strata

/// The policies the matrix runs, each with what it must produce.
enum PolicyUnderTest: String, CaseIterable, Sendable {
    case error, objectTrumpByProperty, storeTrumpByProperty, overwrite, rollback, custom

    var policy: MergePolicy {
        switch self {
        case .error: .error
        case .objectTrumpByProperty: .objectTrumpByProperty
        case .storeTrumpByProperty: .storeTrumpByProperty
        case .overwrite: .overwrite
        case .rollback: .rollback
        case .custom: .custom(Self.customResolution)
        }
    }

    /// The custom policy of the suite, a realistic domain rule: on an update in both places keep
    /// the store's record with this context's changes, and where both changed the same text
    /// property, keep both as `store|context`; bring back a record the store deleted; keep a
    /// record the store changed rather than delete it; and on a uniqueness clash keep the
    /// stored values, filling what they lack.
    @Sendable static func customResolution(_ conflict: MergeConflict) throws -> MergeResolution {
        switch conflict.kind {
        case .updatedInBoth:
            guard var merged = conflict.stored, let mine = conflict.context else { return .fail }
            for name in conflict.contextChanges where merged.values[name] != nil || mine.values[name] != nil {
                if conflict.storeChanges.contains(name), case .string(let theirs) = merged[name], case .string(let ours) = mine[name] {
                    merged[name] = .string("\(theirs)|\(ours)")
                } else {
                    merged[name] = mine[name]
                }
            }
            return .use(merged)
        case .deletedInStore: return .overwrite
        case .deletedInContext: return .rollback
        case .uniqueness: return .storeTrumpByProperty
        }
    }
}

enum MergePolicyChecks {
    static var all: [ConformanceCheck] {
        matrix("updateUpdateSameProperty", updateUpdateSameProperty)
            + matrix("updateUpdateDifferentProperties", updateUpdateDifferentProperties)
            + matrix("updatedHereDeletedInStore", updatedHereDeletedInStore)
            + matrix("deletedHereUpdatedInStore", deletedHereUpdatedInStore)
            + matrix("uniquenessClash", uniquenessClash)
            + matrix("relationshipChangedOnBothSides", relationshipChangedOnBothSides)
            + matrix("threeContextsRacing", threeContextsRacing)
            + membershipConflicts
            + others
    }

    static func matrix(_ scenario: String, _ body: @escaping @Sendable (ConformanceContext, PolicyUnderTest) async throws -> Void) -> [ConformanceCheck] {
        PolicyUnderTest.allCases.map { policy in
            ConformanceCheck(.mergePolicies, "\(scenario)_\(policy.rawValue)") { c in try await body(c, policy) }
        }
    }

    /// Saves `context`, expecting a `mergeConflict` that leaves the store untouched under
    /// ``PolicyUnderTest/error`` and a resolved save otherwise. Returns the conflicts.
    @discardableResult
    static func saveExpectingConflicts(
        _ context: ModelContext, _ store: Store, _ policy: PolicyUnderTest, count: Int = 1,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line
    ) async throws -> [MergeConflict] {
        if policy == .error {
            let error = try await expectRejected(store, .mergeConflict, fileID: fileID, filePath: filePath, line: line) {
                try await context.save()
            }
            try expectEqual(error.conflicts.count, count, "conflicts listed", fileID: fileID, filePath: filePath, line: line)
            try expect(await context.hasChanges, "a failed save keeps the context's changes", fileID: fileID, filePath: filePath, line: line)
            return error.conflicts
        }
        let result = try await context.save()
        try expectEqual(result.conflicts.count, count, "conflicts resolved", fileID: fileID, filePath: filePath, line: line)
        try expect(!(await context.hasChanges), "a saved context has nothing pending", fileID: fileID, filePath: filePath, line: line)
        return result.conflicts
    }

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
        let expected: String = switch policy {
        case .error, .storeTrumpByProperty, .rollback: "Ana Store"
        case .objectTrumpByProperty, .overwrite: "Ana Context"
        case .custom: "Ana Store|Ana Context"
        }
        try expectEqual(try await store.repository(Person.self).fetch(data.ana.id)?.name, expected)
        // After a save the context holds what was stored; after a refused one, its own change.
        try expectEqual(try await context.fetch(Person.self, id: data.ana.id)?.name, policy == .error ? "Ana Context" : expected)
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
        let (name, age): (String, Int?) = switch policy {
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
        try expectEqual(try await store.repository(Person.self).related(Person.trips, of: theirs.id).map(\.id), [trip.id])
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
        let expected: [String] = switch policy {
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
        for context in contexts { copies.append(try expectNotNil(try await context.fetch(Person.self, id: data.ana.id))) }
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
        let (name, age): (String, Int?) = switch policy {
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

extension MergePolicyChecks {
    static let others: [ConformanceCheck] = [
        ConformanceCheck(.mergePolicies, "concurrentContextsLoseNoUpdateUnderError") { c in
            let (store, data) = try await c.seeded()
            var start = data.clara
            start.age = 0
            try await store.repository(Person.self).update(start)
            let tasks = 8
            let increments = 5
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<tasks {
                    group.addTask {
                        for _ in 0..<increments {
                            while true {
                                let context = store.makeContext()
                                var clara = try expectNotNil(try await context.fetch(Person.self, id: data.clara.id))
                                clara.age = (clara.age ?? 0) + 1
                                try await context.update(clara)
                                do {
                                    try await context.save()
                                    break
                                } catch let error as StrataError where error.code == .mergeConflict {
                                    try expectEqual(error.conflicts.count, 1, "each failed save reports its conflict")
                                    try expectEqual(error.conflicts.first?.id, .uuid(data.clara.id))
                                }
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            try expectEqual(try await store.repository(Person.self).fetch(data.clara.id)?.age, tasks * increments, "no update was lost")
            // A refused attempt wrote nothing: Clara's history is the seed, the reset, and one save per increment.
            let saves = try await store.history().filter { $0.changes.contains { $0.id == .uuid(data.clara.id) } }
            try expectEqual(saves.count, tasks * increments + 2)
        },
        ConformanceCheck(.mergePolicies, "contextTracksPendingChangesAndRollsBack") { c in
            let (store, data) = try await c.seeded()
            let context = store.makeContext()
            try expect(!(await context.hasChanges))
            var ana = try expectNotNil(try await context.fetch(Person.self, id: data.ana.id))
            ana.age = 35
            ana.rating = 4.0
            try await context.update(ana)
            let newcomer = Person(name: "Nova")
            try await context.insert(newcomer)
            try await context.delete(Person.self, id: data.dario.id)
            try expect(await context.hasChanges)
            let pending = await context.pendingChanges
            try expectEqual(pending.inserted, [RecordKey(entity: "Person", id: .uuid(newcomer.id))])
            try expectEqual(pending.deleted, [RecordKey(entity: "Person", id: .uuid(data.dario.id))])
            try expectEqual(pending.updated[RecordKey(entity: "Person", id: .uuid(data.ana.id))], ["age", "rating"])
            // Changing a property back to what was read is no longer a change.
            ana.age = 34
            ana.rating = 4.5
            try await context.update(ana)
            try expectEqual(await context.pendingChanges.updated.count, 0)
            await context.rollback()
            try expect(!(await context.hasChanges))
            try expectEqual(try await context.fetch(Person.self, id: newcomer.id), nil)
            try expectEqual(try await context.fetch(Person.self, id: data.dario.id)?.name, "Dário")
            let result = try await context.save()
            try expectEqual(result.token, nil, "nothing pending writes nothing")
        },
        ConformanceCheck(.mergePolicies, "contextFetchesSeeItsPendingChanges") { c in
            let (store, data) = try await c.seeded()
            let context = store.makeContext()
            let porto = Query<Person>.where(\.address.city == "Porto")
            let newcomer = Person(name: "Nuno", address: Address(city: "Porto"))
            try await context.insert(newcomer)
            try await context.delete(Person.self, id: data.bruno.id)
            var ana = try expectNotNil(try await context.fetch(Person.self, id: data.ana.id))
            ana.address.city = "Porto"
            try await context.update(ana)
            try expectEqual(Set(try await context.fetch(porto).map(\.name)), ["Nuno", "Ana"])
            try expectEqual(try await context.count(porto), 2)
            try expectEqual(try await store.repository(Person.self).fetch(porto).map(\.name), ["Bruno"], "the store is untouched before save")
            let trip = Trip(name: "Nuno's trip", start: TravelDomain.day(500), traveller: newcomer.id)
            try await context.insert(trip)
            try expectEqual(try await context.related(Person.trips, of: newcomer.id).map(\.id), [trip.id])
            try await context.save()
            try expectEqual(Set(try await store.repository(Person.self).fetch(porto).map(\.name)), ["Nuno", "Ana"])
        },
        ConformanceCheck(.mergePolicies, "contextSaveRunsDeleteRulesAndValidation") { c in
            let (store, data) = try await c.seeded()
            let context = store.makeContext()
            var bruno = try expectNotNil(try await context.fetch(Person.self, id: data.bruno.id))
            bruno.age = 999
            try await context.update(bruno)
            try await expectRejected(store, .validationFailed, entity: "Person") { try await context.save() }
            try expect(await context.hasChanges, "a rejected save keeps the pending changes")
            bruno.age = 29
            try await context.update(bruno)
            try await context.delete(Person.self, id: data.ana.id)
            try await context.save()
            try expectEqual(try await store.repository(Trip.self).count(where: \.traveller == data.ana.id), 0, "cascade ran")
            try expectEqual(try await store.repository(Person.self).fetch(data.bruno.id)?.age, 29)
            let history = try expectNotNil(try await store.history().last)
            try expectEqual(history.contextName, nil)
        },
        ConformanceCheck(.mergePolicies, "contextSavesAreRecordedWithItsNameAndAuthor") { c in
            let (store, data) = try await c.seeded()
            let context = store.makeContext(name: "importer", author: "batch-7")
            var clara = try expectNotNil(try await context.fetch(Person.self, id: data.clara.id))
            clara.rating = 2.0
            try await context.update(clara)
            let token = try expectNotNil(try await context.save().token)
            let entry = try expectNotNil(try await store.history(after: HistoryToken(token.value - 1)).first)
            try expectEqual(entry.contextName, "importer")
            try expectEqual(entry.author, "batch-7")
            try expectEqual(entry.changes.map(\.changedProperties), [["rating"]])
            // Its own save is no conflict for its next one.
            clara.rating = 2.5
            try await context.update(clara)
            try expectEqual(try await context.save().conflicts.count, 0)
        },
        ConformanceCheck(.mergePolicies, "unchangedRecordsRefreshWhenOthersCommit") { c in
            let (store, data) = try await c.seeded()
            let context = store.makeContext(mergePolicy: .objectTrumpByProperty)
            _ = try await context.fetch(Person.self, id: data.ana.id)
            var bruno = try expectNotNil(try await context.fetch(Person.self, id: data.bruno.id))
            _ = try await context.fetch(Person.self, id: data.dario.id)
            bruno.rating = 1.0
            try await context.update(bruno)
            let other = store.makeContext(name: "other")
            var ana = try expectNotNil(try await other.fetch(Person.self, id: data.ana.id))
            var otherBruno = try expectNotNil(try await other.fetch(Person.self, id: data.bruno.id))
            ana.name = "Ana Maria"
            otherBruno.name = "Bruno Other"
            try await other.update(ana)
            try await other.update(otherBruno)
            try await other.save()
            try await store.repository(Person.self).delete(data.dario.id)
            // Any fetch catches up; what moved is reported.
            _ = try await context.fetch(Query<Tag>.all)
            let refresh = try expectNotNil(await context.lastRefresh)
            try expectEqual(refresh.refreshed, [RecordKey(entity: "Person", id: .uuid(data.ana.id))])
            try expectEqual(refresh.conflicting, [RecordKey(entity: "Person", id: .uuid(data.bruno.id))])
            try expectEqual(refresh.deleted, [RecordKey(entity: "Person", id: .uuid(data.dario.id))])
            try expectEqual(try await context.fetch(Person.self, id: data.ana.id)?.name, "Ana Maria", "unchanged record took the new value")
            let mine = try expectNotNil(try await context.fetch(Person.self, id: data.bruno.id))
            try expectEqual(mine.name, "Bruno", "a changed record keeps the context's values until save")
            try expectEqual(mine.rating, 1.0)
            try expectEqual(try await context.save().conflicts.count, 1)
            let saved = try expectNotNil(try await store.repository(Person.self).fetch(data.bruno.id))
            try expectEqual(saved.name, "Bruno Other")
            try expectEqual(saved.rating, 1.0)
        },
        ConformanceCheck(.mergePolicies, "refreshesArePublished") { c in
            let (store, data) = try await c.seeded()
            let context = store.makeContext()
            _ = try await context.fetch(Person.self, id: data.ana.id)
            var ana = data.ana
            ana.age = 36
            try await store.repository(Person.self).update(ana)
            let refresh = try await context.mergeChangesFromStore()
            try expectEqual(refresh.refreshed, [RecordKey(entity: "Person", id: .uuid(data.ana.id))])
            var iterator = context.refreshes.makeAsyncIterator()
            let published = try expectNotNil(await iterator.next())
            try expectEqual(published, refresh)
            try expectEqual(try await context.fetch(Person.self, id: data.ana.id)?.age, 36)
        },
        ConformanceCheck(.mergePolicies, "refreshWithOrWithoutMergingChanges") { c in
            let (store, data) = try await c.seeded()
            let context = store.makeContext()
            var clara = try expectNotNil(try await context.fetch(Person.self, id: data.clara.id))
            clara.rating = 1.5
            try await context.update(clara)
            var theirs = data.clara
            theirs.name = "Clara B."
            try await store.repository(Person.self).update(theirs)
            try await context.refresh(Person.self, id: data.clara.id, mergeChanges: true)
            let merged = try expectNotNil(try await context.fetch(Person.self, id: data.clara.id))
            try expectEqual(merged.name, "Clara B.")
            try expectEqual(merged.rating, 1.5)
            try expectEqual(try await context.save().conflicts.count, 0, "a refreshed record no longer conflicts")
            clara = merged
            clara.rating = 0.5
            try await context.update(clara)
            try await context.refresh(Person.self, id: data.clara.id, mergeChanges: false)
            try expect(!(await context.hasChanges), "refresh without merging drops the change")
        },
        ConformanceCheck(.mergePolicies, "toOneChangedInBothPlacesEndsConsistent") { c in
            let (store, data) = try await c.seeded()
            let context = store.makeContext(mergePolicy: .objectTrumpByProperty)
            var mine = try expectNotNil(try await context.fetch(Trip.self, id: data.portoWine.id))
            var theirs = data.portoWine
            theirs.traveller = data.clara.id
            try await store.repository(Trip.self).update(theirs)
            mine.traveller = data.bruno.id
            try await context.update(mine)
            try expectEqual(try await context.save().conflicts.count, 1)
            let people = store.repository(Person.self)
            try expect(try await people.related(Person.trips, of: data.bruno.id).contains { $0.id == data.portoWine.id })
            try expect(!(try await people.related(Person.trips, of: data.clara.id).contains { $0.id == data.portoWine.id }))
            try expect(!(try await people.related(Person.trips, of: data.ana.id).contains { $0.id == data.portoWine.id }))
        },
        ConformanceCheck(.mergePolicies, "inverseOnAnUntouchedRecordIsNoConflict") { c in
            let (store, data) = try await c.seeded()
            let context = store.makeContext()
            // The context moves a trip to Bruno without ever reading Bruno, whom the store edits meanwhile.
            var trip = try expectNotNil(try await context.fetch(Trip.self, id: data.portoWine.id))
            var bruno = data.bruno
            bruno.rating = 3.5
            try await store.repository(Person.self).update(bruno)
            trip.traveller = data.bruno.id
            try await context.update(trip)
            try expectEqual(try await context.save().conflicts.count, 0)
            try expectEqual(try await store.repository(Person.self).fetch(data.bruno.id)?.rating, 3.5)
            try expectEqual(Set(try await store.repository(Person.self).related(Person.trips, of: data.bruno.id).map(\.id)),
                            [data.azoresHike.id, data.portoWine.id])
            // Many-to-many: tagging from the trip side changes the tag's side too.
            try await context.link(Trip.tags, from: data.azoresHike.id, to: "food")
            try await context.save()
            try expectEqual(Set(try await store.repository(Tag.self).related(Tag.trips, of: "food").map(\.id)),
                            [data.portoWine.id, data.azoresHike.id])
        },
        ConformanceCheck(.mergePolicies, "deletedOnBothSidesIsNoConflict") { c in
            let (store, data) = try await c.seeded()
            let context = store.makeContext()
            _ = try await context.fetch(Person.self, id: data.dario.id)
            try await context.delete(Person.self, id: data.dario.id)
            try await store.repository(Person.self).delete(data.dario.id)
            try expectEqual(try await context.save().conflicts.count, 0)
            try expectEqual(try await store.repository(Person.self).count(), 3)
        },
        ConformanceCheck(.mergePolicies, "conflictErrorListsEveryConflictWithBothSnapshots") { c in
            let (store, data) = try await c.seeded()
            let context = store.makeContext()
            var ana = try expectNotNil(try await context.fetch(Person.self, id: data.ana.id))
            var bruno = try expectNotNil(try await context.fetch(Person.self, id: data.bruno.id))
            ana.age = 1
            bruno.age = 2
            try await context.update(ana)
            try await context.update(bruno)
            try await context.insert(Tag(id: "fresh", label: "Fresh"))
            try await store.transaction { tx in
                try tx.update("Person", id: .uuid(data.ana.id), set: ["rating": 1.0])
                try tx.update("Person", id: .uuid(data.bruno.id), set: ["rating": 2.0])
            }
            let error = try await expectRejected(store, .mergeConflict) { try await context.save() }
            try expectEqual(Set(error.conflicts.map(\.id)), [.uuid(data.ana.id), .uuid(data.bruno.id)])
            for conflict in error.conflicts {
                try expectEqual(conflict.baseVersion, 1)
                try expectEqual(conflict.storedVersion, 2)
                try expectEqual(conflict.storeChanges, ["rating"])
                try expectEqual(conflict.contextChanges, ["age"])
                try expect(conflict.base != nil && conflict.stored != nil && conflict.context != nil)
            }
            try expectEqual(try await store.repository(Tag.self).fetch("fresh"), nil, "nothing was written")
        },
        ConformanceCheck(.mergePolicies, "repositoryWritesAreLastWriterWins") { c in
            let (store, data) = try await c.seeded()
            let people = store.repository(Person.self)
            var first = data.ana
            first.name = "First"
            var second = data.ana
            second.age = 50
            try await people.update(first)
            try await people.update(second)
            let stored = try expectNotNil(try await people.fetch(data.ana.id))
            try expectEqual(stored.name, "Ana", "a repository update replaces the whole record, unchecked")
            try expectEqual(stored.age, 50)
        },
    ]
}
