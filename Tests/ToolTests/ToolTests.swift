import Foundation
import Strata
import StrataConformance
import StrataJSONFile
import StrataLMDB
import StrataPostgres
import StrataSQLite
import StrataTools
import Testing

/// The built `strata` tool run as a user runs it, on every backend that persists — `inspect`
/// (text and JSON), `export`, `import` (batched, resumed, atomic) and `copy` — on stores it was
/// not given the app's types for.
@Suite("strata tool")
struct ToolTests {
    let directory: String

    /// Every test's directory is under one per process, removed when the process exits.
    static let root: String = {
        atexit { try? FileManager.default.removeItem(atPath: ToolTests.rootPath(of: getpid())) }
        return rootPath(of: getpid())
    }()

    static func rootPath(of process: pid_t) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("strata-tool-\(process)").path
    }

    init() throws {
        directory = "\(Self.root)/\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        SQLiteBackend.register()
        LMDBBackend.register()
        JSONFileBackend.register()
        PostgresBackend.register()
    }

    /// A seeded travel store of `kind`, closed; nil for PostgreSQL without a server outside CI.
    func seededStore(_ kind: String) async throws -> (url: String, data: TravelData)? {
        let url: String
        switch kind {
        case "sqlite": url = "sqlite:\(directory)/travel.sqlite"
        case "lmdb": url = "lmdb:\(directory)/travel.lmdb"
        case "json": url = "json:\(directory)/travel.json"
        default:
            guard let base = ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"] else {
                if ProcessInfo.processInfo.environment["CI"] == "true" {
                    throw StrataError(.storageFailure, "CI needs STRATA_POSTGRES_URL")
                }
                return nil
            }
            url = base + "?schema=tool_\(UUID().uuidString.prefix(8).lowercased())"
        }
        let store = try await Store.open(url, schema: try TravelDomain.schema())
        let data = try await TravelData.seed(store)
        try await store.close()
        return (url, data)
    }

    @Test(arguments: ["sqlite", "lmdb", "json", "postgres"])
    func inspectShowsCountsSchemaAndHistory(_ kind: String) async throws {
        guard let (url, data) = try await seededStore(kind) else { return }
        let json = try await Tool.run(["inspect", url, "--json"], in: directory)
        #expect(json.status == 0, "\(json.errors)")
        let inspection = try JSONDecoder().decode(StoreInspection.self, from: Data(json.output.utf8))
        let counts = Dictionary(uniqueKeysWithValues: inspection.entities.map { ($0.name, $0.count) })
        #expect(counts["Person"] == data.people.count)
        #expect(counts["Trip"] == data.trips.count)
        #expect(counts["Stop"] == data.stops.count)
        #expect(inspection.history.first == 1 && inspection.history.last == 1, "one seeding save")
        #expect(
            inspection.entities.first { $0.name == "Trip" }?.relationships.contains {
                $0.name == "stops" && $0.isOrdered
            } == true)
        let text = try await Tool.run(["inspect", url], in: directory)
        #expect(text.status == 0)
        #expect(text.output.contains("Person  (\(data.people.count) records"))
        // A store that is not there is an error and an exit code, not a new store.
        let absent = url.replacingOccurrences(of: "travel", with: "absent").replacingOccurrences(
            of: "schema=tool_", with: "schema=absent_")
        #expect(absent != url)
        let missing = try await Tool.run(["inspect", absent], in: directory)
        #expect(missing.status != 0)
        #expect(missing.errors.contains("no store"), "\(missing.errors)")
    }

    @Test(arguments: ["sqlite", "lmdb", "json", "postgres"])
    func exportWritesEveryRecordWithVersionsAndLinkOrder(_ kind: String) async throws {
        guard let (url, data) = try await seededStore(kind) else { return }
        let result = try await Tool.run(["export", url, "--batch", "2"], in: directory)
        #expect(result.status == 0, "\(result.errors)")
        let lines = result.output.split(separator: "\n")
        let header = try JSONDecoder().decode(HeaderProbe.self, from: Data(try #require(lines.first).utf8))
        #expect(header.strata == "export")
        let schema = try header.schema.schema()
        let records = try lines.dropFirst().dropLast().map { try RecordJSON.parse($0, schema: schema) }
        #expect(records.count == 18)
        #expect(lines.last?.contains("\"records\":18") == true)
        let store = try await Store.open(url, schema: try TravelDomain.schema())
        for (record, links) in records {
            let stored = try await store.read { try $0.record(record.entity, id: record.id) }
            #expect(stored?.values == record.values, "\(record.key)")
            #expect(stored?.version == record.version)
            if record.entity == "Trip", record.id == .uuid(data.lisbonSpring.id) {
                #expect(
                    links["stops"] == [data.alfama.id, data.belem.id, data.sintra.id].map(RecordID.uuid), "link order")
            }
        }
        try await store.close()
        let only = try await Tool.run(["export", url, "--entities", "Tag"], in: directory)
        #expect(only.output.split(separator: "\n").count == 2 + 3)
        let wrong = try await Tool.run(["export", url, "--entities", "Nope"], in: directory)
        #expect(wrong.status != 0 && wrong.errors.contains("Nope"))
    }

    /// Where a store of `kind` copies go: another backend.
    func targetURL(after kind: String, name: String) -> String {
        switch kind {
        case "sqlite": "lmdb:\(directory)/\(name).lmdb"
        case "lmdb": "json:\(directory)/\(name).json"
        default: "sqlite:\(directory)/\(name).sqlite"
        }
    }

    func digest(_ url: String) async throws -> (StoreDigest, Int) {
        let store = try await Store.open(url, schema: try TravelDomain.schema())
        let digest = try await store.digest()
        let history = try await store.history().count
        try await store.close()
        return (digest, history)
    }

    @Test(arguments: ["sqlite", "lmdb", "json", "postgres"])
    func exportThenImportIntoAnotherBackendKeepsEverything(_ kind: String) async throws {
        guard let (url, _) = try await seededStore(kind) else { return }
        let file = "\(directory)/export.ndjson"
        let exported = try await Tool.run(["export", url, "--output", file], in: directory)
        #expect(exported.status == 0, "\(exported.errors)")
        let target = targetURL(after: kind, name: "imported")
        let imported = try await Tool.run(["import", target, "--input", file, "--batch", "5"], in: directory)
        #expect(imported.status == 0, "\(imported.errors)")
        #expect(imported.output.contains("imported 18 records"))
        let (source, _) = try await digest(url)
        let (copy, _) = try await digest(target)
        #expect(copy == source, "IDs, versions, values and link order equal:\n\(source)\n---\n\(copy)")
        // Into a store that is not empty: refused, nothing written.
        let again = try await Tool.run(["import", target, "--input", file], in: directory)
        #expect(again.status == 64 && again.errors.contains("not empty"), "\(again.errors)")
    }

    @Test(arguments: ["sqlite", "lmdb", "json", "postgres"])
    func copyToAnotherBackendProvesItselfEqualAndKeepsHistory(_ kind: String) async throws {
        guard let (url, data) = try await seededStore(kind) else { return }
        let store = try await Store.open(url, schema: try TravelDomain.schema())
        var ana = data.ana
        ana.age = 41
        try await store.repository(Person.self).update(ana)
        try await store.close()
        let target = targetURL(after: kind, name: "copied")
        let copied = try await Tool.run(["copy", url, target, "--history", "--batch", "4"], in: directory)
        #expect(copied.status == 0, "\(copied.errors)")
        #expect(copied.output.contains("digests equal"))
        let (source, sourceHistory) = try await digest(url)
        let (copy, copyHistory) = try await digest(target)
        #expect(copy == source)
        #expect(copyHistory == sourceHistory && copyHistory == 2, "history copied: \(copyHistory)")
        let into = try await Tool.run(["copy", url, target], in: directory)
        #expect(into.status == 64 && into.errors.contains("--replace"), "a non-empty target is refused: \(into.errors)")
        // Told to: the target's records go first (recorded in its history), then the copy.
        let store2 = try await Store.open(url, schema: try TravelDomain.schema())
        try await store2.repository(Tag.self).delete(data.beach.id)
        try await store2.close()
        let replaced = try await Tool.run(["copy", url, target, "--replace", "--json", "--batch", "5"], in: directory)
        #expect(replaced.status == 0, "\(replaced.errors)")
        let report = try JSONDecoder().decode(CopyJSON.self, from: Data(replaced.output.utf8))
        #expect(report.equal && report.records == 17 && report.removed == 18, "\(replaced.output)")
        #expect(try await digest(target).0 == (try await digest(url)).0)
        // import --replace likewise.
        let file = "\(directory)/replace.ndjson"
        #expect(try await Tool.run(["export", url, "--output", file], in: directory).status == 0)
        let imported = try await Tool.run(["import", target, "--input", file, "--replace", "--json"], in: directory)
        #expect(imported.status == 0, "\(imported.errors)")
        #expect(imported.output.contains("\"records\":17"), "\(imported.output)")
        #expect(try await digest(target).0 == (try await digest(url)).0)
    }

    /// A copy into SQLite leaves one self-contained file: the tool closes the store, and a closed
    /// store has emptied its write-ahead log into the database. Copying the main file alone (as a
    /// user copies "the store file") copies every record.
    @Test func aCopyIntoSQLiteLeavesASelfContainedFile() async throws {
        guard let (url, _) = try await seededStore("lmdb") else { return }
        let path = "\(directory)/copied.sqlite"
        let copied = try await Tool.run(["copy", url, "sqlite:\(path)"], in: directory)
        #expect(copied.status == 0, "\(copied.errors)")
        let log = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
        #expect(log == 0, "the write-ahead log beside a closed store is empty or gone (\(log) bytes)")
        let alone = "\(directory)/alone.sqlite"
        try FileManager.default.copyItem(atPath: path, toPath: alone)
        #expect(try await digest("sqlite:\(alone)").0 == (try await digest(url)).0)
    }

    struct CopyJSON: Decodable {
        var equal: Bool
        var records: Int
        var removed: Int?
    }

    @Test func anInterruptedImportResumesAndABadRecordWritesNothingOfItsBatch() async throws {
        guard let (url, _) = try await seededStore("sqlite") else { return }
        let file = "\(directory)/export.ndjson"
        #expect(try await Tool.run(["export", url, "--output", file], in: directory).status == 0)
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
        // Cut short after 12 records: the batches before the cut stay, the import reports it.
        try (lines.prefix(13).joined(separator: "\n") + "\n").write(
            toFile: "\(directory)/cut.ndjson", atomically: true, encoding: .utf8)
        let target = "lmdb:\(directory)/resumed.lmdb"
        let cut = try await Tool.run(
            ["import", target, "--input", "\(directory)/cut.ndjson", "--batch", "5"], in: directory)
        #expect(cut.status != 0 && cut.errors.contains("cut short"), "\(cut.errors)")
        let plain = try await Tool.run(["import", target, "--input", file], in: directory)
        #expect(plain.status == 64 && plain.errors.contains("--resume"), "\(plain.errors)")
        let resumed = try await Tool.run(
            ["import", target, "--input", file, "--batch", "5", "--resume"], in: directory)
        #expect(resumed.status == 0, "\(resumed.errors)")
        #expect(try await digest(target).0 == (try await digest(url)).0)
        // Resumed again once finished (a kill just after the last save, say): nothing left, exit 0.
        let again = try await Tool.run(["import", target, "--input", file, "--resume"], in: directory)
        #expect(again.status == 0, "\(again.errors)")
        #expect(again.output.contains("nothing left to import"), "\(again.output)")
        #expect(try await digest(target).0 == (try await digest(url)).0)
        // Without --resume, the finished store is still "not empty".
        let plainAgain = try await Tool.run(["import", target, "--input", file], in: directory)
        #expect(plainAgain.status != 0 && plainAgain.errors.contains("not empty"), "\(plainAgain.errors)")
        // A record of the wrong type in an atomic import: an error naming it, nothing written.
        var bad = lines.map(String.init)
        bad[6] = bad[6].replacingOccurrences(of: "\"values\":{", with: "\"values\":{\"nope\":1,")
        try (bad.joined(separator: "\n") + "\n").write(
            toFile: "\(directory)/bad.ndjson", atomically: true, encoding: .utf8)
        let atomicTarget = "json:\(directory)/atomic.json"
        let failed = try await Tool.run(
            ["import", atomicTarget, "--input", "\(directory)/bad.ndjson", "--atomic"], in: directory)
        #expect(failed.status == 1, "\(failed.errors)")
        #expect(failed.errors.contains("line 7"), "the error names the line: \(failed.errors)")
        let store = try await Store.open(atomicTarget, schema: try TravelDomain.schema())
        #expect(try await store.inspect().entities.allSatisfy { $0.count == 0 }, "nothing written")
        try await store.close()
    }

    struct HeaderProbe: Decodable {
        var strata: String
        var schema: SchemaDescription
    }
}
