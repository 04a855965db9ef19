import Foundation
import Strata

/// Contexts beyond the matrix: pending changes, rollback, refresh, concurrency, history naming.
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
                            // Bounded: a backend serving stale reads would otherwise conflict forever.
                            for attempt in 1... {
                                try Task.checkCancellation()
                                try expect(
                                    attempt <= 1_000,
                                    "a context save conflicted 1,000 times in a row: reads return a stale version")
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
            try expectEqual(
                try await store.repository(Person.self).fetch(data.clara.id)?.age, tasks * increments,
                "no update was lost")
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
            try expectEqual(
                try await store.repository(Person.self).fetch(porto).map(\.name), ["Bruno"],
                "the store is untouched before save")
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
            try expectEqual(
                try await store.repository(Trip.self).count(where: \.traveller == data.ana.id), 0, "cascade ran")
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
            try expectEqual(
                try await context.fetch(Person.self, id: data.ana.id)?.name, "Ana Maria",
                "unchanged record took the new value")
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
            try expect(
                try await people.related(Person.trips, of: data.bruno.id).contains { $0.id == data.portoWine.id })
            try expect(
                !(try await people.related(Person.trips, of: data.clara.id).contains { $0.id == data.portoWine.id }))
            try expect(
                !(try await people.related(Person.trips, of: data.ana.id).contains { $0.id == data.portoWine.id }))
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
            try expectEqual(
                Set(try await store.repository(Person.self).related(Person.trips, of: data.bruno.id).map(\.id)),
                [data.azoresHike.id, data.portoWine.id])
            // Many-to-many: tagging from the trip side changes the tag's side too.
            try await context.link(Trip.tags, from: data.azoresHike.id, to: "food")
            try await context.save()
            try expectEqual(
                Set(try await store.repository(Tag.self).related(Tag.trips, of: "food").map(\.id)),
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
