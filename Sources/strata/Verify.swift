import ArgumentParser
import Foundation
import Strata
import StrataJSONFile
import StrataLMDB
import StrataPostgres
import StrataSQLite

/// `strata verify`: a store's files, then its graph.
struct Verify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a store: its files (the backend's verify routine), then every reference, link target and one-to-one pair.",
        discussion: """
            First the backend's own routine, which reads the files without changing them (SQLite: \
            integrity, index and record checks; LMDB: a walk of every page in a child process — a store \
            that would crash a process is never opened — then every record's checksum; JSON file: the \
            document, its digest and the journal). When the files are sound, the store is opened with the \
            schema it holds and its graph checked: references and link targets that point at nothing \
            (allowed only under noAction, which a schema read from a store does not record), one-to-one \
            sides that disagree. PostgreSQL has no file routine; its graph is checked. Exit codes: 0 \
            sound; 2 damage found (listed); 1 the store cannot be read at all.

            Examples:
              strata verify sqlite:./app.sqlite
              strata verify lmdb:./app.lmdb && echo sound
            """)

    @Argument(help: "The store's URL.") var url: String
    @Flag(help: "Report references that point at nothing as notes, not damage (the store's noAction relationships).")
    var allowDangling = false

    func run() async throws {
        StrataCommand.registerBackends()
        PostgresBackend.register(options: PostgresBackend.Options(createIfMissing: false))
        let location = try StoreLocation(url)
        var report: VerifyReport?
        if ["sqlite", "lmdb", "json"].contains(location.scheme) {
            // The schema the store holds: a probe schema is refused with it.
            let probe = try Schema(entities: [EntityDescription(name: "StrataSchemaProbe", idKind: .uuid)])
            do {
                report = try await Self.files(location, probe)
            } catch let error as StrataError {
                guard let mismatch = error.underlying as? StoredSchemaMismatch else { throw error }
                report = try await Self.files(location, try mismatch.stored.schema())
            }
        }
        var findings = report?.findings ?? []
        if let report { print(report) }
        if report.map({ $0.isSound && $0.isSafeToOpen }) ?? true {
            let store = try await StoredSchemaOpener.open(url)
            let graph = try await store.checkReferences()
            let records = try await store.inspect().entities.map(\.count).reduce(0, +)
            try await store.close()
            let dangling = allowDangling ? graph.filter { $0.code == .invalidReference && $0.message.hasSuffix("does not exist") } : []
            let damage = graph.filter { finding in !dangling.contains { $0.description == finding.description } }
            print("\(url): graph \(damage.isEmpty ? "sound" : "DAMAGED (\(damage.count) findings)"): \(records) records, every reference and link target checked")
            for finding in dangling { print("  note: dangles (allowed): \(finding)") }
            for finding in damage { print("  damage: \(finding)") }
            findings += damage
        } else {
            print("\(url): the graph was not checked (the files are damaged)")
        }
        if !findings.isEmpty { throw ExitCode(2) }
    }

    static func files(_ location: StoreLocation, _ schema: Schema) async throws -> VerifyReport? {
        switch location.scheme {
        case "sqlite": try await SQLiteBackend.verify(path: location.path, schema: schema)
        case "lmdb": try await LMDBBackend.verify(path: location.path, schema: schema)
        case "json": try await JSONFileBackend.verify(path: location.path, schema: schema)
        default: nil
        }
    }
}
