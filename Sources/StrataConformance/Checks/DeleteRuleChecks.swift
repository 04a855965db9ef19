import Foundation
import Strata
import Synchronization

enum DeleteRuleChecks {
    static let all: [ConformanceCheck] = cascade + nullify + deny + denyOnEveryStorage + noAction + batch

    static let cascade: [ConformanceCheck] = [
        ConformanceCheck(.deleteRules, "cascadeDeletesDestinations") { c in
            let (store, data) = try await c.seeded()
            try await store.repository(Person.self).delete(data.bruno.id)
            try expectEqual(try await store.repository(Trip.self).fetch(data.azoresHike.id), nil)
            try expectEqual(try await store.repository(Trip.self).count(), 4)
        },
        ConformanceCheck(.deleteRules, "cascadeIsRecursive") { c in
            let (store, data) = try await c.seeded()
            // Ana → trips (cascade) → stops (cascade). Her trips are booked with Sol, which survives.
            var portoWine = data.portoWine
            portoWine.agency = nil
            try await store.repository(Trip.self).update(portoWine)
            var spring = data.lisbonSpring
            spring.agency = nil
            try await store.repository(Trip.self).update(spring)
            try await store.repository(Person.self).delete(data.ana.id)
            try expectEqual(try await store.repository(Trip.self).count(), 3)
            try expectEqual(Set(try await store.repository(Stop.self).fetch().map(\.name)), ["Ponta Delgada"])
        },
        ConformanceCheck(.deleteRules, "cascadeThroughOneToOne") { c in
            let (store, data) = try await c.seeded()
            let passport = Passport(number: "C-1", owner: data.dario.id)
            try await store.repository(Passport.self).insert(passport)
            try await store.repository(Person.self).delete(data.dario.id)
            try expectEqual(try await store.repository(Passport.self).fetch(passport.id), nil)
        },
        ConformanceCheck(.deleteRules, "cascadeCycleTerminates") { c in
            let store = try await c.store()
            try await store.transaction { tx in
                try tx.insert(Node(id: "a", next: "b"))
                try tx.insert(Node(id: "b", next: "c"))
                try tx.insert(Node(id: "c", next: "a"))
                try tx.insert(Node(id: "lonely"))
            }
            try expectEqual(try await store.repository(Node.self).fetch("a")?.previous, "c")
            try await store.repository(Node.self).delete("b")
            try expectEqual(try await store.repository(Node.self).fetch().map(\.id), ["lonely"])
        },
        ConformanceCheck(.deleteRules, "cascadeOfManyChildren") { c in
            let store = try await c.store()
            let trip = Trip(name: "Long", start: TravelDomain.day(1))
            try await store.transaction { tx in
                try tx.insert(trip)
                for index in 0..<300 { try tx.insert(Stop(name: "S\(index)", city: "C\(index % 10)", trip: trip.id)) }
            }
            try expectEqual(try await store.repository(Trip.self).related(Trip.stops, of: trip.id).count, 300)
            try await store.repository(Trip.self).delete(trip.id)
            try expectEqual(try await store.repository(Stop.self).count(), 0)
        },
        ConformanceCheck(.deleteRules, "cascadeReachesRecordsInsertedInTheSameSave") { c in
            let (store, data) = try await c.seeded()
            // The rules act on the save's final state: a trip added to Dário in the save that
            // deletes him goes with him.
            let trip = Trip(name: "Last Minute", start: TravelDomain.day(3), traveller: data.dario.id)
            try await store.transaction { tx in
                try tx.delete(Person.self, id: data.dario.id)
                try tx.insert(trip)
            }
            try expectEqual(try await store.repository(Trip.self).fetch(trip.id), nil)
        },
        ConformanceCheck(.deleteRules, "cascadeRecordsEachChildsLastVersion") { c in
            // Entries need nothing of their own rules, so a cascade may delete them by ID and
            // version without reading their values; history still names each at its last version.
            let store = try await c.store(try LogbookDomain.schema())
            let book = Logbook(name: "Versions")
            let entries = (0..<4).map { LogEntry(text: "E\($0)", logbook: book.id) }
            try await store.transaction { tx in
                try tx.insert(book)
                for entry in entries { try tx.insert(entry) }
            }
            // Entry n is updated n times: its version is n + 1.
            for (index, entry) in entries.enumerated() {
                var changed = entry
                for round in 0..<index {
                    changed.text = "E\(index) r\(round)"
                    try await store.repository(LogEntry.self).update(changed)
                }
            }
            let before = try await store.currentHistoryToken()
            try await store.repository(Logbook.self).delete(book.id)
            let changes = try await store.history(after: before).flatMap(\.changes).filter { $0.entity == "LogEntry" }
            try expectEqual(
                changes.map { "\($0.kind) \($0.id) v\($0.version)" }.sorted(),
                entries.enumerated().map { "\(HistoryChange.Kind.delete) \(RecordID.uuid($1.id)) v\($0 + 1)" }.sorted())
            try expectEqual(try await store.repository(LogEntry.self).count(), 0)
        },
        ConformanceCheck(.deleteRules, "cascadeSparesChildrenMovedAwayInTheSameSave") { c in
            // The rules act on the save's final state: an entry moved to another logbook, and one
            // changed, in the save that deletes its logbook — the first survives, the second goes
            // at its committed version.
            let store = try await c.store(try LogbookDomain.schema())
            let (old, new) = (Logbook(name: "Old"), Logbook(name: "New"))
            let (moved, edited, plain) = (
                LogEntry(text: "moved", logbook: old.id), LogEntry(text: "edited", logbook: old.id),
                LogEntry(text: "plain", logbook: old.id)
            )
            try await store.transaction { tx in
                for book in [old, new] { try tx.insert(book) }
                for entry in [moved, edited, plain] { try tx.insert(entry) }
            }
            let before = try await store.currentHistoryToken()
            try await store.transaction { tx in
                var away = moved
                away.logbook = new.id
                try tx.update(away)
                var changed = edited
                changed.text = "edited again"
                try tx.update(changed)
                try tx.delete(Logbook.self, id: old.id)
            }
            try expectEqual(try await store.repository(LogEntry.self).fetch().map(\.text), ["moved"])
            try expectEqual(try await store.repository(Logbook.self).related(Logbook.entries, of: new.id).count, 1)
            let deleted = try await store.history(after: before).flatMap(\.changes).filter { $0.kind == .delete }
            try expectEqual(
                deleted.map { "\($0.entity) \($0.id) v\($0.version)" }.sorted(),
                [
                    "LogEntry \(RecordID.uuid(edited.id)) v1", "LogEntry \(RecordID.uuid(plain.id)) v1",
                    "Logbook \(RecordID.uuid(old.id)) v1",
                ].sorted())
        },
        ConformanceCheck(.deleteRules, "cascadeHandsHooksTheChildrensLastState") { c in
            // A hook that reads what a delete removes gets each cascaded entry whole.
            let seen = Mutex<[String]>([])
            var hooks = SaveHooks()
            hooks.afterValidation("texts of deleted entries", LogEntry.self) { _, change in
                if change.kind == .delete, case .string(let text)? = change.original?["text"] {
                    seen.withLock { $0.append(text) }
                }
            }
            let store = try await c.store(try LogbookDomain.schema()).withHooks(hooks)
            let book = Logbook(name: "Hooked")
            try await store.transaction { tx in
                try tx.insert(book)
                for index in 0..<3 { try tx.insert(LogEntry(text: "E\(index)", logbook: book.id)) }
            }
            try await store.repository(Logbook.self).delete(book.id)
            try expectEqual(seen.withLock { $0.sorted() }, ["E0", "E1", "E2"])
        },
        ConformanceCheck(.deleteRules, "cascadedDeletesAreRecordedInTheSameHistoryTransaction") { c in
            let (store, data) = try await c.seeded()
            let before = try await store.currentHistoryToken()
            try await store.repository(Person.self).delete(data.bruno.id)
            let entries = try await store.history(after: before)
            try expectEqual(entries.count, 1)
            let deleted = Set(entries[0].changes.filter { $0.kind == .delete }.map { "\($0.entity):\($0.id)" })
            try expectEqual(
                deleted, ["Person:\(data.bruno.id)", "Trip:\(data.azoresHike.id)", "Stop:\(data.pontaDelgada.id)"])
        },
    ]

