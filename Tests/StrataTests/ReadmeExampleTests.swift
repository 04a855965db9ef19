import Foundation
import Strata
import StrataInMemory
import Testing

// The README's service-layer example, compiled and run, so the documentation cannot rot.
private struct Person: PersistentModel {
    var id = UUID()
    var name: String
    var email: String?

    static let trips = ToMany<Person, Trip>("trips")
    static let entity = Entity<Person>("Person", [
        .attribute(\.name, rules: [.length(1...80)]),
        .attribute(\.email, unique: true, rules: [.pattern(#"[^@\s]+@[^@\s]+\.[a-z]{2,}"#)]),
        .toMany(trips, inverse: \Trip.traveller, deleteRule: .cascade),
    ])
}

private struct Trip: PersistentModel {
    var id = UUID()
    var name: String
    var start: Date
    var traveller: Person.ID?

    static let entity = Entity<Trip>("Trip", [
        .attribute(\.name),
        .attribute(\.start, indexed: true),
        .toOne(\.traveller, Person.self, inverse: Person.trips),
    ])
}

private struct TripService: Sendable {
    let store: Store

    func plan(_ name: String, for person: Person.ID, on start: Date) async throws -> Trip {
        let trip = Trip(name: name, start: start, traveller: person)
        try await store.repository(Trip.self).insert(trip)
        return trip
    }

    func upcoming(for person: Person.ID) async throws -> [Trip] {
        try await store.repository(Trip.self).fetch(
            Query.where(\.traveller == person && \.start > .now).sorted(by: \.start).limit(20))
    }

    func travellersNamed(_ name: String) async throws -> [Trip] {
        try await store.repository(Trip.self).fetch(
            where: .related(\.traveller, where: .equals(\Person.name, name, options: [.caseInsensitive, .diacriticInsensitive])))
    }

    func leave(_ person: Person.ID) async throws {
        try await store.repository(Person.self).delete(person)
    }
}

@Suite struct ReadmeExampleTests {
    /// The README's live-query loop, as written there (it ends after the first change here).
    @Test func theLiveQueryExampleWorks() async throws {
        InMemoryBackend.register()
        let store = try await Store.open("memory:", schema: try Schema(Person.self, Trip.self))
        let saver = Task {
            try await Task.sleep(for: .milliseconds(50))
            try await store.repository(Trip.self).insert(Trip(name: "Later", start: .now.addingTimeInterval(86_400)))
        }
        var seen: [Int] = []
        for try await results in store.observe(Query<Trip>.where(\.start > .now).sorted(by: \.start)) {
            print(results.models.count, "trips;", results.diff.inserted.count, "new,", results.diff.removed.count, "gone")
            seen.append(results.models.count)
            if seen.count == 2 { break }
        }
        try await saver.value
        #expect(seen == [0, 1])
    }

    @Test func theServiceLayerExampleWorks() async throws {
        InMemoryBackend.register()
        let store = try await Store.open("memory:", schema: try Schema(Person.self, Trip.self))
        let service = TripService(store: store)
        let ana = Person(name: "Ána", email: "ana@example.com")
        try await store.repository(Person.self).insert(ana)
        let soon = try await service.plan("Lisbon", for: ana.id, on: .now.addingTimeInterval(86_400))
        _ = try await service.plan("Past", for: ana.id, on: .now.addingTimeInterval(-86_400))
        #expect(try await service.upcoming(for: ana.id).map(\.id) == [soon.id])
        #expect(try await service.travellersNamed("ana").count == 2)
        try await service.leave(ana.id)
        #expect(try await store.repository(Trip.self).count() == 0)
    }
}

// The README's migration example, as written there (on a named in-memory store).
private enum V1 {
    struct Note: PersistentModel {
        var id = UUID()
        var title: String
        var body: String
        static let entity = Entity<Note>("Note", [.attribute(\.title), .attribute(\.body)])
    }
}

private struct Note: PersistentModel {
    var id = UUID()
    var heading: String
    var body: String
    var pinned = false
    var words = 0
    static let entity = Entity<Note>("Note", [
        .attribute(\.heading, renamedFrom: "title"), .attribute(\.body),
        .attribute(\.pinned, default: false), .attribute(\.words, default: 0),
    ])
}

@Suite struct ReadmeMigrationExampleTests {
    @Test func theMigrationExampleWorks() async throws {
        InMemoryBackend.register()
        let url = "memory:readme-notes-\(UUID().uuidString)"
        let old = try await Store.open(url, schema: try Schema(V1.Note.self))
        let written = V1.Note(title: "Groceries", body: "milk eggs bread")
        try await old.repository(V1.Note.self).insert(written)
        try await old.close()

        let plan = MigrationPlan(
            versions: [SchemaVersion("1", try Schema(V1.Note.self)), SchemaVersion("2", try Schema(Note.self))],
            stages: [.custom(from: "1", to: "2") { migration in
                // After the inferred steps (rename, defaults), count each note's words.
                try migration.forEachRecord("Note") { note in
                    guard case .string(let body) = note["body"] else { return }
                    var counted = note
                    counted["words"] = .int(Int64(body.split(separator: " ").count))
                    try migration.put(counted)
                }
            }])
        let store = try await Store.open(url, schema: try Schema(Note.self), migrations: plan)
        let note = try #require(try await store.repository(Note.self).fetch(written.id))
        #expect(note.heading == "Groceries")
        #expect(note.pinned == false)
        #expect(note.words == 3)
        #expect(try await store.history().last?.author == MigrationPlan.historyAuthor)
    }
}
