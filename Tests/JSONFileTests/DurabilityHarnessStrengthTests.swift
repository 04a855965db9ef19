import Foundation
import Strata
import StrataConformance
import StrataJSONFile
import Testing

/// The disk-full trials and the truncation sweep catch the bugs they were written for, planted in
/// a working backend: a save that commits and then throws (the JSON store's compaction failure,
/// reported as the save's), and a verify that lets an untyped error out (SQLite's, on a truncated
/// file). Each run must fail; a harness that passed them would prove nothing.
@Suite("Durability harnesses catch planted bugs", .serialized)
struct DurabilityHarnessStrengthTests {
    /// Forwards to a JSON store; a write on a nearly full disk commits and then throws `diskFull`.
    final class CommitsThenThrows: StorageBackend {
        let wrapped: JSONFileBackend
        init(_ wrapped: JSONFileBackend) { self.wrapped = wrapped }
        var schema: Schema { wrapped.schema }
        var capabilities: FetchCapabilities { wrapped.capabilities }
        var sharedIdentity: String? { wrapped.sharedIdentity }
        var externalCommits: ExternalCommitPolling? { wrapped.externalCommits }
        func openSnapshot() async throws -> (any StorageSnapshot)? { try await wrapped.openSnapshot() }
        func read<T: Sendable>(_ body: @escaping @Sendable (any StorageReadTransaction) throws -> T) async throws -> T {
            try await wrapped.read(body)
        }
        func write<T: Sendable>(_ body: @escaping @Sendable (any StorageWriteTransaction) throws -> T) async throws
            -> T
        {
            let result = try await wrapped.write(body)
            if StoreFiles.isNearlyFull(at: wrapped.path) {
                throw StrataError(.diskFull, "planted: the save committed, then upkeep failed and said so")
            }
            return result
        }
        func close() async throws { try await wrapped.close() }
    }

    @Test(.enabled(if: SmallDisk.unavailableReason == nil, "needs a tmpfs of its own (root)"))
    func theDiskFullTrialsCatchASaveThatCommitsAndThenThrows() async throws {
        var planted = jsonDurable
        planted.name = "JSON file (planted: commits, then throws)"
        planted.open = { location, schema in
            CommitsThenThrows(try await JSONFileBackend.open(path: location, schema: schema))
        }
        let tally = try await DurabilityRun.diskFull(planted)
        #expect(
            tally.failures.contains { $0.contains("saves that threw are present") },
            "the trials did not see the committed saves that threw: \(tally)")
    }

    @Test func theTruncationSweepCatchesAVerifyThatLetsAnUntypedErrorOut() async throws {
        var planted = jsonDurable
        planted.name = "JSON file (planted: verify throws a library's error)"
        planted.verify = { location, schema in
            let report = try await JSONFileBackend.verify(path: location, schema: schema)
            if !report.isSound { throw CocoaError(.fileReadCorruptFile) }
            return report
        }
        let failures = try await DurabilityRun.truncations(planted)
        #expect(
            failures.contains { $0.contains("untyped error") }, "the sweep passed a verify that throws untyped errors")
    }
}