    static let nullify: [ConformanceCheck] = [
        ConformanceCheck(.deleteRules, "nullifyClearsTheInverseToOne") { c in
            let (store, data) = try await c.seeded()
            let passport = Passport(number: "N-1", owner: data.ana.id)
            try await store.repository(Passport.self).insert(passport)
            try await store.repository(Passport.self).delete(passport.id)
            let ana = try expectNotNil(try await store.repository(Person.self).fetch(data.ana.id))
            try expectEqual(ana.passport, nil)
        },
        ConformanceCheck(.deleteRules, "nullifyRemovesFromManyToMany") { c in
            let (store, data) = try await c.seeded()
            try await store.repository(Tag.self).delete("beach")
            try expectEqual(
                try await store.repository(Trip.self).related(Trip.tags, of: data.lisbonSpring.id).map(\.id), ["city"])
            try await store.repository(Trip.self).delete(data.portoWine.id)
            try expectEqual(try await store.repository(Tag.self).related(Tag.trips, of: "food"), [])
            try expectNotNil(try await store.repository(Tag.self).fetch("food"), "the tag survives")
        },
        ConformanceCheck(.deleteRules, "nullifyKeepsTheOrderOfTheRest") { c in
            let (store, data) = try await c.seeded()
            try await store.repository(Stop.self).delete(data.belem.id)
            try expectEqual(
                try await store.repository(Trip.self).related(Trip.stops, of: data.lisbonSpring.id).map(\.name),
                ["Alfama", "Sintra"])
        },
        ConformanceCheck(.deleteRules, "nullifyLeavesTheDestinationOfAToOne") { c in
            let (store, data) = try await c.seeded()
            try await store.repository(Trip.self).delete(data.lisbonWinter.id)
            try expectNotNil(try await store.repository(Person.self).fetch(data.clara.id))
            try expectEqual(try await store.repository(Person.self).related(Person.trips, of: data.clara.id), [])
        },
        ConformanceCheck(.deleteRules, "nullifyThatEmptiesARequiredRelationshipFails") { c in
            let store = try await c.store()
            let agency = Agency(id: 7, name: "Guided")
            let guide = Guide(name: "Rui", agency: agency.id)
            try await store.transaction { tx in
                try tx.insert(agency)
                try tx.insert(guide)
            }
            try await expectRejected(store, .missingValue, entity: "Guide", property: "agency") {
                try await store.repository(Agency.self).delete(agency.id)
            }
        },
        ConformanceCheck(.deleteRules, "unlinkingARequiredMemberFails") { c in
            let (store, data) = try await c.seeded()
            try await expectRejected(store, .missingValue, entity: "Stop", property: "trip") {
                try await store.repository(Trip.self).unlink(Trip.stops, from: data.lisbonSpring.id, to: data.alfama.id)
            }
        },
    ]

