import Foundation
import Strata
import StrataConformance
import StrataJSONFile
import StrataLMDB
import StrataSQLite
import Testing

/// Asking what a location holds never creates a store there (the backends' attach), and opening
/// a store without the app's types refuses a location with no store, creating nothing.
@Suite struct AttachTests {
    static let registry: BackendRegistry = {
        let registry = BackendRegistry()
        SQLiteBackend.register(in: registry)
        LMDBBackend.register(in: registry)
        JSONFileBackend.register(in: registry)
        return registry
    }()

    @Test(arguments: ["sqlite", "lmdb", "json"])
    func askingAboutAMissingPathCreatesNothing(_ scheme: String) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-attach-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = "\(scheme):\(directory.path)/store"
        let options = OpenOptions(registry: Self.registry)
        #expect(try await Store.storedShape(at: url, registry: Self.registry) == nil)
        #expect(try await Self.registry.exists(try StoreLocation(url)) == false)
        await #expect(throws: StrataError.self) { _ = try await Store.openStored(url, options: options) }
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(left.isEmpty, "asking created \(left)")

        let store = try await Store.open(url, schema: try TravelDomain.schema(), options: options)
        try await store.close()
        let stored = try #require(try await Store.storedShape(at: url, registry: Self.registry))
        #expect(stored == SchemaDescription(try TravelDomain.schema()))
    }
}
