// swift-format-ignore-file
// (README and DocC blocks are held here verbatim: ReadmeSampleTests compares them.)
// StrataSyncServer.docc/Sharing.md's sample, verbatim.
import Foundation
import Strata
import StrataSync
import StrataSyncServer

func sharingServer(_ store: Store) -> SyncServer {
    var access = SyncAccess()
    access.scope(Trip.self) { identity in \Trip.traveller == UUID(uuidString: identity.id) }
    access.scope(Stop.self) { identity in
        .related(\Stop.trip, where: \Trip.traveller == UUID(uuidString: identity.id))
    }
    access.shareable(
        Trip.self, ownedBy: { identity in \Trip.traveller == UUID(uuidString: identity.id) }, including: ["stops"])
    return SyncServer(store: store, access: access)
}

// StrataSync.docc/OfflineFirstSync.md's sharing sample, verbatim.
func share(_ trip: Trip, from me: Person.ID, with friend: Person.ID, in store: Store, _ engine: SyncEngine)
    async throws -> SyncShare
{
    let share = SyncShare(Trip.self, trip.id, owner: me.uuidString, with: friend.uuidString, role: .readWrite)
    try await store.repository(SyncShare.self).insert(share)  // queued like any write; the server checks it
    try await engine.syncNow()
    return share  // delete it to revoke: the friend's client removes the trip at its next pull
}
