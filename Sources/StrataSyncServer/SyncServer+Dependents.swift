import Foundation
import Strata
import StrataSync

extension SyncServer {
    /// The records a page's changes moved into or out of the reader's filter without changing
    /// them: the referrers (through the to-one relationships `paths` names) of each changed record,
    /// and theirs in turn, whose visibility at the reader's cursor (``AtCursor``) and now differ. One
    /// that left is sent as an eviction, one that entered as it is now; `sent` (already in the page)
    /// is not sent again. A trip given to another traveller takes its stops out of the scope of the
    /// reader who could see them through it; a person whose address changed domain, their trips.
    static func dependents(
        of order: [RecordKey], first: [RecordKey: (token: HistoryToken, kind: HistoryChange.Kind)],
        filter: ReadFilter, paths: ScopePaths, sent: Set<RecordKey>, cursor: HistoryToken?, snapshots: [AtCursor] = [],
        cursorFilter: ReadFilter? = nil, in transaction: any StorageReadTransaction
    ) throws -> [RemoteChange] {
        // Judged at the cursor with the reader's shares as they stood then (``ReadFilter/sharesAsOf(_:executor:)``).
        let cursorFilter = cursorFilter ?? filter
        guard !paths.readers.isEmpty else { return [] }
        let atCursor = AtCursor(readsGoTo: transaction, first: first)
        var queue = order.filter { paths.readers[$0.entity] != nil }
        var seen = Set(order).union(sent)
        var found: [RemoteChange] = []
        var next = 0
        while next < queue.count {
            let key = queue[next]
            next += 1
            for reader in paths.readers[key.entity] ?? [] {
                let ids = try transaction.referrers(reader.entity, property: reader.relationship, to: key.id)
                for id in ids.sorted() {
                    let referrer = RecordKey(entity: reader.entity, id: id)
                    guard seen.insert(referrer).inserted, let record = try transaction.record(reader.entity, id: id)
                    else { continue }
                    // Its own referrers may have moved with it, whether or not it did.
                    if paths.readers[reader.entity] != nil { queue.append(referrer) }
                    let now = try filter.isVisible(record, in: transaction)
                    // Seen at the cursor (or at a snapshot the reader names) and not now, or the reverse.
                    let before =
                        try cursorFilter.isVisible(record, in: atCursor)
                        || (!now && (try readableInSnapshots(referrer, views: snapshots, filter: filter)))
                    guard now != before else { continue }
                    let current = try currentState(
                        referrer, record: .some(record), lastVersion: record.version, historyTime: Date(),
                        in: transaction)
                    found.append(
                        now
                            ? current
                            : .eviction(of: referrer, serverVersion: record.version, timestamp: current.timestamp))
                }
            }
            if let cursor {
                found += try deletedDependents(
                    of: key, after: cursor, filter: filter, cursorFilter: cursorFilter, atCursor: atCursor, seen: &seen,
                    in: transaction)
            }
        }
        // Records that entered the scope without changing are named by lists that did not change.
        let entered = found.filter { !$0.isTombstone && !$0.isEviction }.map(\.key)
        found += try listers(of: entered, filter: filter, seen: &seen, in: transaction)
        return found
    }

    /// The referrers of `key` deleted, or turned to another record, after the reader's cursor
    /// (``DeletedReferrers``) that the reader could see at its cursor and cannot now: their
    /// tombstones and evictions, which their own changes, judged when the record they read through
    /// was out of the scope already, would never send.
    static func deletedDependents(
        of key: RecordKey, after cursor: HistoryToken, filter: ReadFilter, cursorFilter: ReadFilter,
        atCursor: AtCursor, seen: inout Set<RecordKey>, in transaction: any StorageReadTransaction
    ) throws -> [RemoteChange] {
        var found: [RemoteChange] = []
        for entry in try DeletedReferrers.referrers(of: key, after: cursor, in: transaction) {
            let referrer = entry.referrer
            guard !seen.contains(referrer),
                case .some(.some(let prior)) = try prior(
                    referrer, before: HistoryToken(entry.token), kind: .delete, in: transaction),
                try cursorFilter.isVisible(prior, in: atCursor)
            else { continue }
            let record = try transaction.record(referrer.entity, id: referrer.id)
            if let record, try filter.isVisible(record, in: transaction) { continue }
            seen.insert(referrer)
            let current = try currentState(
                referrer, record: .some(record), lastVersion: record?.version ?? prior.version, historyTime: Date(),
                in: transaction)
            found.append(
                record == nil
                    ? current
                    : .eviction(of: referrer, serverVersion: current.serverVersion, timestamp: current.timestamp))
        }
        return found
    }

    /// The filters `filter` reads each entity through, for ``ScopePaths``.
    static func matchingFilters(_ filter: ReadFilter, schema: Schema) -> [String: FilterExpression] {
        var filters: [String: FilterExpression] = [:]
        for entity in schema.entities {
            if case .matching(let expression) = filter.scope(of: entity.name, schema: schema) {
                filters[entity.name] = expression
            }
        }
        return filters
    }
}
