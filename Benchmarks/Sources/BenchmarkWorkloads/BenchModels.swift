import Foundation
import Strata

/// A record with ten attributes, one of them indexed.
public struct BenchItem: PersistentModel, Equatable {
    public var id: UUID
    public var name: String
    public var category: Int
    public var score: Double
    public var createdAt: Date
    public var isActive: Bool
    public var note: String?
    public var quantity: Int
    public var ratio: Double
    public var code: String
    public var region: String

    public init(
        id: UUID, name: String, category: Int, score: Double, createdAt: Date, isActive: Bool, note: String?,
        quantity: Int, ratio: Double, code: String, region: String
    ) {
        (self.id, self.name, self.category, self.score, self.createdAt, self.isActive) =
            (id, name, category, score, createdAt, isActive)
        (self.note, self.quantity, self.ratio, self.code, self.region) = (note, quantity, ratio, code, region)
    }

    public static let entity = Entity<BenchItem>(
        "BenchItem",
        [
            .attribute(\.name), .attribute(\.category, indexed: true), .attribute(\.score), .attribute(\.createdAt),
            .attribute(\.isActive), .attribute(\.note), .attribute(\.quantity), .attribute(\.ratio), .attribute(\.code),
            .attribute(\.region),
        ])

    /// Deterministic data: item `n` of a run.
    public static func make(_ n: Int) -> BenchItem {
        BenchItem(
            id: UUID(), name: "item \(n)", category: n % 100, score: Double((n * 7_919) % 10_007) / 10.0,
            createdAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(n)), isActive: n % 3 == 0,
            note: n % 5 == 0 ? nil : "note \(n)", quantity: n % 1_000, ratio: Double(n) / 3.0, code: "C\(n)",
            region: ["north", "south", "east", "west"][n % 4])
    }
}

public struct BenchParent: PersistentModel {
    public var id: UUID
    public var name: String
    public init(id: UUID, name: String) {
        self.id = id
        self.name = name
    }
    public static let children = ToMany<BenchParent, BenchChild>("children")
    public static let entity = Entity<BenchParent>(
        "BenchParent",
        [
            .attribute(\.name), .toMany(children, inverse: \BenchChild.parent, deleteRule: .cascade),
        ])
}

public struct BenchChild: PersistentModel {
    public var id: UUID
    public var name: String
    public var parent: BenchParent.ID?
    public init(id: UUID, name: String, parent: BenchParent.ID?) {
        self.id = id
        self.name = name
        self.parent = parent
    }
    public static let entity = Entity<BenchChild>(
        "BenchChild",
        [
            .attribute(\.name), .toOne(\.parent, BenchParent.self, inverse: BenchParent.children),
        ])
}

public enum BenchSchema {
    public static func make() throws -> Schema { try Schema(BenchItem.self, BenchParent.self, BenchChild.self) }
}
