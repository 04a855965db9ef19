import Foundation
import Strata
import StrataInMemory

/// One measured operation, done by a Strata backend and by its raw peer on the same data. Each side
/// is a closure that prepares (untimed) and returns the closure to time, which returns a count both
/// sides must agree on.
public struct Workload: Sendable {
    public var name: String
    public var ours: @Sendable () async throws -> @Sendable () async throws -> Int
    public var peer: @Sendable () async throws -> @Sendable () async throws -> Int
}

/// A backend and its raw peer, with the workloads that compare them.
public struct WorkloadGroup: Sendable {
    public var backend: String
    public var peer: String
    public var workloads: [Workload]

    public static let all =
        [
            WorkloadGroup(backend: "in-memory", peer: "Dictionary", workloads: InMemoryWorkloads.all),
            WorkloadGroup(backend: "SQLite", peer: "raw GRDB", workloads: SQLiteWorkloads.all),
            WorkloadGroup(backend: "LMDB", peer: "raw mdb_*", workloads: LMDBWorkloads.all),
            WorkloadGroup(backend: "JSON file", peer: "peer", workloads: JSONFileWorkloads.all),
        ] + ContextWorkloads.groups + SyncWorkloads.groups + ChecksumWorkloads.groups + ObservationWorkloads.groups
}

public enum InMemoryWorkloads {
    public static let recordCount = 100_000
    public static let childCount = 10_000

    public static func makeItems() -> [BenchItem] { (0..<recordCount).map(BenchItem.make) }

    @Sendable static func makeStore() async throws -> Store {
        Store(backend: InMemoryBackend(schema: try BenchSchema.make()))
    }

    static func filledDictionary(_ items: [BenchItem]) -> [UUID: BenchItem] {
        var dictionary: [UUID: BenchItem] = [:]
        for item in items { dictionary[item.id] = item }
        return dictionary
    }

    /// Random IDs, the same sequence for both sides.
    public static func probes(_ items: [BenchItem]) -> [UUID] {
        var generator = SplitMix(seed: 42)
        return (0..<recordCount).map { _ in items[Int(generator.next() % UInt64(items.count))].id }
    }

    /// The peer of both point-fetch workloads: dictionary lookups of the same probes.
    @Sendable static func pointFetchPeer() async throws -> @Sendable () async throws -> Int {
        let items = makeItems()
        let dictionary = filledDictionary(items)
        let ids = probes(items)
        return {
            var found = 0
            for id in ids where dictionary[id] != nil { found += 1 }
            return found
        }
    }

    public static let all: [Workload] = [
        Workload(
            name: "insert 100k (one save)", ours: StrataSide.insert(makeStore),
            peer: {
                let items = makeItems()
                return { filledDictionary(items).count }
            }),
        Workload(
            name: "fetch all 100k as models", ours: StrataSide.fetchAll(makeStore),
            peer: {
                let dictionary = filledDictionary(makeItems())
                return { Array(dictionary.values).count }
            }),
        Workload(
            name: "100k point fetches, one read each", ours: StrataSide.pointFetchesEach(makeStore),
            peer: pointFetchPeer),
        Workload(name: "100k point fetches, one read", ours: StrataSide.pointFetches(makeStore), peer: pointFetchPeer),
        Workload(
            name: "indexed query + sort + limit 100", ours: StrataSide.indexedQuery(makeStore),
            peer: {
                let dictionary = filledDictionary(makeItems())
                return {
                    dictionary.values.filter { $0.category == 7 }.sorted { $0.score > $1.score }.prefix(100).count
                }
            }),
        Workload(
            name: "cascade delete: 1 parent, 10k children", ours: StrataSide.cascade(makeStore),
            peer: {
                // The same graph as dictionaries with a parent → children index, removed together.
                let parent = BenchParent(id: UUID(), name: "parent")
                var children: [UUID: BenchChild] = [:]
                var byParent: [UUID: [UUID]] = [:]
                for index in 0..<childCount {
                    let child = BenchChild(id: UUID(), name: "child \(index)", parent: parent.id)
                    children[child.id] = child
                    byParent[parent.id, default: []].append(child.id)
                }
                let parents = [parent.id: parent]
                let allChildren = children
                let index = byParent
                return {
                    var remainingParents = parents
                    var remainingChildren = allChildren
                    remainingParents[parent.id] = nil
                    for id in index[parent.id] ?? [] { remainingChildren[id] = nil }
                    return remainingChildren.count + remainingParents.count
                }
            }),
    ]
}

/// A small deterministic generator so both sides probe the same IDs.
public struct SplitMix {
    var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
