import Strata
/// Applies server state to a client's local store inside one write transaction, without echoing
/// it to the outbox, and resolves pulled records that meet pending local mutations. It stages
/// records through the save's session; what it keeps in the outbox (server versions, superseded
/// and whole-record mutations) is written by ``finish(in:)``, after the save's pipeline, in the
/// same transaction.
struct SyncApplier {
    let session: SaveSession
    let configuration: SyncConfiguration
    /// Server versions to record after the save, in order (`nil`: the server deleted it).
    private var serverVersions: [(key: RecordKey, version: Int64?)] = []
    /// Server link lists to set once every record of the batch is staged (targets may come later).
    var linkPasses: [(key: RecordKey, links: [String: [RecordID]])] = []
    /// Pending mutations a resolution made obsolete.
    private(set) var superseded: Set<MutationID> = []
    /// Records to send whole after the save (the client's version won), with the server's lists.
    private var wholePuts: [(key: RecordKey, serverLinks: [String: [RecordID]])] = []
    private(set) var conflicts = 0
    /// How many records ``evict(_:)`` removed.
    private(set) var evicted = 0
    /// Records this save brought that the client did not have (a subscription following their
    /// relationships owes their related records).
    private(set) var arrived: [RecordKey] = []
    /// The properties the client's pending mutations change, by record (set by the caller before
    /// ``finishLinks()``): a list the server sends does not undo a member's unpushed move.
    var pendingProperties: [RecordKey: Set<String>] = [:]
    /// Whether staging notes the owners of ordered lists a record joins (set for a push's answers).
    var notesRejoinedOwners = false
    /// Owners of ordered lists (`Trip.stops`, by `Stop.trip`) that a record staged from a push's
    /// answer joined — a rejected move undone, a rejected delete's record restored: it is appended
    /// here, and only the owner's state says where the server has it, so the engine reads those
    /// owners again (``SyncEngine/refreshOwners()``).
    private(set) var rejoinedOwners: Set<RecordKey> = []
    /// Records this save brought back that the client had deleted and not pushed yet (the server
    /// answered the delete with the record, or a pulled record won over it), of an entity that
    /// other records list many-to-many (`Tag.trips` lists `Trip`s): a list that arrived while the
    /// record was absent here came without it, so the engine reads the record again with the
    /// records whose lists name it (``SyncEngine/refreshOwners()``).
    private(set) var restored: Set<RecordKey> = []
    /// Owners of ordered lists kept by their members' references (`Trip.stops`, by `Stop.trip`)
    /// that a record arriving in this save joined while the owner's own list did not come with it
    /// (a subscription's followed records come pages after the records they follow): the member
    /// was appended, and only the owner's list says where the server has it, so the engine reads
    /// those owners again (``SyncEngine/refreshOwners()``).
    var misplacedOwners: Set<RecordKey> = []

    /// Notes what `pending` mutations change, for ``finishLinks()``.
    mutating func notePending(_ pending: [RecordKey: [SyncMutation]]) {
        for (key, mutations) in pending {
            var names: Set<String> = []
            for mutation in mutations where mutation.kind == .put { names.formUnion(mutation.values.keys) }
            if !names.isEmpty { pendingProperties[key] = names }
        }
    }

    init(session: SaveSession, configuration: SyncConfiguration) {
        self.session = session
        self.configuration = configuration
        session.mirrorsRemoteState = true
        // The server's tombstones carry what its delete rules removed, nullified or kept: local
        // rules act only on local-only records, which the server cannot know of.
        let localOnly = configuration.localOnly
        session.mirroredRulesReach = { localOnly.contains($0) }
    }

    var workingSet: WorkingSet { session.workingSet }

    /// Reads the committed state of every record `changes` name, one batched lookup per entity,
    /// so staging them reads nothing one at a time. Call before this save stages anything.
    func prefetch(_ changes: [RemoteChange]) throws {
        var ids: [String: [RecordID]] = [:]
        for change in changes { ids[change.entity, default: []].append(change.recordID) }
        for (entity, list) in ids { try workingSet.prefetch(entity, ids: list) }
    }

