import Foundation
import Strata

/// A `ModelContext` save beside the cheapest equivalent: the same updates through one repository
/// transaction (no read versions, no conflict detection), and a save that meets conflicts beside
/// the same save meeting none. Both sides of a workload run on the same kind of store.
public enum ContextWorkloads {
    static let storedCount = 10_000
    static let updatedCount = 1_000
    static let conflictCount = 100

    /// A store holding `storedCount` items.
    static func seeded(_ makeStore: @Sendable () async throws -> Store) async throws -> Store {
        let store = try await makeStore()
        try await store.repository(BenchItem.self).insert(contentsOf: (0..<storedCount).map(BenchItem.make))
        return store
    }

    static func changed(_ item: BenchItem) -> BenchItem {
        var copy = item
        copy.score += 1
        copy.note = "edited"
        return copy
    }

    /// Context side: the records were fetched through the context (untimed); the timed part is
    /// staging each update and the save.
    static func contextSave(_ makeStore: @escaping @Sendable () async throws -> Store)
        -> @Sendable () async throws -> @Sendable () async throws -> Int
    {
        {
            let store = try await seeded(makeStore)
            let context = store.makeContext()
            let models = try await context.fetch(Query<BenchItem>.all.sorted(by: \.name).limit(updatedCount))
            return {
                for model in models { try await context.update(changed(model)) }
                try await context.save()
                return models.count
            }
        }
    }

    /// Repository side: the same updates in one transaction, last-writer-wins.
    static func repositorySave(_ makeStore: @escaping @Sendable () async throws -> Store)
        -> @Sendable () async throws -> @Sendable () async throws -> Int
    {
        {
            let store = try await seeded(makeStore)
            let models = try await store.repository(BenchItem.self).fetch(
                Query<BenchItem>.all.sorted(by: \.name).limit(updatedCount))
            return {
                try await store.transaction { tx in for model in models { try tx.update(changed(model)) } }
                return models.count
            }
        }
    }

    /// A context under `objectTrumpByProperty` saves `conflictCount` updates; when `conflicting`,
    /// another writer changed another property of each of them after the context read them.
    static func conflictSave(_ makeStore: @escaping @Sendable () async throws -> Store, conflicting: Bool)
        -> @Sendable () async throws -> @Sendable () async throws -> Int
    {
        {
            let store = try await seeded(makeStore)
            let context = store.makeContext(mergePolicy: .objectTrumpByProperty)
            let models = try await context.fetch(Query<BenchItem>.all.sorted(by: \.name).limit(conflictCount))
            if conflicting {
                try await store.transaction { tx in
                    for model in models {
                        try tx.update(
                            "BenchItem", id: .uuid(model.id), set: ["quantity": .int(Int64(model.quantity + 1))])
                    }
                }
            }
            for model in models { try await context.update(changed(model)) }
            return {
                let result = try await context.save()
                return conflicting ? result.conflicts.count : models.count
            }
        }
    }

    public static let groups: [WorkloadGroup] = [
        WorkloadGroup(
            backend: "context save (SQLite)", peer: "repository",
            workloads: [
                Workload(
                    name: "save 1,000 updated records", ours: contextSave(SQLiteWorkloads.ourStore),
                    peer: repositorySave(SQLiteWorkloads.ourStore))
            ]),
        WorkloadGroup(
            backend: "context save (in-memory)", peer: "repository",
            workloads: [
                Workload(
                    name: "save 1,000 updated records", ours: contextSave(InMemoryWorkloads.makeStore),
                    peer: repositorySave(InMemoryWorkloads.makeStore))
            ]),
        WorkloadGroup(
            backend: "objectTrumpByProperty save (SQLite)", peer: "no conflict",
            workloads: [
                Workload(
                    name: "save 100 updates, all conflicting",
                    ours: conflictSave(SQLiteWorkloads.ourStore, conflicting: true),
                    peer: conflictSave(SQLiteWorkloads.ourStore, conflicting: false))
            ]),
        WorkloadGroup(
            backend: "objectTrumpByProperty save (in-memory)", peer: "no conflict",
            workloads: [
                Workload(
                    name: "save 100 updates, all conflicting",
                    ours: conflictSave(InMemoryWorkloads.makeStore, conflicting: true),
                    peer: conflictSave(InMemoryWorkloads.makeStore, conflicting: false))
            ]),
    ]
}
