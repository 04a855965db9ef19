import Foundation
import Strata
import StrataSync
import StrataSyncServer

/// The outbox's cost on local saves (the same saves with sync on and off), and draining a queued
/// outbox to a server through the in-process transport (beside writing the same records on the
/// server directly).
public enum SyncWorkloads {
    static let singleSaves = 1_000
    static let bulkCount = 10_000

    static func syncing(_ store: Store, _ on: Bool) -> Store {
        store.withSync(on ? SyncConfiguration(clientID: "bench") : nil)
    }

    /// `singleSaves` saves of one new record each.
    static func singleRecordSaves(_ makeStore: @escaping @Sendable () async throws -> Store, sync: Bool)
        -> @Sendable () async throws -> @Sendable () async throws -> Int
    {
        {
            let store = syncing(try await makeStore(), sync)
            let items = (0..<singleSaves).map(BenchItem.make)
            return {
                let repository = store.repository(BenchItem.self)
                for item in items { try await repository.insert(item) }
                return items.count
            }
        }
    }

    /// One save of `bulkCount` new records.
    static func bulkSave(_ makeStore: @escaping @Sendable () async throws -> Store, sync: Bool)
        -> @Sendable () async throws -> @Sendable () async throws -> Int
    {
        {
            let store = syncing(try await makeStore(), sync)
            let items = (0..<bulkCount).map(BenchItem.make)
            return {
                try await store.repository(BenchItem.self).insert(contentsOf: items)
                return items.count
            }
        }
    }

    /// 10,000 mutations queued by 100 local saves, pushed in batches of 500 to a server on the same
    /// kind of store.
    static func drain(_ makeStore: @escaping @Sendable () async throws -> Store, encoding: InProcessTransport.Encoding)
        -> @Sendable () async throws -> @Sendable () async throws -> Int
    {
        {
            let client = syncing(try await makeStore(), true)
            let server = SyncServer(store: try await makeStore())
            let items = (0..<bulkCount).map(BenchItem.make)
            for start in stride(from: 0, to: items.count, by: 100) {
                try await client.repository(BenchItem.self).insert(contentsOf: Array(items[start..<start + 100]))
            }
            let engine = try SyncEngine(
                store: client, remote: InProcessTransport(server: server, encoding: encoding),
                options: .init(batchSize: 500))
            return { try await engine.push() }
        }
    }

    /// The peer of draining: the same records written on the server by 20 saves of 500.
    static func directServerWrites(_ makeStore: @escaping @Sendable () async throws -> Store)
        -> @Sendable () async throws -> @Sendable () async throws -> Int
    {
        {
            let server = try await makeStore()
            let items = (0..<bulkCount).map(BenchItem.make)
            return {
                for start in stride(from: 0, to: items.count, by: 500) {
                    try await server.repository(BenchItem.self).insert(contentsOf: Array(items[start..<start + 500]))
                }
                return items.count
            }
        }
    }

    public static let groups: [WorkloadGroup] = [
        WorkloadGroup(
            backend: "sync on (SQLite)", peer: "sync off",
            workloads: [
                Workload(
                    name: "1,000 one-record saves", ours: singleRecordSaves(SQLiteWorkloads.ourStore, sync: true),
                    peer: singleRecordSaves(SQLiteWorkloads.ourStore, sync: false)),
                Workload(
                    name: "one save of 10,000 records", ours: bulkSave(SQLiteWorkloads.ourStore, sync: true),
                    peer: bulkSave(SQLiteWorkloads.ourStore, sync: false)),
            ]),
        WorkloadGroup(
            backend: "sync on (in-memory)", peer: "sync off",
            workloads: [
                Workload(
                    name: "1,000 one-record saves", ours: singleRecordSaves(InMemoryWorkloads.makeStore, sync: true),
                    peer: singleRecordSaves(InMemoryWorkloads.makeStore, sync: false)),
                Workload(
                    name: "one save of 10,000 records", ours: bulkSave(InMemoryWorkloads.makeStore, sync: true),
                    peer: bulkSave(InMemoryWorkloads.makeStore, sync: false)),
            ]),
        WorkloadGroup(
            backend: "drain 10,000 queued mutations (SQLite → SQLite)", peer: "direct",
            workloads: [
                Workload(
                    name: "push in batches of 500, JSON messages",
                    ours: drain(SQLiteWorkloads.ourStore, encoding: .json),
                    peer: directServerWrites(SQLiteWorkloads.ourStore)),
                Workload(
                    name: "push in batches of 500, values passed",
                    ours: drain(SQLiteWorkloads.ourStore, encoding: .none),
                    peer: directServerWrites(SQLiteWorkloads.ourStore)),
            ]),
        WorkloadGroup(
            backend: "drain 10,000 queued mutations (in-memory)", peer: "direct",
            workloads: [
                Workload(
                    name: "push in batches of 500, JSON messages",
                    ours: drain(InMemoryWorkloads.makeStore, encoding: .json),
                    peer: directServerWrites(InMemoryWorkloads.makeStore)),
                Workload(
                    name: "push in batches of 500, values passed",
                    ours: drain(InMemoryWorkloads.makeStore, encoding: .none),
                    peer: directServerWrites(InMemoryWorkloads.makeStore)),
            ]),
    ]
}
