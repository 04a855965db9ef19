import Foundation
import Strata

/// The records to read again from the server: owners of ordered lists a push's answer put a member
/// back on (a rejected move undone) — the answer carries the member, whose reference names the
/// owner again, but not where on the owner's list the server has it, and the client appends it —
/// records a local delete of was undone (``SyncApplier/restored``), which others' many-to-many
/// lists that arrived meanwhile left out, and owners whose ordered list a record arriving without
/// the owner's list was appended to (``SyncApplier/misplacedOwners``: a subscription's followed
/// records come pages after their owner). Noted in the save that applies the answer, read again
/// from a snapshot of just those records (with the records whose many-to-many lists name them),
/// and forgotten in the save that applies them, so a crash or a lost connection in between reads
/// them on the next sync.
enum OwnerRefresh {
    static let noted = NotedRecords(key: MetadataKeys.syncOwnersToRefresh)

    static func read(_ reader: any StorageReadTransaction) throws -> [RecordKey] { try noted.read(reader) }

    static func note(_ owners: Set<RecordKey>, in writer: any StorageWriteTransaction) throws {
        try noted.note(owners, in: writer)
    }

    static func forget(_ owners: Set<RecordKey>, in writer: any StorageWriteTransaction) throws {
        try noted.forget(owners, in: writer)
    }
}

extension SyncEngine {
    /// Reads the records ``OwnerRefresh`` holds from the server (a snapshot of just them and of the
    /// records listing them many-to-many, as far as the caller may read them) and applies them as a
    /// pull would: their lists take the server's order and members. Returns how many records came.
    func refreshOwners() async throws -> Int {
        // Only what the client still holds is read again: a noted record evicted or deleted since
        // (its delete pending) is not brought back by the refresh.
        let (owners, held) = try await store.backend.read { reader in
            let owners = try OwnerRefresh.read(reader)
            var held: [RecordKey] = []
            for (entity, keys) in Dictionary(grouping: owners, by: \.entity) {
                let existing = try reader.existingIDs(entity, among: keys.map(\.id))
                held += keys.filter { existing.contains($0.id) }
            }
            return (owners, held)
        }
        guard !owners.isEmpty else { return 0 }
        guard !held.isEmpty else {
            try await store.writeMetadata { try OwnerRefresh.forget(Set(owners), in: $0) }
            return 0
        }
        // At most 50 IDs a subscription (its filter stays under the length the server takes) and
        // 32 subscriptions a request.
        var subscriptions: [SyncSubscription] = []
        for (entity, keys) in Dictionary(grouping: held, by: \.entity).sorted(by: { $0.key < $1.key }) {
            let literals = keys.compactMap { try? SyncSubscription.literal($0.id.value, parameter: "id") }
            let listedBy = store.schema.entity(entity)?.relationships.filter { $0.storage == .inverseLinks } ?? []
            for start in stride(from: 0, to: literals.count, by: 50) {
                subscriptions.append(
                    SyncSubscription(
                        unchecked: "#refresh.\(entity).\(start / 50)", entity: entity,
                        filter: "id in [" + literals[start..<min(literals.count, start + 50)].joined(separator: ", ")
                            + "]",
                        including: listedBy.map(\.name)))
            }
        }
        var records: [RemoteChange] = []
        for first in stride(from: 0, to: subscriptions.count, by: 32) {
            let asked = Array(subscriptions[first..<min(subscriptions.count, first + 32)])
            var position: SnapshotPosition?
            repeat {
                let request = SnapshotRequest(
                    clientID: configuration.clientID, position: position, limit: options.pullLimit,
                    schemaVersion: store.schema.version, subscriptions: asked)
                let page = try await call {
                    attempts += 1
                    return try await remote.snapshot(request)
                }
                records += page.records
                position = page.next
            } while position != nil
        }
        let (configuration, options, received) = (configuration, options, records)
        try await store.commit(
            author: nil, contextName: "sync", participants: [],
            stage: { session, reader -> SyncApplier in
                var applier = SyncApplier(session: session, configuration: configuration)
                try Self.stage(received, in: reader, options: options, into: &applier)
                return applier
            },
            afterCommit: { applier, _, transaction in
                try Outbox.observe(received.map(\.timestamp), in: transaction)
                try applier.finish(in: transaction)
                try OwnerRefresh.forget(Set(owners), in: transaction)
                // The records listing them came whether or not a subscription covers them.
                try CoverageRecheck.note(Set(received.map(\.key)), in: transaction)
            })
        try await evictUncovered()
        return records.count
    }
}
