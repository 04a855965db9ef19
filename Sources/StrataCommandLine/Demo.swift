import ArgumentParser
import Foundation
import Strata
import StrataSync
import StrataFixtures
import StrataSyncServer

/// The end-to-end tour: builds the travel domain, queries it, shows each delete rule acting and a
/// deny refusing, rejects bad input, merge policies, a live query with its diffs, sync, and the
/// history.
public struct Demo: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(abstract: "An end-to-end tour of Strata on a store URL.")

    @Option(name: .long, help: "The store URL (sqlite:PATH, sqlite::memory:, memory:, memory:NAME).")
    var store: String = CommandLineBackends.defaultStore

    public init() {}

    public func run() async throws {
        CommandLineBackends.register()
        let store = try await Store.open(self.store, schema: try TravelDomain.schema())
        print("Strata demo on \(self.store)")
        if try await store.repository(Person.self).count() > 0 {
            print("  (the store already holds data: clearing it first)")
            try await clear(store)
        }

        let startToken = try await store.currentHistoryToken()

        section("1. Build the travel domain in one atomic save")
        let data = try await TravelData.seed(store)
        let cover = Photo(caption: "Sunset at Belém")
        try await store.transaction(author: "demo") { tx in
            try tx.insert(cover)
            var spring = data.lisbonSpring
            spring.coverPhoto = cover.id
            try tx.update(spring)
            try tx.insert(Passport(number: "PT-123", owner: data.ana.id))
        }
        for (name, count) in [
            ("people", try await store.repository(Person.self).count()),
            ("trips", try await store.repository(Trip.self).count()),
            ("stops", try await store.repository(Stop.self).count()),
            ("tags", try await store.repository(Tag.self).count()),
        ] { print("  \(count) \(name)") }
        let passport = try await store.repository(Person.self).fetch(data.ana.id)?.passport
        print("  Ana's passport (inverse kept by the engine): \(passport.map { "\($0)" } ?? "none")")

        section("2. Queries")
        let trips = store.repository(Trip.self)
        let upcoming = try await trips.fetch(Query.where(\.start > TravelDomain.day(100)).sorted(by: \.start).limit(3))
        print("  next 3 trips after day 100:        \(upcoming.map(\.name))")
        let anas = try await trips.fetch(where: .related(\.traveller, where: \Person.name == "Ana"))
        print("  trips whose traveller is Ana:      \(anas.map(\.name))")
        let viaLisbon = try await trips.fetch(where: .any(Trip.stops, where: \Stop.city == "Lisbon"))
        print("  trips with a stop in Lisbon:       \(viaLisbon.map(\.name))")
        let lisbonPrefix = try await trips.fetch(
            Query.where(.hasPrefix(\.name, "lisbon", options: .caseInsensitive)).sorted(by: \.start))
        print("  name starts with \"lisbon\" (any case): \(lisbonPrefix.map(\.name))")
        let acores = try await trips.fetch(
            where: .contains(\.name, "acores", options: [.caseInsensitive, .diacriticInsensitive]))
        print("  name contains \"acores\" (ignoring case and accents): \(acores.map(\.name))")
        let byBudget = try await trips.fetch(Query.all.sorted(by: \.budget)).map {
            "\($0.name)=\($0.budget.map { String(Int($0)) } ?? "nil")"
        }
        print("  budget, nil first:                 \(byBudget)")
        let favourites = try await trips.count(where: \.isFavorite == true)
        let inLisbon = try await store.repository(Person.self).count(where: \.address.city == "Lisbon")
        print("  favourites: \(favourites); people in Lisbon: \(inLisbon)")
        for (trip, stops) in try await trips.fetch(
            Query.where(\.traveller == data.ana.id).sorted(by: \.start), including: Trip.stops)
        {
            print("  \(trip.name): stops in order \(stops.map(\.name)) (prefetched in one query)")
        }

        section("3. Delete rules")
        try await store.repository(Tag.self).delete("beach")
        let springTags = try await trips.related(Trip.tags, of: data.lisbonSpring.id).map(\.id)
        print("  nullify: deleted tag beach → Lisbon Spring's tags are now \(springTags)")
        try await store.repository(Person.self).delete(data.bruno.id)
        let hike = try await trips.fetch(data.azoresHike.id) == nil ? "gone" : "still there"
        let stop = try await store.repository(Stop.self).fetch(data.pontaDelgada.id) == nil ? "gone" : "still there"
        print("  cascade: deleted Bruno → Açores Hike \(hike), its stop \(stop)")
        do {
            try await store.repository(Agency.self).delete(data.sol.id)
        } catch let error as StrataError {
            print("  deny: deleting Sol Travel refused → \(error)")
        }
        try await store.repository(Photo.self).delete(cover.id)
        let coverAfter = try await trips.fetch(data.lisbonSpring.id)?.coverPhoto
        let coverFound = try await store.repository(Photo.self).fetch(cover.id) == nil ? "not found" : "found"
        print(
            "  noAction: deleted the cover photo → Lisbon Spring still points at "
                + "\(coverAfter.map { "\($0)" } ?? "nil"), which reads as \(coverFound)")

        section("4. Bad input is a typed error and changes nothing")
        let before = try await store.currentHistoryToken()
        for attempt in [
            Person(name: "Eve", email: "not-an-email"), Person(name: "Old", age: 200),
            Person(name: "Copy", email: "ana@example.com"),
        ] {
            do {
                try await store.repository(Person.self).insert(attempt)
            } catch let error as StrataError {
                print("  \(error)")
            }
        }
        do {
            try await trips.insert(Trip(name: "Orphan", start: TravelDomain.day(1), traveller: UUID()))
        } catch let error as StrataError {
            print("  \(error)")
        }
        print("  history token unchanged: \(try await store.currentHistoryToken() == before)")

        section("5. Contexts and merge policies")
        try await showMergePolicies(store, clara: data.clara)

        section("6. A live query and its diffs")
        try await showLiveQuery(store, url: self.store, trip: data.portoWine.id)

        section("7. Offline-first sync (this store is the server; two clients on memory:)")
        try await showSync(server: store, clara: data.clara.id)

        section("8. A schema migration (a notes store beside this one)")
        try await showMigration(url: self.store)

        section("9. History of this run")
        for entry in try await store.history(after: startToken) {
            let summary = Dictionary(grouping: entry.changes, by: \.kind).map { "\($0.value.count) \($0.key.rawValue)" }
                .sorted().joined(separator: ", ")
            let context = entry.contextName.map { " in context " + $0 } ?? ""
            print("  #\(entry.token) by \(entry.author ?? "-")\(context): \(summary)")
            for change in entry.changes where change.kind == .update {
                print("      update \(change.entity)(\(change.id)) \(change.changedProperties)")
            }
        }
        try await store.close()
        print("\nDone.")
    }

    /// Two contexts read Clara; B renames her and lowers her rating and saves first; A renames her
    /// too and sets her age. A's save conflicts, and each policy resolves it its own way.
    private func showMergePolicies(_ store: Store, clara: Person) async throws {
        print(
            "  A and B read Clara (rating 3.0, no age). B saves name \"Clara B\", rating 2.0; "
                + "then A saves name \"Clara A\", age 41:")
        let custom = MergePolicy.custom { conflict in
            guard var merged = conflict.stored, let mine = conflict.context else { return .fail }
            if case .string(let theirs) = merged["name"], case .string(let ours) = mine["name"] {
                merged["name"] = .string("\(theirs) & \(ours)")
            }
            merged["age"] = mine["age"]
            return .use(merged)
        }
        let policies: [MergePolicy] = [
            .error, .objectTrumpByProperty, .storeTrumpByProperty, .overwrite, .rollback, custom,
        ]
        for policy in policies {
            try await store.repository(Person.self).update(clara)
            let a = store.makeContext(name: "A", mergePolicy: policy)
            let b = store.makeContext(name: "B")
            guard var mine = try await a.fetch(Person.self, id: clara.id),
                var theirs = try await b.fetch(Person.self, id: clara.id)
            else { return }
            theirs.name = "Clara B"
            theirs.rating = 2.0
            try await b.update(theirs)
            try await b.save()
            mine.name = "Clara A"
            mine.age = 41
            try await a.update(mine)
            var outcome: String
            do {
                let result = try await a.save()
                outcome = "\(result.conflicts.count) conflict resolved"
            } catch let error as StrataError where error.code == .mergeConflict {
                let kinds = error.conflicts.map {
                    "\($0.kind.rawValue), read v\($0.baseVersion ?? 0), stored v\($0.storedVersion ?? 0)"
                }
                outcome = "refused: \(kinds.joined(separator: "; "))"
            }
            guard let stored = try await store.repository(Person.self).fetch(clara.id) else { return }
            let rating = stored.rating.map { String($0) } ?? "nil"
            let row = "name \"\(stored.name)\", rating \(rating), age \(stored.age.map(String.init) ?? "nil")"
            let name = policy.name.padding(toLength: 22, withPad: " ", startingAt: 0)
            print("  \(name) → \(row.padding(toLength: 44, withPad: " ", startingAt: 0)) (\(outcome))")
        }
        // A context sees others' commits on the records it has not changed, and says so.
        let watcher = store.makeContext(name: "watcher")
        _ = try await watcher.fetch(Person.self, id: clara.id)
        var renamed = clara
        renamed.name = "Clara C"
        try await store.repository(Person.self).update(renamed)
        let refresh = try await watcher.mergeChangesFromStore()
        let now = try await watcher.fetch(Person.self, id: clara.id)?.name ?? "-"
        print("  a third context refreshed \(refresh.refreshed.count) record after a repository save: now \"\(now)\"")
    }

    /// Two clients pull the store, one writes while offline and catches up, then both edit one
    /// trip at once and the conflict is resolved by the default policy (propertyMerge).
    private func showSync(server store: Store, clara: Person.ID) async throws {
        let server = SyncServer(store: store)
        let run = UUID().uuidString.prefix(6)
        func client(_ name: String, _ remote: any SyncRemote) async throws -> (Store, SyncEngine) {
            let local = try await Store.open(
                "memory:", schema: store.schema,
                options: OpenOptions(sync: SyncConfiguration(clientID: "\(name)-\(run)")))
            return (local, try SyncEngine(store: local, remote: remote))
        }
        let phoneLink = FaultInjectingRemote(InProcessTransport(server: server))
        let (phone, phoneSync) = try await client("phone", phoneLink)
        let (laptop, laptopSync) = try await client("laptop", InProcessTransport(server: server))
        let phonePulled = try await phoneSync.syncNow().pulled
        print("  phone pulled \(phonePulled) records, laptop \(try await laptopSync.syncNow().pulled)")

        await phoneLink.inject([.offline(attempts: 2)])
        let madeira = Trip(name: "Madeira", start: TravelDomain.day(420), budget: 700, traveller: clara)
        try await phone.repository(Trip.self).insert(madeira)
        guard var claraOnPhone = try await phone.repository(Person.self).fetch(clara) else { return }
        claraOnPhone.rating = 4.0
        try await phone.repository(Person.self).update(claraOnPhone)
        do {
            try await phoneSync.syncNow()
        } catch {
            let status = await phoneSync.status
            print(
                "  offline: 2 local saves succeeded; sync failed (\(status.lastError ?? "?")), "
                    + "\(status.pendingCount) mutations wait in the outbox")
        }
        let back = try await phoneSync.syncNow()
        let outbox = await phoneSync.status.pendingCount
        let hasMadeira = try await store.repository(Trip.self).fetch(madeira.id) != nil
        print("  back online: pushed \(back.pushed), outbox now \(outbox); server has Madeira: \(hasMadeira)")
        _ = try await laptopSync.syncNow()

        // Both edit Madeira; the phone's upload path is down when it next syncs.
        guard var onLaptop = try await laptop.repository(Trip.self).fetch(madeira.id),
            var onPhone = try await phone.repository(Trip.self).fetch(madeira.id)
        else { return }
        onLaptop.name = "Madeira 2027"
        onLaptop.isFavorite = true
        try await laptop.repository(Trip.self).update(onLaptop)
        onPhone.name = "Madeira (phone)"
        onPhone.budget = 900
        try await phone.repository(Trip.self).update(onPhone)
        _ = try await laptopSync.syncNow()
        await phoneLink.inject([.pushesFail(attempts: 1)])
        do {
            try await phoneSync.syncNow()
        } catch {
            print(
                "  phone: upload failed, download ran and met its pending edit → "
                    + "propertyMerge keeps the phone's changed properties over the server's record")
        }
        let settle = try await phoneSync.syncNow()
        _ = try await laptopSync.syncNow()
        for (name, side) in [("server", store), ("phone", phone), ("laptop", laptop)] {
            guard let trip = try await side.repository(Trip.self).fetch(madeira.id) else { continue }
            let budget = trip.budget.map { String(Int($0)) } ?? "nil"
            let label = name.padding(toLength: 7, withPad: " ", startingAt: 0)
            print("  \(label) name \"\(trip.name)\", budget \(budget), favourite \(trip.isFavorite)")
        }
        let phonePending = try await phoneSync.refreshStatus().pendingCount
        let laptopPending = try await laptopSync.refreshStatus().pendingCount
        print(
            "  settled: phone pushed \(settle.pushed) more; "
                + "outboxes hold \(phonePending) and \(laptopPending) mutations")
    }

    private func section(_ title: String) {
        print("\n\(title)")
    }

    private func clear(_ store: Store) async throws {
        try await store.transaction { tx in
            for entity in ["Guide", "Trip", "Agency", "Person", "Passport", "Tag", "Photo", "Node", "Stop"] {
                for record in try tx.fetch(FetchPlan(entity: entity)) where try tx.record(entity, id: record.id) != nil
                {
                    try tx.delete(entity, id: record.id)
                }
            }
        }
    }
}
