import Strata

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

    private var scopes: [String: @Sendable (SyncIdentity) -> Scope] = [:]
    private var owned: [String: Set<String>] = [:]
    /// A last word on each write that passed the scope checks: return `false` to reject it.
    public var writeRule: (@Sendable (Write) -> Bool)?

    /// Everyone may read and write everything (the default of a server without access rules).
    public init() {}

    /// Scopes an entity with an untyped rule.
    public mutating func scope(_ entity: String, _ rule: @escaping @Sendable (SyncIdentity) -> Scope) {
        scopes[entity] = rule
    }

    /// Scopes a model's entity to the records the filter built for an identity matches.
    public mutating func scope<Model: PersistentModel>(
        _ type: Model.Type, _ filter: @escaping @Sendable (SyncIdentity) -> Filter<Model>
    ) {
        scopes[Model.entityName] = { .matching(filter($0).expression) }
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
    public func scope(of entity: String, for identity: SyncIdentity?) -> Scope {
        guard let identity, let rule = scopes[entity] else { return .all }
        return rule(identity)
    }

    /// The properties of `entity` only the server writes.
    public func serverOwnedProperties(of entity: String) -> Set<String> { owned[entity] ?? [] }

    /// Entities with a read scope (their records' prior states are kept for removals).
    var scopedEntities: Set<String> { Set(scopes.keys) }

    /// Whether any rule restricts anything.
    public var isOpen: Bool { scopes.isEmpty && owned.isEmpty && writeRule == nil }
}
