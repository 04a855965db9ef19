import Foundation
import Strata
import StrataInMemory
import StrataJSONFile
import Testing

/// The `Store.open` forms apps wrote before ``OpenOptions`` still compile — with a deprecation
/// warning only (this target lets exactly that warning through) — and open as the new form does.
@Suite struct EarlierOpenFormsTests {
    struct Note: PersistentModel, Equatable {
        var id: String
        var text: String
        static let entity = Entity<Note>([.attribute(\.text)])
    }

    struct NoteWithTitle: PersistentModel, Equatable {
        var id: String
        var text: String
        var title: String?
        static let entity = Entity<NoteWithTitle>("Note", [.attribute(\.text), .attribute(\.title)])
    }

    static func registry() -> BackendRegistry {
        let registry = BackendRegistry()
        InMemoryBackend.register(in: registry)
        return registry
    }

    @Test func theSyncFormOpensASyncedStore() async throws {
        let url = "memory:earlier-sync-\(UUID().uuidString)"
        let store = try await Store.open(
            url, schema: try Schema(Note.self), registry: Self.registry(), sync: SyncConfiguration(clientID: "app"))
        #expect(store.sync?.clientID == "app")
        try await store.repository(Note.self).insert(Note(id: "n1", text: "kept"))
        #expect(try await store.repository(Note.self).fetch("n1")?.text == "kept")
        try await store.close()
    }

    @Test func theRegistryAndInstrumentationFormsOpen() async throws {
        let registry = Self.registry()
        let first = try await Store.open(
            "memory:earlier-a-\(UUID().uuidString)", schema: try Schema(Note.self), registry: registry)
        #expect(first.sync == nil)
        try await first.close()
        InMemoryBackend.register()
        let second = try await Store.open(
            "memory:earlier-b-\(UUID().uuidString)", schema: try Schema(Note.self), instrumentation: .standard)
        #expect(second.location?.scheme == "memory")
        try await second.close()
    }

    @Test func theMigrationsFormMigratesAStoreOfAnotherShape() async throws {
        let registry = Self.registry()
        JSONFileBackend.register(in: registry)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("earlier-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = "json:\(directory.path)/notes.json"
        let older = try await Store.open(url, schema: try Schema(Note.self), options: OpenOptions(registry: registry))
        try await older.repository(Note.self).insert(Note(id: "n1", text: "old"))
        try await older.close()
        let newer = try await Store.open(
            url, schema: try Schema(NoteWithTitle.self), migrations: .lightweight, registry: registry)
        #expect(try await newer.repository(NoteWithTitle.self).fetch("n1") == NoteWithTitle(id: "n1", text: "old"))
        try await newer.close()
    }
}
