import Foundation
import Strata

/// A set of records kept in the client's metadata under one key: what a save notes there is still
/// there after a crash, until the save that deals with it forgets it.
struct NotedRecords: Sendable {
    let key: String

    func read(_ reader: any StorageReadTransaction) throws -> [RecordKey] {
        guard let bytes = try reader.metadata(key) else { return [] }
        return (try? JSONDecoder().decode([RecordKey].self, from: Data(bytes))) ?? []
    }

    func note(_ records: Set<RecordKey>, in writer: any StorageWriteTransaction) throws {
        guard !records.isEmpty else { return }
        try write(Set(try read(writer)).union(records), in: writer)
    }

    func forget(_ records: Set<RecordKey>, in writer: any StorageWriteTransaction) throws {
        guard !records.isEmpty else { return }
        let noted = Set(try read(writer))
        let remaining = noted.subtracting(records)
        guard remaining.count != noted.count else { return }
        try write(remaining, in: writer)
    }

    private func write(_ records: Set<RecordKey>, in writer: any StorageWriteTransaction) throws {
        guard !records.isEmpty else { return try writer.setMetadata(key, nil) }
        let sorted = records.sorted { ($0.entity, $0.id) < ($1.entity, $1.id) }
        try writer.setMetadata(key, Array(try JSONEncoder().encode(sorted)))
    }
}

/// The records a subscribed client wrote (noted when the server answers their mutations) or read
/// again (``SyncEngine/refreshOwners()``), to evict when no subscription covers them and nothing of
/// theirs waits in the outbox (``SyncEngine/evictUncovered()``).
enum CoverageRecheck {
    static let noted = NotedRecords(key: MetadataKeys.syncCoverageRecheck)

    /// Notes `records` when the client is subscribed (a client syncing everything keeps them all).
    static func note(_ records: Set<RecordKey>, in writer: any StorageWriteTransaction) throws {
        guard !records.isEmpty, try SubscriptionBook.read(writer) != nil else { return }
        try noted.note(records, in: writer)
    }
}
