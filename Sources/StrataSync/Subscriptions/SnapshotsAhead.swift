import Foundation
import Strata

/// The history tokens of subscription snapshots a client applied while its cursor was behind them.
/// A snapshot is read at the server's head, so the records it brings may be newer than the
/// changes the client has pulled: a record that later leaves what the client may read (its
/// traveller given to another domain, itself moved out of a subscription's filter) would be
/// judged by the client's cursor, where it was never readable, and stay. The pulls name these
/// tokens (``PullRequest/snapshotsAt``) until the cursor passes them, and the server judges the
/// records it no longer shows the client at each of them as well. Noted in the save that applies
/// the snapshot page, forgotten in the save that moves the cursor past them.
enum SnapshotsAhead {
    static let key = MetadataKeys.syncSnapshotsAhead

    static func read(_ reader: any StorageReadTransaction) throws -> [Int64] {
        guard let bytes = try reader.metadata(key) else { return [] }
        // Unreadable (damaged): none, as before the first snapshot.
        return (try? JSONDecoder().decode([Int64].self, from: Data(bytes))) ?? []
    }

    /// Notes `token` when it is past `cursor`; keeps the most recent ``PullRequest/maximumSnapshotsAt``.
    static func note(_ token: Int64, past cursor: SyncCursor?, in writer: any StorageWriteTransaction) throws {
        guard let cursor, token > cursor.value else { return }
        var tokens = Set(try read(writer))
        guard tokens.insert(token).inserted else { return }
        try write(Array(tokens.sorted().suffix(PullRequest.maximumSnapshotsAt)), in: writer)
    }

    /// Forgets the tokens the cursor reached.
    static func forget(upTo cursor: SyncCursor?, in writer: any StorageWriteTransaction) throws {
        let tokens = try read(writer)
        guard !tokens.isEmpty else { return }
        let remaining = tokens.filter { token in cursor.map { token > $0.value } ?? true }
        guard remaining.count != tokens.count else { return }
        try write(remaining, in: writer)
    }

    /// Forgets every token (a reset from a snapshot starts a new history).
    static func clear(_ writer: any StorageWriteTransaction) throws { try writer.setMetadata(key, nil) }

    private static func write(_ tokens: [Int64], in writer: any StorageWriteTransaction) throws {
        guard !tokens.isEmpty else { return try writer.setMetadata(key, nil) }
        try writer.setMetadata(key, Array(try JSONEncoder().encode(tokens)))
    }
}