    /// A record's state as this save stands: staged, else committed (read ahead by `prefetch`).
    func current(_ key: RecordKey) throws -> Record? {
        try workingSet.record(key.entity, id: key.id)
    }

    /// The server's values as a record of the entity: in the entity's own layout when they name
    /// exactly its stored properties (as a server's record does), sparing a re-layout at save.
    private static func record(_ key: RecordKey, _ values: [String: Value], _ entity: EntityDescription) -> Record {
        let layout = entity.layout
        if values.count == layout.count {
            var slots: [Value] = []
            slots.reserveCapacity(layout.count)
            for name in layout.names {
                guard let value = values[name] else { break }
                slots.append(value)
            }
            if slots.count == layout.count {
                return Record(entity: key.entity, id: key.id, layout: layout, slots: slots)
            }
        }
        return Record(entity: key.entity, id: key.id, values: values.filter { entity.isStoredProperty($0.key) })
    }

    /// Makes the local record what the server holds (deleting it, with local delete rules, for a tombstone).
    mutating func applyServerState(_ change: RemoteChange) throws {
        try stage(change.key, change.values, links: change.links)
        serverVersions.append((change.key, change.isTombstone ? nil : change.serverVersion))
    }

    private mutating func stage(_ key: RecordKey, _ values: [String: Value]?, links: [String: [RecordID]]) throws {
        guard let entity = workingSet.schema.entity(key.entity), !configuration.localOnly.contains(key.entity)
        else { return }
        let existing = try current(key)
        guard let values else {
            if existing != nil { try session.delete(key) }
            return
        }
        let record = Self.record(key, values, entity)
        if notesRejoinedOwners { noteRejoined(record, was: existing, entity) }
        if let existing {
            // Most pulled records are this client's own writes coming back: nothing to stage.
            if existing.differs(from: record) { try session.update(record) }
        } else {
            try session.insert(record)
            arrived.append(key)
            if notesRejoinedOwners { noteRestored(key, entity) }
        }
        if !links.isEmpty { linkPasses.append((key, links)) }
    }

    /// The records this save brought that the client did not have, of an entity that other records
    /// list many-to-many (`Tag.trips` lists `Trip`s): for a subscribed client, a listing record held
    /// already (brought by another subscription) has the list without them, and nothing it sends
    /// later says otherwise (it did not change), so the engine reads them again with the records
    /// listing them (``SyncEngine/refreshOwners()``).
    var arrivedListed: Set<RecordKey> {
        let schema = workingSet.schema
        return Set(
            arrived.filter { key in
                schema.entity(key.entity)?.isListedManyToMany ?? false
            })
    }

    /// Notes `key` as arrived when the client holds it only as a write of its own the server has
    /// not confirmed (no server version: inserted here, its push not answered yet), of an entity
    /// others list many-to-many: a list that came while the client did not hold the server's
    /// record left it out, and the server's record meeting the client's is as new to those lists
    /// as one the client did not have (a tag listing a trip the client then inserted itself).
    mutating func noteUnconfirmed(_ key: RecordKey, in reader: any StorageReadTransaction) throws {
        guard workingSet.schema.entity(key.entity)?.isListedManyToMany ?? false,
            try current(key) != nil, try Outbox.serverVersion(key, in: reader) == nil
        else { return }
        arrived.append(key)
    }

    private mutating func noteRestored(_ key: RecordKey, _ entity: EntityDescription) {
        if entity.isListedManyToMany { restored.insert(key) }
    }

