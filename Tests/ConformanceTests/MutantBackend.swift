import Foundation
import Strata
import StrataInMemory

/// One way a backend can be subtly wrong. Each is a storage bug a real backend could have.
///
/// Left out because no engine behaviour can observe them (equivalent mutants): a delete that
/// keeps the deleted record's own link lists (the engine empties them in the same save), and
/// dropping empty metadata values (the engine never writes one).
enum Mutation: String, CaseIterable, Sendable {
    // Queries
    case sortIgnoresDirection, offsetIgnored, limitPlusOne, nullsSortLast, dropsFirstOfALargeResult, countOffByOne
    case notIgnored, orAsAnd, betweenExcludesBounds, caseInsensitiveIgnored, inListFirstOnly, unicodeIDsNotFound
    case diacriticInsensitiveIgnored
    // Relationships
    case referrersDropLast, linkOwnersEmpty, linksReadReversed, setLinksDropsLast
    // Values
    case putResetsVersion, doublesAsFloat, datesToMilliseconds, emptyStringAsNull, emptyDataAsNull, intMinShifted
    // Metadata (history, outbox, sync state)
    case metadataIgnoresAfter, metadataIgnoresLimit
    // Transactions
    case writesNotAtomic, deleteIgnoredForIntegerIDs
    // Batched forms of the SPI
    case recordsByManyDropLast, referrersOfManyDropOneTarget, putManyDropsLast, deleteSetSkipsLast
}

/// The in-memory backend with one ``Mutation``: used to show the suite catches broken backends.
final class MutantBackend: StorageBackend {
    let inner: InMemoryBackend
    let mutation: Mutation

    init(_ inner: InMemoryBackend, _ mutation: Mutation) {
        self.inner = inner
        self.mutation = mutation
    }

    var schema: Schema { inner.schema }
    var capabilities: FetchCapabilities { inner.capabilities }

    func read<T: Sendable>(_ body: @escaping @Sendable (any StorageReadTransaction) throws -> T) async throws -> T {
        let mutation = mutation
        return try await inner.read { try body(MutantTransaction($0, nil, mutation)) }
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (any StorageWriteTransaction) throws -> T) async throws -> T {
        let mutation = mutation
        if mutation == .writesNotAtomic {
            // Commits whatever was written before the failure, then reports it.
            let result: Result<T, any Error> = try await inner.write { tx in
                Result { try body(MutantTransaction(tx, tx, mutation)) }
            }
            return try result.get()
        }
        return try await inner.write { tx in try body(MutantTransaction(tx, tx, mutation)) }
    }

    func close() async throws { try await inner.close() }
}

final class MutantTransaction: ForwardingReadTransaction, StorageWriteTransaction {
    let base: any StorageReadTransaction
    let writer: (any StorageWriteTransaction)?
    let mutation: Mutation

    init(_ base: any StorageReadTransaction, _ writer: (any StorageWriteTransaction)?, _ mutation: Mutation) {
        self.base = base
        self.writer = writer
        self.mutation = mutation
    }

    var readsGoTo: any StorageReadTransaction { base }

    func record(_ entity: String, id: RecordID) throws -> Record? {
        if mutation == .unicodeIDsNotFound, case .string(let text) = id, !text.utf8.allSatisfy({ $0 < 0x80 }) {
            return nil
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
        try requireWriter().delete(entity, id: id)
    }

    func setLinks(_ entity: String, relationship: String, from owner: RecordID, to targets: [RecordID]) throws {
        let list = mutation == .setLinksDropsLast && targets.count > 2 ? Array(targets.dropLast()) : targets
        try requireWriter().setLinks(entity, relationship: relationship, from: owner, to: list)
    }

    func setMetadata(_ key: String, _ value: [UInt8]?) throws {
        try requireWriter().setMetadata(key, value)
    }
}