    static let deny: [ConformanceCheck] = [
        ConformanceCheck(.deleteRules, "denyRefusesWhileDestinationsSurvive") { c in
            let (store, data) = try await c.seeded()
            let error = try await expectRejected(store, .deleteDenied, entity: "Agency", property: "bookings") {
                try await store.repository(Agency.self).delete(data.sol.id)
            }
            try expectEqual(error.count, 2, "the error names how many destinations block the delete")
        },
        ConformanceCheck(.deleteRules, "denyAllowsWhenThereAreNoDestinations") { c in
            let store = try await c.store()
            try await store.repository(Agency.self).insert(Agency(id: 9, name: "Empty"))
            try await store.repository(Agency.self).delete(9)
            try expectEqual(try await store.repository(Agency.self).count(), 0)
        },
        ConformanceCheck(.deleteRules, "denyIgnoresDestinationsDeletedInTheSameSave") { c in
            let (store, data) = try await c.seeded()
            try await store.transaction { tx in
                try tx.delete(Trip.self, id: data.lisbonSpring.id)
                try tx.delete(Agency.self, id: data.sol.id)
                try tx.delete(Trip.self, id: data.portoWine.id)
            }
            try expectEqual(try await store.repository(Agency.self).count(), 0)
            try expectEqual(try await store.repository(Trip.self).count(), 3)
        },
        ConformanceCheck(.deleteRules, "denyAllowsOnceDestinationsMovedAway") { c in
            let (store, data) = try await c.seeded()
            try await store.transaction { tx in
                try tx.setRelated(Agency.bookings, of: data.sol.id, to: [])
                try tx.delete(Agency.self, id: data.sol.id)
            }
            try expectEqual(try await store.repository(Trip.self).fetch(data.lisbonSpring.id)?.agency, nil)
        },
        ConformanceCheck(.deleteRules, "denyDeepInACascadeAbortsEverything") { c in
            let (store, data) = try await c.seeded()
            // Dário owns an agency (cascade) that has a booking by Bruno (deny): deleting Dário fails whole.
            let agency = Agency(id: 2, name: "Dário Tours", owner: data.dario.id)
            try await store.repository(Agency.self).insert(agency)
            var hike = data.azoresHike
            hike.agency = agency.id
            try await store.repository(Trip.self).update(hike)
            let passport = Passport(number: "D-1", owner: data.dario.id)
            try await store.repository(Passport.self).insert(passport)
            try await expectRejected(store, .deleteDenied, entity: "Agency", property: "bookings") {
                try await store.repository(Person.self).delete(data.dario.id)
            }
        },
        ConformanceCheck(.deleteRules, "denyDeepInACascadeAllowsWhenTheCascadeTakesTheDestinations") { c in
            let (store, data) = try await c.seeded()
            // Bruno owns an agency whose only booking is Bruno's own trip: the cascade removes both.
            let agency = Agency(id: 3, name: "Bruno Tours", owner: data.bruno.id)
            try await store.repository(Agency.self).insert(agency)
            var hike = data.azoresHike
            hike.agency = agency.id
            try await store.repository(Trip.self).update(hike)
            try await store.repository(Person.self).delete(data.bruno.id)
            try expectEqual(try await store.repository(Agency.self).fetch(agency.id), nil)
            try expectEqual(try await store.repository(Trip.self).fetch(data.azoresHike.id), nil)
        },
    ]

