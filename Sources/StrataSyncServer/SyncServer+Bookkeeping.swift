import Foundation
import Strata
import StrataSync

/// What the server keeps per client and record in the metadata space: each client's last applied
/// sequence, rejections (so a retried mutation gets the same answer), and last-writer stamps.
extension SyncServer {
    static func lastApplied(_ client: String, in transaction: any StorageReadTransaction) throws -> UInt64 {
        guard let bytes = try transaction.metadata(clientPrefix + client) else { return 0 }
        var reader = BinaryReader(bytes)
        return try reader.unsigned()
    }

    static func rejectionKey(_ id: MutationID) -> String {
        let digits = String(id.sequence)
        return rejectedPrefix + id.clientID + "\u{1F}" + String(repeating: "0", count: max(0, 20 - digits.count))
            + digits
    }

    static func rejection(_ id: MutationID, in transaction: any StorageReadTransaction) throws -> (String, String)? {
        guard let bytes = try transaction.metadata(rejectionKey(id)) else { return nil }
        var reader = BinaryReader(bytes)
        return (try reader.string(), try reader.string())
    }

    static func stampKey(_ key: RecordKey) -> String {
        stampPrefix + Outbox.recordSuffix(key)
    }

    /// How many mutations of `clientID` the server has applied or rejected (its last sequence number).
    public func lastAppliedSequence(of clientID: String) async throws -> UInt64 {
        try await store.backend.read { try Self.lastApplied(clientID, in: $0) }
    }
}
