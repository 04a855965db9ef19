import Strata

/// Everything observable in a store: every record with its version, every to-many's members in order (a to-many
/// answered by its inverse's references is in the records), and the history token. Two equal snapshots mean nothing
/// changed.
///
/// It prints as a count (`12 records, 3 link lists, history …`), so a failed expectation stays one
/// short line; ``difference(from:)`` says what differs.
struct StoreSnapshot: Equatable, Sendable, CustomStringConvertible {
    var records: [RecordKey: Record] = [:]
    var related: [String: [RecordID]] = [:]
    var historyToken: HistoryToken?

    static func take(_ store: Store) async throws -> StoreSnapshot {
        var snapshot = try await store.read { reader in
            var snapshot = StoreSnapshot()
            for entity in reader.schema.entities {
                let records = try reader.fetch(FetchPlan(entity: entity.name))
                for record in records { snapshot.records[record.key] = record }
                // An entity without records has no link lists to read. A to-many answered by its
                // inverse's references is not read: the records compared hold it.
                for relationship in entity.relationships
                where !relationship.isToOne && relationship.storage != .inverseReference && !records.isEmpty {
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

    var description: String {
        let lists = related.values.filter { !$0.isEmpty }.count
        return
            "\(records.count) records, \(lists) non-empty link lists, history \(historyToken.map { "\($0)" } ?? "none")"
    }

    /// What differs from `other` (the expected state), at most eight notes: records only here
    /// (`added`), only there (`missing`), and changed ones with their version and first differing
    /// field (`Person(…): age 35, expected 34 (+1 more field)`); then link lists and the history token.
    func difference(from other: StoreSnapshot) -> String {
        var notes: [String] = []
        for key in Set(records.keys).union(other.records.keys).sorted(by: { $0.description < $1.description })
        where records[key] != other.records[key] {
            switch (records[key], other.records[key]) {
            case (let here?, nil): notes.append("\(key) added (v\(here.version))")
            case (nil, let there?): notes.append("\(key) missing (expected v\(there.version))")
            case (let here?, let there?): notes.append("\(key): " + Self.change(here, from: there))
            case (nil, nil): break
            }
        }
        for key in Set(related.keys).union(other.related.keys).sorted() where related[key] != other.related[key] {
            notes.append("\(key): \(related[key] ?? []), expected \(other.related[key] ?? [])")
        }
        if historyToken != other.historyToken {
            let (here, there) = (historyToken.map { "\($0)" } ?? "none", other.historyToken.map { "\($0)" } ?? "none")
            notes.append("history at \(here), expected \(there)")
        }
        let shown = notes.prefix(8).joined(separator: "; ")
        return notes.count > 8 ? shown + "; … \(notes.count - 8) more" : shown
    }

    /// A changed record's version and first differing field, and how many more differ.
    private static func change(_ here: Record, from there: Record) -> String {
        let (mine, theirs) = (here.values, there.values)
        let differing = Set(mine.keys).union(theirs.keys).sorted().filter { mine[$0] != theirs[$0] }
        var parts: [String] = []
        if here.version != there.version { parts.append("v\(here.version), expected v\(there.version)") }
        if let first = differing.first {
            let more =
                differing.count > 1 ? " (+\(differing.count - 1) more field\(differing.count > 2 ? "s" : ""))" : ""
            let (here, there) = (mine[first].map { "\($0)" } ?? "absent", theirs[first].map { "\($0)" } ?? "absent")
            parts.append("\(first) \(here), expected \(there)\(more)")
        }
        return parts.isEmpty ? "differs" : parts.joined(separator: ", ")
    }
}
