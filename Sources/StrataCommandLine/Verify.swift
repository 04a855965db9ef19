import ArgumentParser
import Foundation
import Strata
import StrataTools

/// `strata verify`: a store's files, then its graph.
public struct Verify: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        abstract:
            "Check a store: its files (the backend's verify routine), then every reference, link target, "
            + "one-to-one pair and full-text index.",
        discussion: """
            First the backend's own routine, which reads the files without changing them (SQLite: \
            integrity, index and record checks; LMDB: a walk of every page in a child process — a store \
            that would crash a process is never opened — then every record's checksum; JSON file: the \
            document, its digest and the journal). When the files are sound, the store is opened with the \
            schema it holds and its graph checked: references and link targets that point at nothing \
            (allowed where deleting the destination leaves them by rule — its inverse's delete rule is \
            noAction, or there is no inverse — judged by the delete rules the app recorded when it opened \
            the store; a store no app has opened since stores record them has none, and --allow-dangling \
            then lets dangling references through as notes), one-to-one sides that disagree, every \
            full-text index against the records' words and counts, and the stored files (bytes a record \
            refers to that are missing; chunks missing, short or no longer matching the digest; reference \
            counts that disagree with the records). PostgreSQL has no file routine; its \
            graph is checked. Exit codes: 0 \
            sound; 2 damage found (listed); 1 the store cannot be read at all.

            Examples:
              strata verify sqlite:./app.sqlite
              strata verify lmdb:./app.lmdb && echo sound
              strata verify json:./app.json --json | jq '.graph.findings'
            """)

    @Argument(help: "The store's URL.") var url: String
    @Flag(help: "Report references that point at nothing as notes, not damage (the store's noAction relationships).")
    var allowDangling = false
    @Flag(help: "Print the report as one JSON object (every finding with its code, entity, record and property).")
    var json = false

    public init() {}

    public func run() async throws {
        CommandLineBackends.register()
        let location = try StoreLocation(url)
        var report: VerifyReport?
        if BackendRegistry.shared.verifies(location.scheme) {
            // Against the schema the store holds.
            report = try await BackendRegistry.shared.verify(location)
        }
        var findings = report?.findings ?? []
        var output = VerifyOutput(store: url, files: report.map(VerifyOutput.Files.init))
        if let report, !json { print(report) }
        if report.map({ $0.isSound && $0.isSafeToOpen }) ?? true {
            let store = try await Store.openStored(url)
            let graph =
                try await store.checkReferences() + (try await store.checkSearchIndexes())
                + (try await store.files.verify())
            let records = try await store.inspect().entities.map(\.count).reduce(0, +)
            let rules = await store.matchingDeclaration() != nil
            try await store.close()
            let dangling =
                allowDangling
                ? graph.filter { $0.code == .invalidReference && $0.message.hasSuffix("does not exist") } : []
            let damage = graph.filter { finding in !dangling.contains { $0.description == finding.description } }
            output.graph = VerifyOutput.Graph(
                records: records, rulesRecorded: rules, findings: damage.map(VerifyOutput.Finding.init),
                allowed: dangling.map(VerifyOutput.Finding.init))
            if !json {
                print(
                    "\(url): graph \(damage.isEmpty ? "sound" : "DAMAGED (\(damage.count) findings)"): \(records) "
                        + "records, every reference, link target, full-text index and file checked"
                        + (rules
                            ? " (dangling judged by the app's recorded delete rules)"
                            : " (no recorded rules: every dangling reference is damage; "
                                + "--allow-dangling for noAction stores)")
                )
                for finding in dangling { print("  note: dangles (allowed): \(finding)") }
                for finding in damage { print("  damage: \(finding)") }
            }
            findings += damage
        } else if !json {
            print("\(url): the graph was not checked (the files are damaged)")
        }
        output.sound = findings.isEmpty
        if json { print(String(decoding: try JSONEncoder.sorted.encode(output), as: UTF8.self)) }
        if !findings.isEmpty { throw ExitCode(2) }
    }
}

/// `strata verify --json`'s output.
struct VerifyOutput: Codable {
    struct Finding: Codable {
        var code: String
        var entity: String?
        var record: String?
        var property: String?
        var message: String

        init(_ error: StrataError) {
            code = error.code.rawValue
            entity = error.entity
            record = error.recordID?.description
            property = error.property
            message = error.message
        }
    }

    struct Files: Codable {
        var sound: Bool
        var safeToOpen: Bool
        var recordsChecked: [String: Int]
        var findings: [Finding]
        var notes: [String]

        init(_ report: VerifyReport) {
            sound = report.isSound
            safeToOpen = report.isSafeToOpen
            recordsChecked = report.recordsChecked
            findings = report.findings.map(Finding.init)
            notes = report.notes
        }
    }

    struct Graph: Codable {
        var records: Int
        /// Whether dangling references were judged by the app's recorded delete rules.
        var rulesRecorded: Bool
        var findings: [Finding]
        /// Dangling references --allow-dangling let through.
        var allowed: [Finding]
    }

    var store: String
    var sound = false
    /// The backend's file routine (nil for PostgreSQL, which has none).
    var files: Files?
    /// The graph check (nil when damaged files kept the store closed).
    var graph: Graph?
}