    static let noAction: [ConformanceCheck] = [
        ConformanceCheck(.deleteRules, "noActionLeavesADanglingReference") { c in
            let (store, data) = try await c.seeded()
            let photo = Photo(caption: "Cover")
            try await store.repository(Photo.self).insert(photo)
            var trip = data.portoWine
            trip.coverPhoto = photo.id
            try await store.repository(Trip.self).update(trip)
            try await store.repository(Photo.self).delete(photo.id)
            let stored = try expectNotNil(try await store.repository(Trip.self).fetch(trip.id))
            try expectEqual(stored.coverPhoto, photo.id, "the reference is left as it was")
            try expectEqual(try await store.repository(Photo.self).fetch(photo.id), nil, "and reads as not found")
            try expectEqual(
                try await store.repository(Trip.self).referenced(Photo.self, by: \.coverPhoto, of: [stored]), [:])
            try expectEqual(
                try await store.repository(Trip.self).count(where: .related(\.coverPhoto, where: Filter<Photo>.always)),
                0)
        },
        ConformanceCheck(.deleteRules, "aDanglingReferenceDoesNotBlockOtherUpdates") { c in
            let (store, data) = try await c.seeded()
            let photo = Photo()
            try await store.repository(Photo.self).insert(photo)
            var trip = data.lisbonWinter
            trip.coverPhoto = photo.id
            try await store.repository(Trip.self).update(trip)
            try await store.repository(Photo.self).delete(photo.id)
            trip.budget = 350
            try await store.repository(Trip.self).update(trip)
            try expectEqual(try await store.repository(Trip.self).fetch(trip.id)?.budget, 350)
        },
        ConformanceCheck(.deleteRules, "noActionOnTheSourceSideLeavesTheDestination") { c in
            let (store, data) = try await c.seeded()
            let photo = Photo()
            try await store.repository(Photo.self).insert(photo)
            var trip = data.lisbonWinter
            trip.coverPhoto = photo.id
            try await store.repository(Trip.self).update(trip)
            try await store.repository(Trip.self).delete(trip.id)
            try expectNotNil(try await store.repository(Photo.self).fetch(photo.id))
            try expectEqual(try await store.repository(Photo.self).related(Photo.coverOf, of: photo.id), [])
        },
    ]

    static let batch: [ConformanceCheck] = [
        ConformanceCheck(.deleteRules, "batchDeleteHonoursCascade") { c in
            let (store, _) = try await c.seeded()
            let deleted = try await store.repository(Trip.self).delete(where: \.agency == nil)
            try expectEqual(deleted, 3)
            try expectEqual(
                Set(try await store.repository(Stop.self).fetch().map(\.name)),
                ["Alfama", "Belém", "Sintra", "Ribeira"])
        },
        ConformanceCheck(.deleteRules, "batchDeleteHonoursDeny") { c in
            let (store, _) = try await c.seeded()
            try await store.repository(Agency.self).insert(Agency(id: 5, name: "Unused"))
            try await expectRejected(store, .deleteDenied, entity: "Agency") {
                try await store.repository(Agency.self).delete(where: .always)
            }
        },
        ConformanceCheck(.deleteRules, "deletingARecordAndItsCascadeTargetTogether") { c in
            let (store, data) = try await c.seeded()
            try await store.transaction { tx in
                try tx.delete(Stop.self, id: data.ribeira.id)
                try tx.delete(Trip.self, id: data.azoresHike.id)
                try tx.delete(Person.self, id: data.bruno.id)
            }
            try expectEqual(try await store.repository(Stop.self).count(), 3)
            try expectEqual(try await store.repository(Person.self).count(), 3)
        },
    ]
}
