import Foundation
import Strata

/// A record as a load receives it: values, version, and the link lists it keeps.
public struct LoadedRecord: Sendable {
    /// The record, with its ID and version.
    public var record: Record
    /// Its link lists, by relationship.
    public var links: [String: [RecordID]]

    /// A record to load.
    public init(record: Record, links: [String: [RecordID]] = [:]) {
        self.record = record
        self.links = links
    }
}

/// Loads records that already have identities, versions and link lists — an export, another
/// store — into a store through the engine (`strata import`, `strata copy`).
///
/// Each batch is one save: values are validated and unique constraints checked as in any save,
/// inserted records keep their versions, link lists are written in their order, and nothing goes to
/// a sync outbox. Inverses are not re-derived (the source kept them) and references are checked
/// once everything is in (`finish(limit:completion:)`), since a batch may refer to records of a later one — or,
/// for an atomic load (`load(_:through:checkingReferences:)` with `true`), inside the one save,
/// which then fails and writes nothing. The position reached is stored with each batch, so an
/// interrupted load resumes (`position()`).
public struct StoreLoader: Sendable {
    /// The store loaded into.
    public let store: Store
    static let positionKey = MetadataKeys.loadPosition
    static let finishedKey = MetadataKeys.loadFinished

    /// A loader into `store`.
    public init(store: Store) { self.store = store }

    /// How many records earlier batches of an unfinished load stored (0 when none).
    public func position() async throws -> Int {
        try await store.backend.read { transaction in
            guard let bytes = try transaction.metadata(Self.positionKey) else { return 0 }
            var reader = BinaryReader(bytes)
            return Int(try reader.unsigned())
        }
    }

    /// Loads one batch in one save and stores `position` with it.
    public func load(_ batch: [LoadedRecord], through position: Int, checkingReferences: Bool = false) async throws {
        try await store.commit(
            author: "strata load", contextName: "load", participants: [],
            stage: { session, _ in
                session.loading = true
                session.workingSet.reserve(batch.count)
                for item in batch { try session.load(item.record, links: item.links) }
                if checkingReferences,
                    let dangling = try Self.dangling(
                        batch.lazy.map(\.record), links: batch.lazy.map { ($0.record.key, $0.links) },
                        in: session.workingSet
                    ).first
                {
                    throw dangling
                }
            }
        ) { _, _, transaction in
            // The position marker commits with the batch.
            var bytes = BinaryWriter()
            bytes.unsigned(UInt64(position))
            try transaction.setMetadata(Self.positionKey, bytes.bytes)
            try transaction.setMetadata(Self.finishedKey, nil)
        }
    }

    /// What `finish(limit:completion:)` recorded of the last load that finished into the store
    /// (`nil` when none did, or a load has started since): how a resumed import tells "already
    /// done" from "another store's records".
    public func completion() async throws -> String? {
        try await store.backend.read { transaction in
            try transaction.metadata(Self.finishedKey).map { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// Removes every record of the store, a save per `batch` records, before a load replaces them
    /// (`strata copy --replace`, `strata import --replace`). No delete rule applies — every record
    /// goes, so none could hold — and link lists go with their owners; each save records its
    /// deletions in history as any save does, so observers and sync see them. Returns how many
    /// records were removed; `progress` receives the running count.
    @discardableResult
    public func removeAll(batch: Int = 1_000, progress: @Sendable (Int) -> Void = { _ in }) async throws -> Int {
        let batch = max(1, batch)
        var removed = 0
        for entity in store.schema.entities {
            while true {
                let ids = try await store.read { reader in
                    try reader.fetch(FetchPlan(entity: entity.name, sort: [SortKey("id")], limit: batch)).map(\.id)
                }
                guard !ids.isEmpty else { break }
                _ = try await store.commit(author: "strata load", contextName: "load", participants: []) { session, _ in
                    session.loading = true
                    for id in ids { try session.unload(RecordKey(entity: entity.name, id: id)) }
                }
                removed += ids.count
                progress(removed)
            }
        }
        return removed
    }

    /// Checks every reference and link target of the store now that the load is in, and ends the
    /// load (its position marker is removed, and `completion`, when given, is kept in its place:
    /// see `completion()`). Returns the references that point at nothing —
    /// a dangling reference is a finding unless deleting its destination leaves it by rule (the
    /// inverse's delete rule is noAction, or there is no inverse). A bare stored shape keeps no
    /// rules (every inverse nullifies); `Store.openStored(_:options:)` uses the
    /// app's recorded ones.
    public func finish(limit: Int = 1_000, completion: String? = nil) async throws -> [StrataError] {
        let findings = try await store.checkReferences(limit: limit)
        try await store.writeMetadata { transaction in
            try transaction.setMetadata(Self.positionKey, nil)
            try transaction.setMetadata(Self.finishedKey, completion.map { Array($0.utf8) })
        }
        return findings
    }

    /// The references among `records` and `links` whose destination does not exist in `reader`
    /// (and may not dangle), read in one batch per destination entity.
    static func dangling(
        _ records: some Sequence<Record>, links: some Sequence<(RecordKey, [String: [RecordID]])>,
        in reader: any StorageReadTransaction
    ) throws -> [StrataError] {
        let schema = reader.schema
        var wanted: [String: Set<RecordID>] = [:]
        var uses: [(owner: RecordKey, property: String, destination: String, target: RecordID)] = []
        // What deleting a destination leaves behind: nothing is touched without an inverse (the
        // engine cannot find the referrers) or when the inverse's rule is noAction.
        func mayDangle(_ relationship: RelationshipDescription) -> Bool {
            guard let inverse = schema.inverse(of: relationship) else { return true }
            return inverse.deleteRule == .noAction
        }
        for record in records {
            guard let entity = schema.entity(record.entity) else { continue }
            for relationship in entity.relationships where relationship.isToOne && !mayDangle(relationship) {
                guard let target = RecordID(record[relationship.name]) else { continue }
                wanted[relationship.destination, default: []].insert(target)
                uses.append((record.key, relationship.name, relationship.destination, target))
            }
        }
        for (owner, lists) in links {
            guard let entity = schema.entity(owner.entity) else { continue }
            for (name, targets) in lists {
                guard let relationship = entity.relationship(name), !mayDangle(relationship) else { continue }
                for target in targets {
                    wanted[relationship.destination, default: []].insert(target)
                    uses.append((owner, name, relationship.destination, target))
                }
            }
        }
        var existing: Set<RecordKey> = []
        for (destination, ids) in wanted {
            for id in try reader.records(destination, ids: Array(ids)).keys {
                existing.insert(RecordKey(entity: destination, id: id))
            }
        }
        return uses.filter { !existing.contains(RecordKey(entity: $0.destination, id: $0.target)) }.map {
            StrataError(
                .invalidReference, entity: $0.owner.entity, recordID: $0.owner.id, property: $0.property,
                "\($0.destination)(\($0.target)) does not exist")
        }
    }
}
