import Foundation
import Strata
import StrataSync
import StrataSyncServer

/// An entity an identity may not read at all (`SyncAccess.Scope.none`) reaches it by no route.
extension TransportChecks {
    static let denied: [ConformanceCheck] = [
        ConformanceCheck(.transport, "anEntityAnIdentityMayNotReadNeverReachesItsPullSnapshotOrLongPoll") { c in
            var access = TransportWorld.travelScopes
            access.scope("Tag") { identity in identity.id == TransportWorld.bob.id ? .none : .all }
            let users = try await TwoUsers.make(
                c, access: access, limits: SyncLimits(maximumWait: .seconds(3600), rate: nil),
                bOptions: .init(pullWait: .seconds(3600)))
            // Pull: Alice's tag was synced to the server, not to Bob.
            try expect(try await users.a.repository(Tag.self).fetch("shared") != nil, "Alice has her tag")
            try expect(try await users.b.repository(Tag.self).fetch("shared") == nil, "Bob's pulls carried no tag")
            // Snapshot: no page of Bob's snapshot holds a tag.
            let entities = Set(try await users.bobsSnapshot().map(\.entity))
            try expect(!entities.contains("Tag") && entities.contains("Person"), "Bob's snapshot: \(entities.sorted())")
            // Long poll: a new tag does not wake Bob's wait; a person of his domain, written by the
            // server, does — and the answer carries the person only.
            let poll = Task { try await users.engineB.pull() }
            try await Task.sleep(for: .milliseconds(150))
            try await users.a.repository(Tag.self).insert(Tag(id: "secret", label: "Secret"))
            try await users.engineA.push()
            try await Task.sleep(for: .milliseconds(150))
            try await users.world.server.store.repository(Person.self).insert(
                Person(name: "Bea", email: "bea@b.example"))
            let pulled = try await poll.value
            try expectEqual(pulled, 1, "the poll was woken by the one change Bob may read")
            let received = await users.remoteB.received
            try expect(!received.contains { $0.entity == "Tag" }, "no tag ever reached Bob: \(received.suffix(4))")
            try expect(try await users.b.repository(Tag.self).fetch().isEmpty, "Bob stores no tag")
        }
    ]
}
