import Foundation
import Strata
import StrataInMemory
import Synchronization

/// The in-memory backend with one ``ConformanceMutant``: what the suite must catch.
final class MutantBackend: StorageBackend {
    let inner: InMemoryBackend
    let mutation: ConformanceMutant
    /// For ``ConformanceMutant/writeThroughBeforeCommit``: the writes of failed transactions that
    /// reached "the disk" before the failure — invisible in this process, found by a reopen.
    let leaked: LeakedWrites

    /// For ``ConformanceMutant/staleRecordCache``: records as first read, never invalidated.
    let cache = RecordCache()

    init(_ inner: InMemoryBackend, _ mutation: ConformanceMutant, leaked: LeakedWrites = LeakedWrites()) {
        self.inner = inner
        self.mutation = mutation
        self.leaked = leaked
    }

    /// The same storage through a new handle, as a reopen finds it: with the leaked writes applied.
    func reopened() async throws -> MutantBackend {
        let backend = inner.reopened()
        let writes = leaked.take()
        if !writes.isEmpty {
            try await backend.write { tx in
                for write in writes { try write(tx) }
            }
        }
        return MutantBackend(backend, mutation, leaked: leaked)
    }

    var schema: Schema { inner.schema }
    var capabilities: FetchCapabilities { inner.capabilities }

    func read<T: Sendable>(_ body: @escaping @Sendable (any StorageReadTransaction) throws -> T) async throws -> T {
        let mutation = mutation
        let cache = cache
        return try await inner.read { try body(MutantTransaction($0, nil, mutation, cache: cache)) }
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (any StorageWriteTransaction) throws -> T) async throws -> T {
        let mutation = mutation
        switch mutation {
        case .writesNotAtomic:
            // Commits whatever was written before the failure, then reports it.
            let result: Result<T, any Error> = try await inner.write { tx in
                Result { try body(MutantTransaction(tx, tx, mutation)) }
            }
            return try result.get()
        case .writeThroughBeforeCommit:
            // This process rolls back; "the disk" keeps every write made before the failure.
            let journal = LeakedWrites()
            do {
                return try await inner.write { tx in try body(MutantTransaction(tx, tx, mutation, journal: journal)) }
            } catch {
                leaked.append(journal.take())
                throw error
            }
        default:
            let cache = cache
            return try await inner.write { tx in try body(MutantTransaction(tx, tx, mutation, cache: cache)) }
        }
    }

    func close() async throws { try await inner.close() }
}

final class MutantTransaction: ForwardingReadTransaction, StorageWriteTransaction {
    let base: any StorageReadTransaction
    let writer: (any StorageWriteTransaction)?
    let mutation: ConformanceMutant
    let journal: LeakedWrites?
    let cache: RecordCache?

    init(
        _ base: any StorageReadTransaction, _ writer: (any StorageWriteTransaction)?, _ mutation: ConformanceMutant,
        journal: LeakedWrites? = nil, cache: RecordCache? = nil
    ) {
        self.base = base
        self.writer = writer
        self.mutation = mutation
        self.journal = journal
        self.cache = cache
    }

    var readsGoTo: any StorageReadTransaction { base }

    func record(_ entity: String, id: RecordID) throws -> Record? {
        if mutation == .unicodeIDsNotFound, case .string(let text) = id, !text.utf8.allSatisfy({ $0 < 0x80 }) {
            return nil
        }
        if mutation == .staleRecordCache, let cache {
            if let cached = cache.records.withLock({ $0["\(entity)/\(id)"] }) { return cached }
            let record = try base.record(entity, id: id)
            if let record { cache.records.withLock { $0["\(entity)/\(id)"] = record } }
            return record
        }
        return try base.record(entity, id: id)
    }

