import Foundation
import Strata
import StrataSync

/// What a store holds, for tools (`strata inspect`): its schema as stored, record counts per
/// entity, the range of its history, and its sync state as a client (outbox, cursor, an
/// unfinished reset) and as a server (the clients it has applied pushes from). `Codable`, so a
/// tool prints it as JSON as it is.
public struct StoreInspection: Sendable, Hashable, Codable {
    /// An attribute as the store keeps it.
    public typealias Attribute = SchemaDescription.Attribute

    /// A relationship as stored.
    public struct Relationship: Sendable, Hashable, Codable {
        /// Its name.
        public var name: String
        /// Its destination entity.
        public var destination: String
        /// Its inverse.
        public var inverse: String?
        /// Whether it is a to-many.
        public var toMany: Bool
        /// Whether the to-many keeps an order.
        public var isOrdered: Bool
        /// The delete rule of the schema the store was opened with: the app's recorded one when
        /// ``StoreInspection/rulesRecorded``, else `nullify`, standing for "not recorded".
        public var deleteRule: String
        /// How the store keeps it: a reference column, or a link list.
        public var storage: String
    }

    /// An entity as stored.
    public struct Entity: Sendable, Hashable, Codable {
        /// Its name.
        public var name: String
        /// The kind of its IDs.
        public var idKind: RecordID.Kind
        /// How many records it holds.
        public var count: Int
        /// Its attributes.
        public var attributes: [Attribute]
        /// Its relationships.
        public var relationships: [Relationship]
        /// Its compound indexes.
        public var indexes: [[String]]
        /// Its unique constraints.
        public var uniqueConstraints: [[String]]
    }

    /// The store's history.
    public struct History: Sendable, Hashable, Codable {
        /// The oldest and newest history tokens held (nil: none).
        public var first: Int64?
        /// The newest history token.
        public var last: Int64?
        /// Entries older than this were purged.
        public var purgedBefore: Int64?
    }

    /// The store's sync state, when sync is on.
    public struct Sync: Sendable, Hashable, Codable {
        /// As a client: mutations waiting in the outbox, the pull cursor, whether a reset from a
        /// snapshot is under way.
        public var pendingMutations: Int
        /// The server cursor the client has caught up with.
        public var cursor: Int64?
        /// Whether a reset from a snapshot was interrupted.
        public var resetInProgress: Bool
        /// As a server: the clients whose pushes it applied.
        public var serverClients: Int
    }

    /// The backend's URL scheme, when the store was opened from a URL.
    public var backend: String?
    /// The store's URL.
    public var location: String?
    /// The schema version it holds.
    public var schemaVersion: String?
    /// Its entities.
    public var entities: [Entity]
    /// Its history.
    public var history: History
    /// Its sync state.
    public var sync: Sync
    /// Whether the store holds its app's recorded declaration of the shape it holds (delete rules,
    /// validation; `Store.declaredSchema()`), which `Store.openStored(_:options:)`
    /// opens it with.
    public var rulesRecorded: Bool?
}

extension Store {
    /// What the store holds (see ``StoreInspection``), read in one consistent state. Counts are
    /// the backends' own counts (no records are materialised where a backend counts natively).
    public func inspect() async throws -> StoreInspection {
        let (executor, schema, location) = (executor, schema, location)
        return try await backend.read { transaction in
            let entities = try schema.entities.map { entity in
                StoreInspection.Entity(
                    name: entity.name, idKind: entity.idKind,
                    count: try executor.count(FetchPlan(entity: entity.name), in: transaction),
                    attributes: entity.attributes.map {
                        StoreInspection.Attribute(
                            name: $0.name, type: $0.type, isOptional: $0.isOptional, isIndexed: $0.isIndexed)
                    },
                    relationships: entity.relationships.map {
                        StoreInspection.Relationship(
                            name: $0.name, destination: $0.destination, inverse: $0.inverse,
                            toMany: $0.cardinality == .toMany,
                            isOrdered: $0.isOrdered, deleteRule: $0.deleteRule.rawValue, storage: $0.storage.rawValue)
                    },
                    indexes: entity.indexes, uniqueConstraints: entity.uniqueConstraints)
            }
            let first = try transaction.metadata(prefix: HistoryLog.entryPrefix, after: nil, limit: 1).first
                .flatMap { Int64($0.key.dropFirst(HistoryLog.entryPrefix.count)) }
            let history = StoreInspection.History(
                first: first, last: try HistoryLog.lastToken(in: transaction)?.value,
                purgedBefore: try HistoryLog.purgedBefore(in: transaction)?.value)
            var clients = 0
            var after: String?
            while true {
                let page = try transaction.metadata(prefix: MetadataKeys.serverClientPrefix, after: after, limit: 512)
                clients += page.count
                guard page.count == 512, let last = page.last else { break }
                after = last.key
            }
            let sync = StoreInspection.Sync(
                pendingMutations: try Outbox.pendingCount(in: transaction),
                cursor: try Outbox.cursor(in: transaction)?.value,
                resetInProgress: try ResetState.read(transaction) != nil, serverClients: clients)
            let declared = try transaction.metadata(SchemaFile.metadataKey).flatMap {
                try? SchemaFile.decode($0, path: "")
            }
            return StoreInspection(
                backend: location?.scheme, location: location?.description, schemaVersion: schema.version,
                entities: entities, history: history,
                sync: sync, rulesRecorded: declared?.declares(SchemaDescription(schema)) ?? false)
        }
    }
}
