import Foundation
import Strata
import StrataSQLite
import Testing

/// The README's getting-started samples run as well as compile: the store it opens, the service,
/// the transaction, the unit of work, the repository protocol and the aggregates.
@Suite struct GettingStartedRunsTests {
    @Test func theServiceAndTransactionSamplesDoWhatTheREADMESays() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "strata-readme-\(UUID().uuidString).sqlite"
        ).path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let store = try await openStore(at: path)
        let ana = Person(name: "Ana", email: "ana@example.com")
        let start = Date().addingTimeInterval(86_400)
        let lisbon = try await importTrip(for: ana, on: start, into: store)
        let service = TripService(work: store)
        #expect(try await service.upcoming(for: ana.id).map(\.id) == [lisbon.id])
        let porto = try await service.plan("Porto", for: ana.id, on: start.addingTimeInterval(60), tagged: "Beach")
        #expect(try await service.upcoming(for: ana.id).map(\.id) == [lisbon.id, porto.id])
        #expect(try await store.read { try $0.related(Trip.tags, of: porto.id) }.map(\.id) == ["beach"])
        #expect(try await store.repository(Tag.self).count() == 1, "the existing tag was reused")
        try await store.repository(Trip.self).delete(porto.id)
        #expect(try await service.travellersNamed("ANA").map(\.id) == [lisbon.id], "case- and diacritic-insensitive")
        #expect(
            try await store.read { try $0.related(Trip.stops, of: lisbon.id) }.map(\.name) == ["Belém", "Alfama"],
            "ordered as set")

        try await Bookings(trips: store.repository(Trip.self)).rename(lisbon.id, to: "Lisboa")
        #expect(try await store.repository(Trip.self).fetch(lisbon.id)?.name == "Lisboa")
        let saved = try #require(try await renameTrip(lisbon.id, in: store))
        #expect(saved.conflicts.isEmpty)
        #expect(try await store.read { try $0.related(Trip.tags, of: lisbon.id) }.map(\.id) == ["beach"])

        try await travelReport(store.repository(Trip.self), since: .now)
        let (count, first) = try await store.repository(Trip.self).aggregate(.count, .min(\.start))
        #expect(count == 1)
        #expect(first == start)

        try await service.leave(ana.id)
        #expect(try await store.repository(Trip.self).count() == 0, "the cascade removed the trip")
        #expect(try await store.repository(Stop.self).count() == 0, "and its stops")
        try await store.close()
    }

    /// The loop of the README's `watchUpcoming(in:)`, as written there, ended after one change.
    @Test func theLiveQueryLoopSeesAnInsert() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "strata-readme-\(UUID().uuidString).sqlite"
        ).path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let store = try await openStore(at: path)
        let saver = Task {
            try await Task.sleep(for: .milliseconds(50))
            try await store.repository(Trip.self).insert(Trip(name: "Later", start: .now.addingTimeInterval(86_400)))
        }
        var seen: [Int] = []
        for try await results in store.observe(Query<Trip>.where(\.start > .now).sorted(by: \.start)) {
            print(
                results.models.count, "trips;", results.diff.inserted.count, "new,", results.diff.removed.count, "gone")
            seen.append(results.models.count)
            if seen.count == 2 { break }
        }
        try await saver.value
        #expect(seen == [0, 1])
        try await store.close()
    }

    /// The Migrations article's frozen release: version 1 as a file, not as code, migrates.
    @Test func aReleaseFrozenAsASchemaFileMigrates() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-frozen-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("notes.sqlite").path
        SQLiteBackend.register()
        try freezeRelease("1", try Schema(V1.Note.self), into: folder)
        let old = try await Store.open(
            "sqlite:\(path)", schema: try Schema(V1.Note.self),
            options: OpenOptions(migrations: MigrationPlan(versions: [SchemaVersion("1", try Schema(V1.Note.self))])))
        try await old.repository(V1.Note.self).insert(V1.Note(title: "Groceries", body: "eggs"))
        try await old.close()
        let store = try await openNotes(at: path, frozen: folder)
        let note = try #require(try await store.repository(Note.self).fetch().first)
        #expect(note.heading == "Groceries" && note.pinned == false)
        try await store.close()
    }

    @Test func theMigrationSampleRenamesFillsAndCounts() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "strata-readme-\(UUID().uuidString).sqlite"
        ).path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        SQLiteBackend.register()  // the sample's `openNotes` opens by URL; nothing else here may have registered yet
        let old = try await Store.open("sqlite:\(path)", schema: try Schema(V1.Note.self))
        try await old.repository(V1.Note.self).insert(V1.Note(title: "Groceries", body: "eggs milk bread"))
        try await old.close()
        let store = try await openNotes(at: path)
        let note = try #require(try await store.repository(Note.self).fetch().first)
        #expect(note.heading == "Groceries")
        #expect(note.words == 3)
        #expect(note.pinned == false)
        try await store.close()
    }
}
