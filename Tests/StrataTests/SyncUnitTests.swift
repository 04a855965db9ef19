import Foundation
import StrataConformance
import StrataInMemory
import Testing

@testable import Strata
@testable import StrataSync

@Suite("Sync building blocks")
struct SyncUnitTests {
    @Test func backoffGrowsExponentiallyWithinItsCapAndJitter() {
        let policy = RetryPolicy(initialDelay: .milliseconds(100), maximumDelay: .seconds(2), jitter: 0.5)
        #expect(policy.delay(afterFailures: 1, random: 0) == .milliseconds(100))
        #expect(policy.delay(afterFailures: 2, random: 0) == .milliseconds(200))
        #expect(policy.delay(afterFailures: 4, random: 0) == .milliseconds(800))
        #expect(policy.delay(afterFailures: 10, random: 0) == .seconds(2), "capped")
        #expect(policy.delay(afterFailures: 60, random: 0) == .seconds(2), "no overflow for long outages")
        #expect(policy.delay(afterFailures: 2, random: 1) == .milliseconds(100), "full jitter halves the delay")
        for _ in 0..<100 {
            let delay = policy.delay(afterFailures: 3)
            #expect(delay >= .milliseconds(200) && delay <= .milliseconds(400))
        }
    }

    @Test func hybridClockNeverGoesBackwards() {
        let early = Date(timeIntervalSince1970: 1_000)
        let first = HybridTimestamp.next(after: nil, now: early, node: "a")
        #expect(first == HybridTimestamp(millis: 1_000_000, node: "a"))
        // The wall clock stepped back: the counter moves on instead.
        let second = HybridTimestamp.next(after: first, now: Date(timeIntervalSince1970: 999), node: "a")
        #expect(second > first)
        #expect(second.millis == first.millis && second.counter == 1)
        let later = HybridTimestamp.next(after: second, now: Date(timeIntervalSince1970: 1_001), node: "a")
        #expect(later == HybridTimestamp(millis: 1_001_000, node: "a"))
        // Ties break on the node.
        #expect(HybridTimestamp(millis: 5, node: "a") < HybridTimestamp(millis: 5, node: "b"))
    }

    @Test func outboxEntriesRoundTrip() throws {
        let mutations = [
            SyncMutation(
                id: MutationID(clientID: "c", sequence: 7), kind: .put, entity: "Trip", recordID: .uuid(UUID()),
                isInsert: true,
                values: ["name": "Lisbon", "budget": .double(12.5), "end": .null],
                links: [
                    "tags": LinkDelta(
                        added: [.string("a")], removed: [.string("b")], order: [.string("a"), .string("c")])
                ],
                baseServerVersion: nil, timestamp: HybridTimestamp(millis: 42, counter: 3, node: "c")),
            SyncMutation(
                id: MutationID(clientID: "c", sequence: 8), kind: .delete, entity: "Tag", recordID: .string("b"),
                baseServerVersion: 4,
                timestamp: HybridTimestamp(millis: 43, node: "c")),
        ].map(\.outbox)
        #expect(try Outbox.decode(Outbox.encode(mutations)) == mutations)
        #expect(mutations.map(SyncMutation.init).map(\.outbox) == mutations, "the wire's types carry every field")
        var bytes = Outbox.encode(mutations)
        bytes[0] = 99
        #expect(throws: StrataError.self) { try Outbox.decode(bytes) }
        #expect(throws: StrataError.self) { try Outbox.decode(Array(Outbox.encode(mutations).dropLast(3))) }
    }

    @Test func messagesCarryTheirWireFormat() throws {
        var request = PushRequest(clientID: "c", mutations: [])
        #expect(request.version == 2, "this build sends format 2")
        request.version = 1
        let json = String(decoding: try SyncWire.encode(request), as: UTF8.self)
        #expect(json.contains("\"version\":1"), "format 1 is the Codable JSON: \(json)")
        #expect(try SyncWire.decodePushRequest(Array(json.utf8), version: 1) == request)
        #expect(try SyncWire.bodyVersion(Array(json.utf8)) == 1)
    }
}

/// Acknowledging from entries a reader saw: unchanged entries go without being decoded again, a
/// changed one is decoded, and a partly acknowledged one keeps exactly its other mutations.
@Suite("outbox acknowledgement")
struct OutboxAcknowledgementTests {
    @Test func removingWithSeenEntriesEqualsRemovingWithout() async throws {
        for useSeen in [false, true] {
            let store = Store(
                backend: InMemoryBackend(schema: try TravelDomain.schema()), sync: SyncConfiguration(clientID: "c"))
            for index in 0..<4 {
                try await store.repository(Tag.self).insert(
                    contentsOf: (0..<5).map { Tag(id: "t\(index)-\($0)", label: "\(index)-\($0)") })
            }
            let (all, seen) = try await store.backend.read { reader in
                var seen: [String: Outbox.SeenEntry] = [:]
                return (try Outbox.wireMutations(in: reader, limit: nil, seen: &seen), seen)
            }
            #expect(all.count == 20 && seen.count == 4, "four saves, four entries")
            // Another reader changes the third entry after `seen` was taken.
            try await store.backend.write { writer in try Outbox.remove([all[10].id], in: writer) }
            // The first entry whole, two of the second, one more of the third.
            let going = Set(all[0..<5].map(\.id) + [all[5].id, all[7].id, all[11].id])
            try await store.backend.write { writer in
                try Outbox.remove(going, known: useSeen ? seen : [:], in: writer)
            }
            let left = try await store.backend.read { try Outbox.wireMutations(in: $0) }.map(\.id)
            let expected = all.map(\.id).filter { !going.contains($0) && $0 != all[10].id }
            #expect(left == expected, "with seen entries: \(useSeen)")
            #expect(try await store.backend.read { try Outbox.pendingCount(in: $0) } == expected.count)
        }
    }
}
