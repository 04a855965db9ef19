import Foundation
import Strata

/// What a client that had never pulled held when its first subscription snapshot moved its cursor
/// to the snapshot's: the changes before that cursor will never reach it, so each record it held
/// is known again only once a snapshot page or a pull brings it. When the initial syncs are done,
/// those still unconfirmed that have nothing in the outbox leave the store (evicted, never deleted
/// on the server): the server deleted them before the snapshot — another client, or a cascade of
/// this client's own delete — or holds them where no subscription of the client reaches. Noted in
/// the save that moves the cursor, so a crash in between leaves them for the next sync.
enum UnconfirmedRecords {
    static let noted = NotedRecords(key: MetadataKeys.syncUnconfirmed)

    /// Notes every record the client holds of the entities it syncs, but those in `arrived`. Reads
    /// the whole local store, once: a client that never pulled holds only what it wrote.
    static func noteHeld(
        except arrived: Set<RecordKey>, configuration: SyncConfiguration, in transaction: any StorageWriteTransaction
    ) throws {
        var held: Set<RecordKey> = []
        for entity in transaction.schema.entities
        where !configuration.localOnly.contains(entity.name) && entity.name != SyncShare.entityName {
            for record in try transaction.fetch(FetchPlan(entity: entity.name)) where !arrived.contains(record.key) {
                held.insert(record.key)
            }
        }
        try noted.note(held, in: transaction)
    }
}

extension SyncEngine {
    /// Evicts the ``UnconfirmedRecords`` that have no mutations left in the outbox and forgets them
    /// all (a record with unsent changes is judged by the server's answer to them instead).
    func evictUnconfirmed() async throws {
        let noted = try await store.backend.read { try UnconfirmedRecords.noted.read($0) }
        guard !noted.isEmpty else { return }
        let configuration = configuration
        try await store.commit(
            author: nil, contextName: "sync", participants: [],
            stage: { session, reader -> SyncApplier? in
                let pending = try Self.pendingMutations(in: reader)
                var applier = SyncApplier(session: session, configuration: configuration)
                for key in noted where pending[key]?.isEmpty ?? true { try applier.evict(key) }
                return applier
            },
            afterCommit: { applier, _, transaction in
                try applier?.finish(in: transaction)
                try UnconfirmedRecords.noted.forget(Set(noted), in: transaction)
            })
    }
}