    func fetch(_ input: FetchPlan) throws -> [Record] {
        var plan = input
        plan.predicate = plan.predicate.map(mutate)
        switch mutation {
        case .sortIgnoresDirection: plan.sort = plan.sort.map { SortKey($0.property) }
        case .offsetIgnored: plan.offset = 0
        case .limitPlusOne: plan.limit = plan.limit.map { $0 + 1 }
        case .nullsSortLast:
            guard let first = plan.sort.first else { break }
            let all = try base.fetch(FetchPlan(entity: plan.entity, predicate: plan.predicate, sort: plan.sort))
            let moved = all.filter { !$0[first.property].isNull } + all.filter { $0[first.property].isNull }
            let start = min(plan.offset, moved.count)
            return Array(moved[start...].prefix(plan.limit ?? moved.count))
        default: break
        }
        let records = try base.fetch(plan)
        if mutation == .dropsFirstOfALargeResult, records.count > 3 { return Array(records.dropFirst()) }
        return records
    }

    private func mutate(_ expression: FilterExpression) -> FilterExpression {
        switch (mutation, expression) {
        case (.notIgnored, .not(let inner)): return mutate(inner)
        case (.orAsAnd, .or(let parts)): return .and(parts.map(mutate))
        case (.betweenExcludesBounds, .between(let property, let lower, let upper)):
            return .and([.compare(property, .greater, lower, []), .compare(property, .less, upper, [])])
        case (.caseInsensitiveIgnored, .compare(let property, let op, let value, let options)):
            return .compare(property, op, value, options.subtracting(.caseInsensitive))
        case (.caseInsensitiveIgnored, .text(let property, let op, let needle, let options)):
            return .text(property, op, needle, options.subtracting(.caseInsensitive))
        case (.diacriticInsensitiveIgnored, .text(let property, let op, let needle, let options)):
            return .text(property, op, needle, options.subtracting(.diacriticInsensitive))
        case (.inListFirstOnly, .inList(let property, let values, let options)):
            return .inList(property, Array(values.prefix(1)), options)
        case (_, .and(let parts)): return .and(parts.map(mutate))
        case (_, .or(let parts)): return .or(parts.map(mutate))
        case (_, .not(let inner)): return .not(mutate(inner))
        case (_, .relatedOne(let name, let inner)): return .relatedOne(relationship: name, mutate(inner))
        case (_, .anyRelated(let name, let inner)): return .anyRelated(relationship: name, mutate(inner))
        case (_, .noneRelated(let name, let inner)): return .noneRelated(relationship: name, mutate(inner))
        default: return expression
        }
    }

    func existingIDs(_ entity: String, among ids: [RecordID]) throws -> Set<RecordID> {
        let found = try base.existingIDs(entity, among: ids)
        return mutation == .existingIDsMissesAll ? [] : found
    }

    func versions(_ entity: String, ids: [RecordID]) throws -> [RecordID: Int64] {
        let found = try base.versions(entity, ids: ids)
        return mutation == .versionsOneLower ? found.mapValues { $0 - 1 } : found
    }

    func count(_ plan: FetchPlan) throws -> Int {
        var mutated = plan
        mutated.predicate = plan.predicate.map(mutate)
        let count = try base.count(mutated)
        return mutation == .countOffByOne && count > 0 ? count + 1 : count
    }

    func records(_ entity: String, ids: [RecordID]) throws -> [RecordID: Record] {
        var found = try base.records(entity, ids: ids)
        if mutation == .recordsByManyDropLast, found.count > 2, let last = found.keys.max() { found[last] = nil }
        return found
    }

    func referrers(_ entity: String, property: String, toEach targets: [RecordID]) throws -> [RecordID: [RecordID]] {
        var found = try base.referrers(entity, property: property, toEach: targets)
        if mutation == .referrersOfManyDropOneTarget, found.count > 1, let first = found.keys.min() {
            found[first] = nil
        }
        return found
    }

    func referrers(_ entity: String, property: String, to target: RecordID) throws -> [RecordID] {
        let found = try base.referrers(entity, property: property, to: target)
        return mutation == .referrersDropLast && found.count > 1 ? Array(found.dropLast()) : found
    }

    func links(_ entity: String, relationship: String, from owner: RecordID) throws -> [RecordID] {
        let list = try base.links(entity, relationship: relationship, from: owner)
        return mutation == .linksReadReversed ? list.reversed() : list
    }

    func linkOwners(_ entity: String, relationship: String, to target: RecordID) throws -> [RecordID] {
        mutation == .linkOwnersEmpty ? [] : try base.linkOwners(entity, relationship: relationship, to: target)
    }

