import Foundation
import Strata
import StrataConformance
import Testing

/// `strata verify` on every persistent backend: a sound store, damage in its files, and a
/// reference broken behind the engine's back.
@Suite("strata verify")
struct VerifyToolTests {
    @Test(arguments: ["sqlite", "lmdb", "json", "postgres"])
    func aSoundStoreIsSoundAndABrokenReferenceIsFound(_ kind: String) async throws {
        let tests = try ToolTests()
        guard let (url, data) = try await tests.seededStore(kind) else { return }
        let sound = try Tool.run(["verify", url], in: tests.directory)
        #expect(sound.status == 0, "\(sound.output)\(sound.errors)")
        #expect(sound.output.contains("graph sound"))
        // Ana removed behind the engine: her trips, passport and agencies now point at nothing.
        let store = try await Store.open(url, schema: try TravelDomain.schema())
        try await store.backend.write { try $0.delete("Person", ids: [.uuid(data.ana.id)]) }
        try await store.close()
        let broken = try Tool.run(["verify", url], in: tests.directory)
        #expect(broken.status == 2, "\(broken.output)\(broken.errors)")
        #expect(broken.output.contains("Trip(\(data.lisbonSpring.id.uuidString)).traveller"), "\(broken.output)")
        let allowed = try Tool.run(["verify", url, "--allow-dangling"], in: tests.directory)
        #expect(allowed.output.contains("note: dangles"), "\(allowed.output)")
    }

    @Test func damagedFilesAreFoundWithoutOpeningTheStore() async throws {
        let tests = try ToolTests()
        guard let (url, _) = try await tests.seededStore("json") else { return }
        // One character of one value changed in the files, where no engine would notice.
        let path = String(url.dropFirst("json:".count))
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var changed = false
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) where name.hasPrefix("travel.json") {
            let file = "\(directory)/\(name)"
            guard var text = try? String(contentsOfFile: file, encoding: .utf8), text.contains("Lisbon Spring") else { continue }
            text = text.replacingOccurrences(of: "Lisbon Spring", with: "Lisbon Sprinq")
            try text.write(toFile: file, atomically: false, encoding: .utf8)
            changed = true
        }
        #expect(changed)
        let damaged = try Tool.run(["verify", url], in: tests.directory)
        #expect(damaged.status == 2, "\(damaged.output)\(damaged.errors)")
        #expect(damaged.output.contains("DAMAGED"), "\(damaged.output)")
    }
}
