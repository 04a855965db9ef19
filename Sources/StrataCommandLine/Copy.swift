import ArgumentParser
import Foundation
import Strata
import StrataTools

/// `strata copy`: any backend to any backend, keeping IDs, versions and link order.
public struct Copy: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        abstract: "Copy a store to another (any backend to any backend), then prove the copy equal.",
        discussion: """
            The target is created with the source's schema (or must hold the same shape and be empty). \
            Records go through the engine in saves of --batch (memory bounded by a batch), keeping IDs, \
            versions and link order; with --history the source's history replaces the copy's. At the end \
            references are checked and both stores' digests (per entity: count, and a hash of every \
            record's ID, version, values and link lists in ID order) compared. The source is read a page \
            at a time: copy a store nothing writes to meanwhile. References that dangle in the copy dangle \
            in the source too (digests equal) and are listed as notes. Sync state (outbox, cursor, server \
            bookkeeping) is not copied. A target that holds records is refused unless --replace, which \
            removes them first (a save per batch, recorded in the target's history). Exit codes: 0 equal; \
            1 an error; 3 the copy differs; 64 usage.

            Examples:
              strata copy sqlite:./app.sqlite lmdb:./app.lmdb
              strata copy lmdb:./app.lmdb postgres://app@db/app --history
              strata copy sqlite:./app.sqlite json:./snapshot.json --replace --json
            """)

    @Argument(help: "The source store's URL.") var from: String
    @Argument(help: "The target store's URL.") var to: String
    @Option(help: "Records per save.") var batch = 1_000
    @Flag(help: "Copy the source's history too.") var history = false
    @Flag(
        help: ArgumentHelp(
            "Remove the target's records first (it must hold the source's shape); "
                + "without it a non-empty target is refused."))
    var replace = false
    @Flag(help: "Print the outcome as one JSON object (records, both digests, notes).") var json = false

    public init() {}

    public func run() async throws {
        CommandLineBackends.register()
        let source = try await Store.openStored(from)
        let target = try await TargetStore.open(
            to, shape: SchemaDescription(source.schema), declared: await source.matchingDeclaration())
        let existing = try await target.inspect().entities.map(\.count).reduce(0, +)
        if existing > 0 {
            guard replace else {
                throw ValidationError(
                    "\(to) is not empty (\(existing) records): copy into an empty store, or add --replace")
            }
            let clearing = ProgressBar(total: existing, label: "remove")
            let removed = try await StoreLoader(store: target).removeAll(batch: batch) { clearing.advance(to: $0) }
            clearing.finish(at: removed)
        }
        let total = try await source.inspect().entities.map(\.count).reduce(0, +)
        let progress = ProgressBar(total: total, label: "copy")
        let outcome = try await StoreCopier(from: source, to: target, batch: batch, history: history).run {
            progress.advance(to: $0)
        }
        progress.finish(at: outcome.records)
        try await source.close()
        try await target.close()
        let (digest, copy, dangling, copied) = (outcome.source, outcome.copy, outcome.dangling, outcome.records)
        if json {
            let report = CopyReport(
                from: from, to: to, records: copied, files: outcome.files, removed: existing > 0 ? existing : nil,
                history: history,
                equal: copy == digest,
                source: digest, copy: copy, notes: dangling.map(\.description))
            print(String(decoding: try JSONEncoder.sorted.encode(report), as: UTF8.self))
        }
        guard copy == digest else {
            for (name, expected) in digest.entities.sorted(by: { $0.key < $1.key })
            where copy.entities[name] != expected {
                let copied = copy.entities[name].map { "\($0.count) \($0.hash)" } ?? "absent"
                FileHandle.standardError.write(
                    Data("differs: \(name) source \(expected.count) \(expected.hash), copy \(copied)\n".utf8))
            }
            throw ExitCode(3)
        }
        guard !json else { return }
        print("copied \(copied) records and \(outcome.files) files from \(from) to \(to); digests equal")
        // The copy equals the source, so these dangle there too: a note, not a failure.
        for finding in dangling {
            FileHandle.standardError.write(Data("note: dangles as in the source: \(finding)\n".utf8))
        }
    }
}

/// `strata copy --json`'s output.
struct CopyReport: Codable {
    var from: String
    var to: String
    var records: Int
    /// Files whose bytes were copied (each checked against its digest).
    var files: Int
    /// Records the target held and --replace removed.
    var removed: Int?
    var history: Bool
    var equal: Bool
    var source: StoreDigest
    var copy: StoreDigest
    /// References that dangle in the copy as in the source.
    var notes: [String]
}
