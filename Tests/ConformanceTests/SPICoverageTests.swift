import Foundation
import Strata
import StrataConformance
import StrataInMemory
import StrataSQLite
import Synchronization
import Testing

/// Every requirement of the storage SPI is exercised directly by at least two checks of the suite
/// (the differential aside), so a backend that gets one wrong is caught by more than one
/// behaviour: measured by running the suite over an in-memory backend that notes which check
/// called which requirement.
@Suite("Conformance: every SPI requirement is exercised by two checks")
struct SPICoverageTests {
    @Test func everyRequirementIsExercisedByAtLeastTwoChecks() async {
        let coverage = SPICoverage()
        let suite = ConformanceSuite(
            backend: BackendUnderTest(name: "in-memory, calls noted") { schema in
                Store(backend: NotingBackend(InMemoryBackend(schema: schema), coverage))
            } reopen: { store in
                try await store.close()
                guard let backend = store.backend as? NotingBackend<InMemoryBackend> else {
                    throw StrataError(.unsupportedStore, "not noted")
                }
                return Store(backend: NotingBackend(backend.inner.reopened(), coverage))
            })
        let checks = ConformanceSuite.checks.filter { $0.category != .differential }
        await withTaskGroup(of: Void.self) { group in
            for check in checks {
                group.addTask { await SPICoverage.$check.withValue(check.id) { _ = await suite.result(of: check) } }
            }
        }
        // `aggregate` is called only on a backend declaring `aggregating`: measured over SQLite.
        let aggregating = ConformanceSuite(
            backend: BackendUnderTest(name: "SQLite, calls noted") { schema in
                Store(
                    backend: NotingBackend(
                        try await SQLiteBackend.open(path: temporaryPath("sqlite"), schema: schema), coverage))
            } dispose: { store in
                guard let path = (store.backend as? NotingBackend<SQLiteBackend>)?.inner.path else { return }
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            })
        for check in ConformanceSuite.checks(in: [.aggregates]) {
            await SPICoverage.$check.withValue(check.id) { _ = await aggregating.result(of: check) }
        }
        let calls = coverage.calls.withLock { $0 }
        for requirement in SPICoverage.requirements {
            let count = calls[requirement]?.count ?? 0
            print("\(requirement): \(count) checks")
            #expect(count >= 2, "\(requirement) is exercised by \(count) check(s): \(calls[requirement] ?? [])")
        }
    }
}

/// Which check called which SPI requirement.
final class SPICoverage: Sendable {
    /// The check the current task works for.
    @TaskLocal static var check: String?

    static let requirements = [
        "read", "write", "record", "fetch", "count", "aggregate", "referrers", "records(ids:)", "existingIDs",
        "versions", "referrers(toEach:)", "links", "linkOwners", "links(fromEach:)", "linkOwners(toEach:)", "metadata",
        "metadata(keys:)", "metadata(prefix:)",
        "put",
        "put(contentsOf:)",
        "delete", "delete(ids:)", "setLinks", "setMetadata",
    ]

    let calls = Mutex<[String: Set<String>]>([:])

    func note(_ requirement: String) {
        guard let check = Self.check else { return }
        calls.withLock { _ = $0[requirement, default: []].insert(check) }
    }
}

final class NotingBackend<Inner: StorageBackend>: StorageBackend {
    let inner: Inner
    let coverage: SPICoverage

    init(_ inner: Inner, _ coverage: SPICoverage) {
        self.inner = inner
        self.coverage = coverage
    }

    var schema: Schema { inner.schema }
    var capabilities: FetchCapabilities { inner.capabilities }

    func read<T: Sendable>(_ body: @escaping @Sendable (any StorageReadTransaction) throws -> T) async throws -> T {
        coverage.note("read")
        let coverage = coverage
        return try await inner.read { try body(NotingTransaction(reads: $0, writes: nil, coverage)) }
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (any StorageWriteTransaction) throws -> T) async throws -> T {
        coverage.note("write")
        let coverage = coverage
        return try await inner.write { try body(NotingTransaction(reads: $0, writes: $0, coverage)) }
    }

    func close() async throws { try await inner.close() }
}

/// Forwards every requirement — the batched forms too, never their defaults — noting each call.
final class NotingTransaction: StorageWriteTransaction {
    let reads: any StorageReadTransaction
    let writes: (any StorageWriteTransaction)?
    let coverage: SPICoverage

