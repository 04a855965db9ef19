import Foundation
import Strata

/// The records to read again from the server: owners of ordered lists a push's answer put a member
/// back on (a rejected move undone) — the answer carries the member, whose reference names the
/// owner again, but not where on the owner's list the server has it, and the client appends it —
/// and records a local delete of was undone (``SyncApplier/restored``), which others' many-to-many
/// lists that arrived meanwhile left out. Noted in the save that applies the answer, read again
/// from a snapshot of just those records (with the records whose many-to-many lists name them),
/// and forgotten in the save that applies them, so a crash or a lost connection in between reads
/// them on the next sync.
enum OwnerRefresh {
    static let key = MetadataKeys.syncOwnersToRefresh

    static func read(_ reader: any StorageReadTransaction) throws -> [RecordKey] {
        guard let bytes = try reader.metadata(key) else { return [] }
        return (try? JSONDecoder().decode([RecordKey].self, from: Data(bytes))) ?? []
    }

    static func note(_ owners: Set<RecordKey>, in writer: any StorageWriteTransaction) throws {
        guard !owners.isEmpty else { return }
        try write(Set(try read(writer)).union(owners), in: writer)
    }

    static func forget(_ owners: Set<RecordKey>, in writer: any StorageWriteTransaction) throws {
        try write(Set(try read(writer)).subtracting(owners), in: writer)
    }

    private static func write(_ owners: Set<RecordKey>, in writer: any StorageWriteTransaction) throws {
        guard !owners.isEmpty else { return try writer.setMetadata(key, nil) }
        let sorted = owners.sorted { ($0.entity, $0.id) < ($1.entity, $1.id) }
        try writer.setMetadata(key, Array(try JSONEncoder().encode(sorted)))
    }
}

extension SyncEngine {
    /// Reads the records ``OwnerRefresh`` holds from the server (a snapshot of just them and of the
    /// records listing them many-to-many, as far as the caller may read them) and applies them as a
    /// pull would: their lists take the server's order and members. Returns how many records came.
    func refreshOwners() async throws -> Int {
        let owners = try await store.backend.read { try OwnerRefresh.read($0) }
        guard !owners.isEmpty else { return 0 }
        var subscriptions: [SyncSubscription] = []
        for (entity, keys) in Dictionary(grouping: owners, by: \.entity).sorted(by: { $0.key < $1.key }) {
            let literals = keys.compactMap { try? SyncSubscription.literal($0.id.value, parameter: "id") }
            let listedBy = store.schema.entity(entity)?.relationships.filter { $0.storage == .inverseLinks } ?? []
            subscriptions.append(
                SyncSubscription(
                    unchecked: "#refresh.\(entity)", entity: entity,
                    filter: "id in [" + literals.joined(separator: ", ") + "]", including: listedBy.map(\.name)))
        }
        var records: [RemoteChange] = []
        var position: SnapshotPosition?
        repeat {
            let request = SnapshotRequest(
                clientID: configuration.clientID, position: position, limit: options.pullLimit,
                schemaVersion: store.schema.version, subscriptions: subscriptions)
            let page = try await call {
                attempts += 1
                return try await remote.snapshot(request)
            }
            records += page.records
            position = page.next
        } while position != nil
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
            })
        return records.count
    }
}