    private mutating func noteRejoined(_ record: Record, was existing: Record?, _ entity: EntityDescription) {
        for relationship in entity.relationships where relationship.isToOne {
            guard let inverse = workingSet.schema.inverse(of: relationship), inverse.storage == .orderedLinks,
                let owner = RecordID(record[relationship.name]),
                existing.flatMap({ RecordID($0[relationship.name]) }) != owner
            else { continue }
            rejoinedOwners.insert(RecordKey(entity: relationship.destination, id: owner))
        }
    }

    /// Removes a record no subscription covers, without its delete rules (the server keeps it
    /// and what it relates to), and forgets its server version.
    mutating func evict(_ key: RecordKey) throws {
        guard !configuration.localOnly.contains(key.entity), try current(key) != nil else { return }
        try session.evict(key)
        evicted += 1
        serverVersions.append((key, nil))
    }

    /// A pulled record with pending local mutations: the entity's policy decides.
    mutating func resolve(_ change: RemoteChange, pending: [SyncMutation], policy: SyncClientConflictPolicy) throws {
        conflicts += 1
        let key = change.key
        let local = try workingSet.record(key.entity, id: key.id)
        let server = change.values.map {
            Record(entity: key.entity, id: key.id, version: change.serverVersion, values: $0)
        }
        var pendingProperties: Set<String> = []
        for mutation in pending where mutation.kind == .put {
            pendingProperties.formUnion(mutation.values.keys)
            pendingProperties.formUnion(mutation.links.keys)
        }
        let localTimestamp = pending.map(\.timestamp).max()
        let ids = Set(pending.map(\.id))
        let decision: SyncResolution
        switch policy {
        case .serverWins: decision = .serverWins
        case .clientWins: decision = .clientWins
        case .propertyMerge: decision = .propertyMerge
        case .lastWriterWins:
            decision = (localTimestamp.map { $0 > change.timestamp } ?? false) ? .clientWins : .serverWins
        case .custom(let decide):
            decision = decide(
                SyncConflict(
                    entity: key.entity, id: key.id, local: local, server: server,
                    pendingProperties: pendingProperties.sorted(),
                    localTimestamp: localTimestamp, serverTimestamp: change.timestamp))
        }
        serverVersions.append((key, change.isTombstone ? nil : change.serverVersion))
        switch decision {
        case .serverWins:
            self.pendingProperties[key] = nil
            try stage(key, change.values, links: change.links)
            superseded.formUnion(ids)
            if local == nil, change.values != nil, let entity = workingSet.schema.entity(key.entity) {
                noteRestored(key, entity)
            }
        case .clientWins:
            // A local delete stays pending as it is; a local record is sent whole.
            guard local != nil else { return }
            superseded.formUnion(ids)
            wholePuts.append((key, change.links))
        case .propertyMerge:
            guard let server, let local else {
                if server == nil {
                    try stage(key, nil, links: [:])
                    superseded.formUnion(ids)
                }
                return
            }
            let (merged, links) = merge(key, server.values, change.links, local: local, pending: pending)
            try stage(key, merged, links: links)
        case .merged(let record):
            self.pendingProperties[key] = nil
            try stage(key, record.values, links: change.links)
            superseded.formUnion(ids)
            if local == nil, let entity = workingSet.schema.entity(key.entity) { noteRestored(key, entity) }
            wholePuts.append((key, change.links))
        }
    }

    /// The server's values and link lists with what `pending` changes taken from `local`. On a list
    /// whose members name their owner through a to-one (`Trip.stops`, by `Stop.trip`), a pending
    /// membership change counts only while the member's own move is pending too: a move the
    /// server's state overrode (a policy superseded it) leaves its mirror on the owner behind,
    /// which must not pull the member back (``members(_:local:_:)`` keeps the moves still pending).
    private func merge(
        _ key: RecordKey, _ values: [String: Value], _ links: [String: [RecordID]], local: Record,
        pending: [SyncMutation]
    ) -> ([String: Value], [String: [RecordID]]) {
        var merged = values
        var links = links
        let entity = workingSet.schema.entity(key.entity)
        for mutation in pending where mutation.kind == .put {
            for name in mutation.values.keys where local.values[name] != nil { merged[name] = local[name] }
            for (name, delta) in mutation.links {
                var (added, removed) = (delta.added, delta.removed)
                if let relationship = entity?.relationship(name), let inverse = followedByReference(relationship) {
                    let moving = { (id: RecordID) in
                        self.pendingProperties[RecordKey(entity: relationship.destination, id: id)]?.contains(inverse)
                            ?? false
                    }
                    added = added.filter(moving)
                    removed = removed.filter(moving)
                }
                links[name] = MembershipDelta(added: added, removed: removed).applied(to: links[name] ?? [])
            }
        }
        return (merged, links)
    }