    func links(_ entity: String, relationship: String, fromEach owners: [RecordID]) throws -> [RecordID: [RecordID]] {
        // Each list through this backend's own `links(from:)`, so its list mutants apply here too.
        var found = try linksOneOwnerAtATime(entity, relationship: relationship, fromEach: owners)
        if mutation == .linksOfManyDropOneOwner, found.count > 1, let first = found.keys.min() { found[first] = nil }
        return found
    }

    func linkOwners(_ entity: String, relationship: String, toEach targets: [RecordID]) throws -> [RecordID: [RecordID]]
    {
        try linkOwnersOneTargetAtATime(entity, relationship: relationship, toEach: targets)
    }

    func metadata(prefix: String, after: String?, limit: Int?) throws -> [(key: String, value: [UInt8])] {
        switch mutation {
        case .metadataIgnoresAfter: try base.metadata(prefix: prefix, after: nil, limit: limit)
        case .metadataIgnoresLimit: try base.metadata(prefix: prefix, after: after, limit: nil)
        default: try base.metadata(prefix: prefix, after: after, limit: limit)
        }
    }

    private func requireWriter() throws -> any StorageWriteTransaction {
        guard let writer else { throw StrataError(.storageFailure, "read-only") }
        return writer
    }

    func put(_ input: Record) throws {
        var record = input
        for (name, value) in record.values {
            switch (mutation, value) {
            case (.doublesAsFloat, .double(let number)): record.values[name] = .double(Double(Float(number)))
            case (.datesToMilliseconds, .date(let date)):
                record.values[name] = .date(
                    Date(
                        timeIntervalSinceReferenceDate: (date.timeIntervalSinceReferenceDate * 1000).rounded(.down)
                            / 1000))
            case (.emptyStringAsNull, .string("")), (.emptyDataAsNull, .data(Data())): record.values[name] = .null
            case (.intMinShifted, .int(.min)): record.values[name] = .int(.min + 1)
            default: break
            }
        }
        if mutation == .putResetsVersion { record.version = 1 }
        let written = record
        journal?.append([{ try $0.put(written) }])
        try requireWriter().put(record)
    }

    func put(contentsOf records: [Record]) throws {
        for record in mutation == .putManyDropsLast && records.count > 1 ? Array(records.dropLast()) : records {
            try put(record)
        }
    }

    func delete(_ entity: String, ids: [RecordID]) throws {
        for id in mutation == .deleteSetSkipsLast && ids.count > 1 ? Array(ids.dropLast()) : ids {
            try delete(entity, id: id)
        }
    }

    func delete(_ entity: String, id: RecordID) throws {
        if mutation == .deleteIgnoredForIntegerIDs, case .int = id { return }
        journal?.append([{ try $0.delete(entity, id: id) }])
        try requireWriter().delete(entity, id: id)
    }

    func setLinks(_ entity: String, relationship: String, from owner: RecordID, to targets: [RecordID]) throws {
        let list = mutation == .setLinksDropsLast && targets.count > 2 ? Array(targets.dropLast()) : targets
        journal?.append([{ try $0.setLinks(entity, relationship: relationship, from: owner, to: list) }])
        try requireWriter().setLinks(entity, relationship: relationship, from: owner, to: list)
    }

    func setMetadata(_ key: String, _ value: [UInt8]?) throws {
        if mutation == .metadataRemovalIgnored, value == nil { return }
        journal?.append([{ try $0.setMetadata(key, value) }])
        try requireWriter().setMetadata(key, value)
    }
}

/// Writes kept aside to be replayed onto a store (the write-through mutant's "disk").
final class LeakedWrites: Sendable {
    typealias Write = @Sendable (any StorageWriteTransaction) throws -> Void
    private let writes = Mutex<[Write]>([])

    func append(_ more: [Write]) { writes.withLock { $0 += more } }

    /// The writes kept so far, forgetting them.
    func take() -> [Write] {
        writes.withLock { list in
            defer { list.removeAll() }
            return list
        }
    }
}

/// Records as first read (the stale-cache mutant's).
final class RecordCache: Sendable {
    let records = Mutex<[String: Record]>([:])
}
