import Strata
import StrataSync

/// What each identity may read and write through a ``SyncServer``: per-entity read scopes,
/// properties only the server writes, and an optional write rule.
///
/// ```swift
/// var access = SyncAccess()
/// access.scope(Trip.self) { identity in \Trip.owner == identity.id }
/// access.serverOwned(Trip.self, ["approved"])
/// let server = SyncServer(store: store, access: access)
/// ```
///
/// - **Reads**: pull, snapshot and long-poll wake-ups carry only records inside the caller's scope
///   of their entity. A record that leaves the scope (deleted, or moved out by a server-side write)
///   reaches the caller as a tombstone only if it was inside the scope at the caller's cursor.
///   Entities with no scope are readable by everyone; `deny(_:)` makes one unreadable and unwritable.
/// - **Writes**: a pushed put or delete is rejected (`StrataError.Code.permissionDenied`) when
///   the stored record is outside the caller's scope, when the record as proposed would be, when
///   it sets a server-owned property, or when `writeRule` says no. A rejection never returns a
///   record the caller may not read.
/// - **Shares** widen both: a record an entity's `shareable(_:ownedBy:including:)` rule allows
///   to share, and the records its relationships lead to, are readable by the participants of its
///   `SyncShare` records and writable by those with `SyncShare.Role.readWrite`.
public struct SyncAccess: Sendable {
    /// What one identity may see of one entity.
    public enum Scope: Sendable {
        /// Every record.
        case all
        /// Nothing (and nothing may be written).
        case none
        /// The records matching the filter.
        case matching(FilterExpression)
    }

    /// A write as checked: the record stored now (`nil` for an insert) and as it would be after
    /// the mutation (`nil` for a delete).
    public struct Write: Sendable {
        /// Who is writing.
        public var identity: SyncIdentity
        /// The entity written.
        public var entity: String
        /// The record as the server holds it, or `nil` for an insert.
        public var stored: Record?
        /// The record as it would be after the write, or `nil` for a delete.
        public var proposed: Record?
    }

    /// What makes a record of an entity shareable: who owns it, and what a share takes along.
    public struct Shareable: Sendable {
        /// The records `identity` owns (and so may share).
        public var owner: @Sendable (SyncIdentity) -> FilterExpression
        /// Relationship paths from the shared record whose records are shared with it
        /// (`"stops"`, `"stops.photos"`); each step needs an inverse.
        public var including: [String]
    }

    private var scopes: [String: @Sendable (SyncIdentity) -> Scope] = [:]
    private var owned: [String: Set<String>] = [:]
    private(set) var shareables: [String: Shareable] = [:]
    /// A last word on each write that passed the scope checks: return `false` to reject it.
    public var writeRule: (@Sendable (Write) -> Bool)?

    /// Everyone may read and write everything (the default of a server without access rules).
    public init() {}

    /// Scopes an entity with an untyped rule.
    public mutating func scope(_ entity: String, _ rule: @escaping @Sendable (SyncIdentity) -> Scope) {
        scopes[entity] = rule
    }

    /// Scopes a model's entity to the records the filter built for an identity matches.
    ///
    /// A ``SyncServer`` also builds each rule once for an identity with an empty ID and no
    /// attributes, to learn which relationships it reads through (so it keeps their records'
    /// prior states): a rule must build a filter for any identity, and its shape should not
    /// depend on whose it is.
    public mutating func scope<Model: PersistentModel>(
        _ type: Model.Type, _ filter: @escaping @Sendable (SyncIdentity) -> Filter<Model>
    ) {
        scopes[Model.entityName] = { .matching(filter($0).expression) }
    }

    /// Lets the owners of a model's records share them with other identities through
    /// `SyncShare` records (add `SyncShare.self` to the schema).
    ///
    /// ```swift
    /// access.shareable(Trip.self, ownedBy: { identity in \Trip.owner == identity.id }, including: ["stops"])
    /// ```
    ///
    /// - Parameters:
    ///   - type: The model whose records may be shared.
    ///   - owner: The records an identity owns: only the owner may share a record, and a
    ///     participant may not change the properties this filter reads.
    ///   - including: Relationship paths whose records a share takes along.
    public mutating func shareable<Model: PersistentModel>(
        _ type: Model.Type, ownedBy owner: @escaping @Sendable (SyncIdentity) -> Filter<Model>,
        including: [String] = []
    ) {
        shareable(Model.entityName, ownedBy: { owner($0).expression }, including: including)
    }

    /// Lets the owners of an entity's records share them, with an untyped owner rule.
    public mutating func shareable(
        _ entity: String, ownedBy owner: @escaping @Sendable (SyncIdentity) -> FilterExpression,
        including: [String] = []
    ) {
        shareables[entity] = Shareable(owner: owner, including: including)
    }

    /// Makes an entity unreadable and unwritable by every client.
    public mutating func deny(_ entity: String) {
        scopes[entity] = { _ in .none }
    }

    /// Properties of an entity that clients may not write (the server sets them).
    public mutating func serverOwned(_ entity: String, _ properties: Set<String>) {
        owned[entity, default: []].formUnion(properties)
    }

    /// Properties of a model's entity that clients may not write.
    public mutating func serverOwned<Model: PersistentModel>(_ type: Model.Type, _ properties: Set<String>) {
        serverOwned(Model.entityName, properties)
    }

    /// The scope of `entity` for `identity`; `nil` identity (a trusted in-process caller) sees all.
    ///
    /// Shares are readable by their owner and their participant only, once anything is shareable.
    public func scope(of entity: String, for identity: SyncIdentity?) -> Scope {
        guard let identity else { return .all }
        if let rule = scopes[entity] { return rule(identity) }
        if entity == SyncShare.entityName, !shareables.isEmpty {
            let id = Value.string(identity.id)
            return .matching(.or([.compare("owner", .equal, id, []), .compare("participant", .equal, id, [])]))
        }
        return .all
    }

    /// The properties of `entity` only the server writes.
    public func serverOwnedProperties(of entity: String) -> Set<String> { owned[entity] ?? [] }

    /// Entities with a read scope (their records' prior states are kept for removals).
    var scopedEntities: Set<String> { Set(scopes.keys).union(shareables.isEmpty ? [] : [SyncShare.entityName]) }

    /// Whether any rule restricts anything.
    public var isOpen: Bool { scopes.isEmpty && owned.isEmpty && writeRule == nil && shareables.isEmpty }
}