    init(reads: any StorageReadTransaction, writes: (any StorageWriteTransaction)?, _ coverage: SPICoverage) {
        self.reads = reads
        self.writes = writes
        self.coverage = coverage
    }

    var schema: Schema { reads.schema }

    private func writer(_ requirement: String) throws -> any StorageWriteTransaction {
        coverage.note(requirement)
        guard let writes else { throw StrataError(.storageFailure, "\(requirement) in a read transaction") }
        return writes
    }

    func record(_ entity: String, id: RecordID) throws -> Record? {
        coverage.note("record")
        return try reads.record(entity, id: id)
    }

    func fetch(_ plan: FetchPlan) throws -> [Record] {
        coverage.note("fetch")
        return try reads.fetch(plan)
    }

    func count(_ plan: FetchPlan) throws -> Int {
        coverage.note("count")
        return try reads.count(plan)
    }

    func aggregate(_ plan: AggregatePlan) throws -> [AggregateRow] {
        coverage.note("aggregate")
        return try reads.aggregate(plan)
    }

    func referrers(_ entity: String, property: String, to target: RecordID) throws -> [RecordID] {
        coverage.note("referrers")
        return try reads.referrers(entity, property: property, to: target)
    }

    func records(_ entity: String, ids: [RecordID]) throws -> [RecordID: Record] {
        coverage.note("records(ids:)")
        return try reads.records(entity, ids: ids)
    }

    func versions(_ entity: String, ids: [RecordID]) throws -> [RecordID: Int64] {
        coverage.note("versions")
        return try reads.versions(entity, ids: ids)
    }

    func existingIDs(_ entity: String, among ids: [RecordID]) throws -> Set<RecordID> {
        coverage.note("existingIDs")
        return try reads.existingIDs(entity, among: ids)
    }

    func referrers(_ entity: String, property: String, toEach targets: [RecordID]) throws -> [RecordID: [RecordID]] {
        coverage.note("referrers(toEach:)")
        return try reads.referrers(entity, property: property, toEach: targets)
    }

    func links(_ entity: String, relationship: String, from owner: RecordID) throws -> [RecordID] {
        coverage.note("links")
        return try reads.links(entity, relationship: relationship, from: owner)
    }

    func linkOwners(_ entity: String, relationship: String, to target: RecordID) throws -> [RecordID] {
        coverage.note("linkOwners")
        return try reads.linkOwners(entity, relationship: relationship, to: target)
    }

    func links(_ entity: String, relationship: String, fromEach owners: [RecordID]) throws -> [RecordID: [RecordID]] {
        coverage.note("links(fromEach:)")
        return try reads.links(entity, relationship: relationship, fromEach: owners)
    }

    func linkOwners(_ entity: String, relationship: String, toEach targets: [RecordID]) throws -> [RecordID: [RecordID]]
    {
        coverage.note("linkOwners(toEach:)")
        return try reads.linkOwners(entity, relationship: relationship, toEach: targets)
    }

    func metadata(_ key: String) throws -> [UInt8]? {
        coverage.note("metadata")
        return try reads.metadata(key)
    }

    func metadata(keys: [String]) throws -> [String: [UInt8]] {
        coverage.note("metadata(keys:)")
        return try reads.metadata(keys: keys)
    }

    func metadata(prefix: String, after: String?, limit: Int?) throws -> [(key: String, value: [UInt8])] {
        coverage.note("metadata(prefix:)")
        return try reads.metadata(prefix: prefix, after: after, limit: limit)
    }

    func put(_ record: Record) throws { try writer("put").put(record) }
    func put(contentsOf records: [Record]) throws { try writer("put(contentsOf:)").put(contentsOf: records) }
    func delete(_ entity: String, id: RecordID) throws { try writer("delete").delete(entity, id: id) }
    func delete(_ entity: String, ids: [RecordID]) throws { try writer("delete(ids:)").delete(entity, ids: ids) }

    func setLinks(_ entity: String, relationship: String, from owner: RecordID, to targets: [RecordID]) throws {
        try writer("setLinks").setLinks(entity, relationship: relationship, from: owner, to: targets)
    }

    func setMetadata(_ key: String, _ value: [UInt8]?) throws { try writer("setMetadata").setMetadata(key, value) }
}
