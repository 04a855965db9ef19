import Foundation
import Strata
import StrataSync

/// The deleted records of entities a scope reads through another record (stops, read through
/// their trip), filed under the record they named when deleted and purged with history. A pull
/// that takes a trip out of a reader's scope finds its stops through the store's referrers, which
/// no longer list those deleted since: without this index a stop deleted after its trip left the
/// scope, but before the reader's pull, stayed with the reader for good (its own deletion is out
/// of scope when judged at the reader's cursor, the trip being gone from it by then).
///
/// Records that stopped naming it are filed too (a trip given to another traveller), under the
/// record they named before: a traveller leaving the reader's scope takes her trips with her, and
/// one given to someone else since — in a commit a later page reads, where its earlier state is
/// judged over the traveller as she is now, out of the scope already — would otherwise stay.
struct DeletedReferrers: CommitParticipant {
    /// For each entity whose records a scope reads through, the to-one relationships it does so by.
    let relationships: [String: [String]]

    init(_ paths: ScopePaths) {
        var relationships: [String: [String]] = [:]
        for readers in paths.readers.values {
            for reader in readers where relationships[reader.entity]?.contains(reader.relationship) != true {
                relationships[reader.entity, default: []].append(reader.relationship)
            }
        }
        self.relationships = relationships
    }

    /// One deleted referrer: where its entry is filed, and what it was.
    struct Entry: Codable, Sendable {
        var token: Int64
        var referrer: RecordKey
    }

    static let prefix = MetadataKeys.serverDeletedReferrerPrefix
    static let tokenPrefix = MetadataKeys.serverDeletedReferrerTokenPrefix

    /// The entries filed under `key` (the ID's length first: no ID is a prefix of another's key).
    static func prefix(of key: RecordKey) -> String {
        let id = key.id.description
        return prefix + Outbox.recordSuffix(key).dropLast(id.count)
            + "\(id.utf8.count):" + id + "."
    }

    func participate(in commit: CommitInProgress, transaction: any StorageWriteTransaction) throws {
        let left = commit.changes.filter { $0.kind != .insert && relationships[$0.entity] != nil }
        guard !left.isEmpty else { return }
        let token = (try HistoryLog.lastToken(in: transaction)?.value ?? 0) + 1
        var index = 0
        for change in left {
            let key = RecordKey(entity: change.entity, id: change.id)
            guard let staged = commit.workingSet.entry(key), let original = staged.original,
                let entity = transaction.schema.entity(change.entity)
            else { continue }
            for name in relationships[change.entity] ?? [] {
                guard let destination = entity.relationship(name)?.destination,
                    let id = RecordID(original.values[name] ?? .null),
                    staged.current.map({ RecordID($0.values[name] ?? .null) != id }) ?? true
                else { continue }
                let filed =
                    Self.prefix(of: RecordKey(entity: destination, id: id)) + HistoryLog.digits(HistoryToken(token))
                    + "." + Outbox.recordSuffix(key)
                try transaction.setMetadata(filed, Array(try JSONEncoder().encode(Entry(token: token, referrer: key))))
                let byToken = Self.tokenPrefix + HistoryLog.digits(HistoryToken(token)) + ".\(index)"
                try transaction.setMetadata(byToken, Array(filed.utf8))
                index += 1
            }
        }
    }

    /// Its deleted records are read for the relationships they named.
    func readsDeletedRecords(of entity: String) -> Bool { relationships[entity] != nil }

    /// Entries go with the history entries purged.
    func purge(before token: HistoryToken, in transaction: any StorageWriteTransaction) throws {
        let bound = Self.tokenPrefix + HistoryLog.digits(token)
        while true {
            let batch = try transaction.metadata(prefix: Self.tokenPrefix, after: nil, limit: 512)
            let old = batch.filter { $0.key < bound }
            for entry in old {
                try transaction.setMetadata(String(decoding: entry.value, as: UTF8.self), nil)
                try transaction.setMetadata(entry.key, nil)
            }
            if old.count < batch.count || batch.isEmpty { return }
        }
    }

    /// The records deleted after `cursor` that named `key` through a relationship when deleted,
    /// and those that stopped naming it after `cursor`, with the tokens of those changes.
    static func referrers(
        of key: RecordKey, after cursor: HistoryToken, in transaction: any StorageReadTransaction
    ) throws -> [Entry] {
        let base = prefix(of: key)
        var found: [Entry] = []
        var after: String? = base + HistoryLog.digits(cursor) + "~"
        while let start = after {
            let batch = try transaction.metadata(prefix: base, after: start, limit: 256)
            for (_, value) in batch {
                if let entry = try? JSONDecoder().decode(Entry.self, from: Data(value)) { found.append(entry) }
            }
            after = batch.count == 256 ? batch.last?.key : nil
        }
        return found.filter { $0.token > cursor.value }
    }
}
