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
        let sound = try await Tool.run(["verify", url], in: tests.directory)
        #expect(sound.status == 0, "\(sound.output)\(sound.errors)")
        #expect(sound.output.contains("graph sound"))
        // Ana removed behind the engine: her trips, passport and agencies now point at nothing.
        let store = try await Store.open(url, schema: try TravelDomain.schema())
        try await store.backend.write { try $0.delete("Person", ids: [.uuid(data.ana.id)]) }
        try await store.close()
        let broken = try await Tool.run(["verify", url], in: tests.directory)
        #expect(broken.status == 2, "\(broken.output)\(broken.errors)")
        #expect(broken.output.contains("Trip(\(data.lisbonSpring.id.uuidString)).traveller"), "\(broken.output)")
        let allowed = try await Tool.run(["verify", url, "--allow-dangling"], in: tests.directory)
        #expect(allowed.output.contains("note: dangles"), "\(allowed.output)")
    }

    /// One value changed in the files, where no engine would notice: found by the file routine,
    /// exit 2, the graph left unchecked.
    @Test(arguments: ["sqlite", "lmdb", "json"])
    func damagedFilesAreFoundWithoutOpeningTheStore(_ kind: String) async throws {
        let tests = try ToolTests()
        guard let (url, _) = try await tests.seededStore(kind) else { return }
        let path = String(url.drop { $0 != ":" }.dropFirst())
        var files: [String] = []
        if kind == "lmdb", (try? FileManager.default.contentsOfDirectory(atPath: path)) != nil {
            files = try FileManager.default.contentsOfDirectory(atPath: path).map { "\(path)/\($0)" }
        } else {
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
            let name = URL(fileURLWithPath: path).lastPathComponent
            files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix(name) }.map {
                "\(directory)/\($0)"
            }
        }
        var changed = 0
        let needle = Array("Lisbon Spring".utf8)
        for file in files {
            guard var bytes = FileManager.default.contents(atPath: file).map(Array.init), bytes.count >= needle.count
            else { continue }
            var at = 0
            while at + needle.count <= bytes.count {
                if bytes[at] == needle[0], Array(bytes[at..<(at + needle.count)]) == needle {
                    bytes[at + needle.count - 1] = UInt8(ascii: "q")
                    changed += 1
                }
                at += 1
            }
            try Data(bytes).write(to: URL(fileURLWithPath: file))
        }
        #expect(changed > 0, "the value is in the files")
        let damaged = try await Tool.run(["verify", url], in: tests.directory)
        #expect(damaged.status == 2, "\(damaged.output)\(damaged.errors)")
        #expect(damaged.output.contains("DAMAGED"), "\(damaged.output)")
        #expect(damaged.output.contains("graph was not checked"), "\(damaged.output)")
        let json = try await Tool.run(["verify", url, "--json"], in: tests.directory)
        #expect(json.status == 2)
        let report = try JSONDecoder().decode(VerifyJSON.self, from: Data(json.output.utf8))
        #expect(report.sound == false && report.files?.sound == false && report.graph == nil, "\(json.output)")
    }

    /// A file that is no store at all: every command says so and exits non-zero, nothing created.
    @Test(arguments: ["sqlite", "lmdb", "json"])
    func aFileThatIsNoStoreIsRefusedByEveryCommand(_ kind: String) async throws {
        let tests = try ToolTests()
        let path = "\(tests.directory)/garbage.\(kind)"
        try Data((0..<9_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }).write(to: URL(fileURLWithPath: path))
        let url = "\(kind):\(path)"
        for command in [
            ["inspect", url], ["verify", url], ["export", url], ["query", url, "Trip"], ["schema", "export", url],
        ] {
            let result = try await Tool.run(command, in: tests.directory)
            #expect(result.status != 0, "\(command): \(result.output)")
            #expect(
                result.errors.contains("Error:") || result.output.contains("DAMAGED"),
                "\(command): \(result.errors)\(result.output)")
            #expect(
                !result.errors.contains("Fatal error") && !result.errors.contains("Stack dump"),
                "\(command) must not crash: \(result.errors)")
            #expect(
                !result.errors.contains("strata-copy"),
                "errors name the user's path, not a private copy: \(result.errors)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)).count == 9_000, "left as it was")
    }

    struct VerifyJSON: Decodable {
        struct Files: Decodable { var sound: Bool }
        struct Graph: Decodable { var findings: [String: String]? }
        var sound: Bool
        var files: Files?
        var graph: Graph?
    }
}
