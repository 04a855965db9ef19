import Foundation
import Strata
import StrataJSONFile

/// The JSON-file backend beside the peers its issue names: `JSONDecoder` decoding the same document
/// alone, `JSONEncoder` encoding the same records alone, and the same one-record save into a small store.
public enum JSONFileWorkloads {
    static func path() -> String { SQLiteWorkloads.temporaryPath() + ".json" }

    /// A 100k-record store, closed (so everything is in the document); returns its path.
    static func filledDocument(_ count: Int) async throws -> String {
        let path = path()
        let backend = try await JSONFileBackend.open(path: path, schema: try BenchSchema.make())
        try await Store(backend: backend).repository(BenchItem.self).insert(
            contentsOf: Array(InMemoryWorkloads.makeItems().prefix(count)))
        try await backend.close()
        return path
    }

    /// The document's shape, decoded generically by `JSONDecoder` (every value kept as a scalar).
    struct Document: Decodable {
        var format: Int
        var schema: String
        var entities: [String: [String: StoredRecord]]
        var links: [String: [String: [Scalar]]]
        var metadata: [String: String]
    }

    struct StoredRecord: Decodable {
        var version: Int64
        var values: [String: Scalar]
    }

    enum Scalar: Decodable {
        case null
        case bool(Bool)
        case number(Double)
        case text(String)
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let flag = try? container.decode(Bool.self) {
                self = .bool(flag)
            } else if let number = try? container.decode(Double.self) {
                self = .number(number)
            } else {
                self = .text(try container.decode(String.self))
            }
        }
    }

    public static let all: [Workload] = [
        Workload(
            name: "JSON open a 100k-record store",
            ours: {
                let path = try await filledDocument(InMemoryWorkloads.recordCount)
                return {
                    let backend = try await JSONFileBackend.open(path: path, schema: try BenchSchema.make())
                    let count = try await Store(backend: backend).repository(BenchItem.self).count()
                    try await backend.close()
                    return count
                }
            },
            peer: {
                let path = try await filledDocument(InMemoryWorkloads.recordCount)
                return {
                    let data = try Data(contentsOf: URL(fileURLWithPath: path))
                    return try JSONDecoder().decode(Document.self, from: data).entities["BenchItem"]?.count ?? 0
                }
            }),
        Workload(
            name: "JSON one-record save: 100k store vs 100 store",
            ours: {
                let path = try await filledDocument(InMemoryWorkloads.recordCount)
                let store = Store(backend: try await JSONFileBackend.open(path: path, schema: try BenchSchema.make()))
                return {
                    try await store.repository(BenchItem.self).insert(BenchItem.make(1_000_001).withNewID())
                    return 1
                }
            },
            peer: {
                let path = try await filledDocument(100)
                let store = Store(backend: try await JSONFileBackend.open(path: path, schema: try BenchSchema.make()))
                return {
                    try await store.repository(BenchItem.self).insert(BenchItem.make(1_000_001).withNewID())
                    return 1
                }
            }),
        Workload(
            name: "JSON insert 100k (one save)",
            ours: {
                let items = InMemoryWorkloads.makeItems()
                return {
                    let backend = try await JSONFileBackend.open(path: path(), schema: try BenchSchema.make())
                    try await Store(backend: backend).repository(BenchItem.self).insert(contentsOf: items)
                    return items.count
                }
            },
            peer: {
                let items = InMemoryWorkloads.makeItems()
                return {
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.sortedKeys]
                    return try encoder.encode(items).isEmpty ? 0 : items.count
                }
            }),
    ]
}

extension BenchItem {
    func withNewID() -> BenchItem {
        var copy = self
        copy.id = UUID()
        return copy
    }
}