    /// The to-one its members name the owner by, for a list kept by its members' references.
    func followedByReference(_ relationship: RelationshipDescription) -> String? {
        guard let inverseName = relationship.inverse,
            let inverse = workingSet.schema.entity(relationship.destination)?.relationship(inverseName),
            inverse.isToOne
        else { return nil }
        return inverseName
    }

    /// A record a push was answered `duplicate` for (applied by an earlier push whose answer was
    /// lost): the server's state now, which another writer may have changed after it and past the
    /// client's cursor, with what the client's still-pending mutations of it change kept (they
    /// follow). Absent on the server, it is deleted with its local delete rules, as a pulled
    /// tombstone is (its children that the server removed with it have not arrived yet, and a
    /// required reference to it cannot be left dangling).
    mutating func converge(on change: RemoteChange, keeping pending: [SyncMutation]) throws {
        let key = change.key
        guard !pending.isEmpty else { return try applyServerState(change) }
        guard let values = change.values, let local = try workingSet.record(key.entity, id: key.id) else { return }
        serverVersions.append((key, change.serverVersion))
        let (merged, links) = merge(key, values, change.links, local: local, pending: pending)
        try stage(key, merged, links: links)
    }

    /// After the save's pipeline, in its transaction: records the server versions, drops superseded
    /// mutations and queues whole-record puts for the records the client kept, so the server
    /// converges on them.
    func finish(in writer: any StorageWriteTransaction) throws {
        for (key, version) in serverVersions { try Outbox.setServerVersion(key, version, in: writer) }
        try Outbox.remove(superseded, in: writer)
        guard !wholePuts.isEmpty else { return }
        let timestamp = HybridTimestamp.next(
            after: try Outbox.hybridClock(in: writer), now: configuration.clock(), node: configuration.clientID)
        var puts: [(RecordKey, Record, [String: LinkDelta])] = []
        for (key, serverLinks) in wholePuts {
            guard let record = try writer.record(key.entity, id: key.id), let entity = writer.schema.entity(key.entity)
            else { continue }
            var links: [String: LinkDelta] = [:]
            for relationship in entity.relationships where relationship.keepsLinkList {
                // Sent whole: every local member, and removal of what only the server has.
                let list = try writer.links(key.entity, relationship: relationship.name, from: key.id)
                let removed = MembershipDelta(from: serverLinks[relationship.name] ?? [], to: list).removed
                links[relationship.name] = LinkDelta(added: list, removed: removed, order: list)
            }
            var values: [String: Value] = [:]
            for name in entity.storedPropertyNames { values[name] = record[name] }
            puts.append((key, Record(entity: key.entity, id: key.id, values: values), links))
        }
        let base = try puts.map { try Outbox.serverVersion($0.0, in: writer) }
        _ = try Outbox.appendWire(
            { first in
                puts.enumerated().map { index, put in
                    SyncMutation(
                        id: MutationID(clientID: configuration.clientID, sequence: first + UInt64(index)), kind: .put,
                        entity: put.0.entity,
                        recordID: put.0.id, isInsert: true, values: put.1.values, links: put.2,
                        baseServerVersion: base[index], timestamp: timestamp)
                }
            }, in: writer)
    }
}
