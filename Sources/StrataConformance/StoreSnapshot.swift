import Strata

/// Everything observable in a store: every record with its version, every to-many's members in
/// order, and the history token. Two equal snapshots mean nothing changed.
struct StoreSnapshot: Equatable, Sendable {
    var records: [RecordKey: Record] = [:]
    var related: [String: [RecordID]] = [:]
    var historyToken: HistoryToken?

    static func take(_ store: Store) async throws -> StoreSnapshot {
        var snapshot = try await store.read { reader in
            var snapshot = StoreSnapshot()
            for entity in reader.schema.entities {
                let records = try reader.fetch(FetchPlan(entity: entity.name))
                for record in records { snapshot.records[record.key] = record }
                for relationship in entity.relationships where !relationship.isToOne {
                    let grouped = try reader.relatedRecords(entity.name, relationship.name, owners: records.map(\.id))
                    for record in records {
                        snapshot.related["\(record.key).\(relationship.name)"] = (grouped[record.id] ?? []).map(\.id)
                    }
                }
            }
            return snapshot
        }
        snapshot.historyToken = try await store.currentHistoryToken()
        return snapshot
    }

    func difference(from other: StoreSnapshot) -> String {
        var notes: [String] = []
        for key in Set(records.keys).union(other.records.keys).sorted(by: { $0.description < $1.description })
        where records[key] != other.records[key] {
            func show(_ record: Record?) -> String {
                guard let record else { return "absent" }
                return "v\(record.version) {"
                    + record.values.filter { !$0.value.isNull }.sorted { $0.key < $1.key }.map {
                        "\($0.key): \($0.value)"
                    }.joined(separator: ", ") + "}"
            }
            notes.append("\(key): \(show(records[key])) → \(show(other.records[key]))")
        }
        for key in Set(related.keys).union(other.related.keys).sorted() where related[key] != other.related[key] {
            notes.append("\(key): \(related[key] ?? []) → \(other.related[key] ?? [])")
        }
        if historyToken != other.historyToken {
            notes.append("history \(String(describing: historyToken)) → \(String(describing: other.historyToken))")
        }
        return notes.prefix(8).joined(separator: "; ")
    }
}
