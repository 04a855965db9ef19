import Foundation
import Strata

/// A client's subscriptions as its sync state keeps them, in the store's metadata beside the
/// cursor and the outbox — so they survive restarts and change in the same transactions as the
/// records they bring and evict. No book: the client syncs everything its identity may read.
package struct SubscriptionBook: Codable, Equatable, Sendable {
    /// One subscription and when it ends.
    package struct Entry: Codable, Equatable, Sendable {
        package var subscription: SyncSubscription
        /// When its time to live runs out (`nil`: never).
        package var expires: Date?
        /// Whether its initial sync has finished.
        package var ready: Bool
    }

    /// An initial sync still owed: the records these subscriptions cover, page by page.
    package struct Bootstrap: Codable, Equatable, Sendable {
        package var subscriptions: [SyncSubscription]
        /// Where the next page starts (`nil`: the first page).
        package var position: SnapshotPosition?
        /// Records received so far.
        package var received: Int = 0
        /// Records the server's first page said the initial sync holds.
        package var expected: Int?
        /// Bytes received so far (as the transport counted them).
        package var bytes: Int = 0
    }

    package var entries: [Entry] = []
    package var bootstraps: [Bootstrap] = []

    static let key = MetadataKeys.syncSubscriptions

    /// The subscriptions a pull names.
    var active: [SyncSubscription] { entries.map(\.subscription) }

    package static func read(_ transaction: any StorageReadTransaction) throws -> SubscriptionBook? {
        guard let bytes = try transaction.metadata(key) else { return nil }
        do {
            return try JSONDecoder().decode(SubscriptionBook.self, from: Data(bytes))
        } catch {
            throw StrataError(.corruptStore, "the sync client's subscriptions cannot be read: \(error)")
        }
    }

    func write(_ transaction: any StorageWriteTransaction) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        try transaction.setMetadata(Self.key, Array(try encoder.encode(self)))
    }
}
