import Foundation
import Strata

/// Strata's side of the workloads every backend runs: the same operations through the public API,
/// where only how a store is opened differs. Each returns the untimed preparation that yields the
/// timed run.
public enum StrataSide {
    public typealias Prepare = @Sendable () async throws -> @Sendable () async throws -> Int
    public typealias MakeStore = @Sendable () async throws -> Store

    static func filled(_ make: MakeStore, _ items: [BenchItem]) async throws -> Store {
        let store = try await make()
        try await store.repository(BenchItem.self).insert(contentsOf: items)
        return store
    }

    /// Opens a new store, inserts 100k records in one save, closes it (flushing what the backend buffers).
    public static func insert(_ make: @escaping MakeStore) -> Prepare {
        {
            let items = InMemoryWorkloads.makeItems()
            return {
                let store = try await make()
                try await store.repository(BenchItem.self).insert(contentsOf: items)
                try await store.close()
                return items.count
            }
        }
    }

    /// A store holding the given items.
    typealias Fill = @Sendable ([BenchItem]) async throws -> Store

    public static func fetchAll(_ make: @escaping MakeStore) -> Prepare {
        fetchAll(filledBy: { try await filled(make, $0) })
    }

    static func fetchAll(filledBy fill: @escaping Fill) -> Prepare {
        {
            let store = try await fill(InMemoryWorkloads.makeItems())
            return { try await store.repository(BenchItem.self).fetch().count }
        }
    }

    /// 100k random point fetches inside one read.
    public static func pointFetches(_ make: @escaping MakeStore) -> Prepare {
        pointFetches(filledBy: { try await filled(make, $0) })
    }

    static func pointFetches(filledBy fill: @escaping Fill) -> Prepare {
        {
            let items = InMemoryWorkloads.makeItems()
            let store = try await fill(items)
            let ids = InMemoryWorkloads.probes(items)
            return {
                try await store.read { reader in
                    var found = 0
                    for id in ids where try reader.fetch(BenchItem.self, id: id) != nil { found += 1 }
                    return found
                }
            }
        }
    }

    /// 100k random point fetches, each its own repository call.
    static func pointFetchesEach(_ make: @escaping MakeStore) -> Prepare {
        {
            let items = InMemoryWorkloads.makeItems()
            let store = try await filled(make, items)
            let ids = InMemoryWorkloads.probes(items)
            return {
                let repository = store.repository(BenchItem.self)
                var found = 0
                for id in ids where try await repository.fetch(id) != nil { found += 1 }
                return found
            }
        }
    }

    public static func indexedQuery(_ make: @escaping MakeStore) -> Prepare {
        {
            let store = try await filled(make, InMemoryWorkloads.makeItems())
            let query = Query<BenchItem>.where(\.category == 7).sorted(by: \.score, .descending).limit(100)
            return { try await store.repository(BenchItem.self).fetch(query).count }
        }
    }

    /// Deletes one parent whose 10k children cascade.
    public static func cascade(_ make: @escaping MakeStore) -> Prepare {
        {
            let store = try await make()
            let parent = BenchParent(id: UUID(), name: "parent")
            try await store.transaction { tx in
                try tx.insert(parent)
                for index in 0..<InMemoryWorkloads.childCount {
                    try tx.insert(BenchChild(id: UUID(), name: "child \(index)", parent: parent.id))
                }
            }
            return {
                try await store.repository(BenchParent.self).delete(parent.id)
                return try await store.repository(BenchChild.self).count()
            }
        }
    }
}
