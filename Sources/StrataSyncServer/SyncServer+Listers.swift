import Foundation
import Strata
import StrataSync

extension SyncServer {
    /// The records whose many-to-many lists name `arrived` — records that entered the reader's
    /// scope without changing (a trip shared with the reader, given to the reader's traveller).
    /// Those lists, as the reader may see them, name the arrivals now though they did not change:
    /// each lister the reader may see and the page does not hold yet is sent as it is now, or a
    /// tag listing a shared trip would keep the list it had without the trip for good.
    static func listers(
        of arrived: [RecordKey], filter: ReadFilter, seen: inout Set<RecordKey>,
        in transaction: any StorageReadTransaction
    ) throws -> [RemoteChange] {
        guard !arrived.isEmpty else { return [] }
        var found: [RemoteChange] = []
        let schema = transaction.schema
        for (entity, keys) in Dictionary(grouping: arrived, by: \.entity).sorted(by: { $0.key < $1.key }) {
            for owner in schema.entities {
                for relationship in owner.relationships
                where relationship.storage == .links && relationship.destination == entity {
                    let owners = try transaction.linkOwners(
                        owner.name, relationship: relationship.name, toEach: keys.map(\.id))
                    for id in Set(owners.values.joined()).sorted() {
                        let key = RecordKey(entity: owner.name, id: id)
                        guard !seen.contains(key), let record = try transaction.record(owner.name, id: id),
                            try filter.isVisible(record, in: transaction)
                        else { continue }
                        seen.insert(key)
                        found.append(
                            try currentState(
                                key, record: .some(record), lastVersion: record.version, historyTime: Date(),
                                in: transaction))
                    }
                }
            }
        }
        return found
    }

    /// Whether `key`, visible to the reader now, was changed after its cursor from a state it
    /// could not see (an update took it into the scope: its listers' lists did not change). An
    /// insert is not: whatever lists name it changed in history of their own.
    static func enteredScope(
        _ key: RecordKey, first: [RecordKey: (token: HistoryToken, kind: HistoryChange.Kind)], filter: ReadFilter,
        atCursor: AtCursor, _ transaction: any StorageReadTransaction
    ) throws -> Bool {
        guard let (token, kind) = first[key], kind == .update,
            case .some(.some(let prior)) = try prior(key, before: token, kind: kind, in: transaction)
        else { return false }
        return try !filter.isVisible(prior, in: atCursor)
    }
}
