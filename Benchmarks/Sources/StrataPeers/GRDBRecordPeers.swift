import BenchmarkWorkloads
import Foundation
import GRDB

/// GRDB's record layer on the raw peer's tables: a record type that derives its row from `Codable`,
/// as GRDB's README starts with, and one that writes its row by hand (`init(row:)` and
/// `encode(to:)`), as GRDB recommends where speed matters.
enum GRDBRecordPeers {
    static let codable = library(
        "GRDB Codable", CodableItem.self, CodableParent.self, CodableChild.self, CodableItem.init,
        { CodableChild(id: $0, name: $1, parent: $2) }, { CodableParent(id: $0, name: $1) })

    static let handWritten = library(
        "GRDB hand-written", HandItem.self, HandParent.self, HandChild.self, HandItem.init,
        { HandChild(id: $0, name: $1, parent: $2) }, { HandParent(id: $0, name: $1) })

    // swiftlint:disable:next function_parameter_count
    static func library<Item: FetchableRecord & PersistableRecord & Sendable, Parent: PersistableRecord, Child>(
        _ name: String, _: Item.Type, _: Parent.Type, _: Child.Type, _ convert: @escaping @Sendable (BenchItem) -> Item,
        _ child: @escaping @Sendable (UUID, String, UUID) -> Child,
        _ parent: @escaping @Sendable (UUID, String) -> Parent
    ) -> PeerLibrary where Child: PersistableRecord & TableRecord {
        PeerLibrary(
            name: name,
            insert: {
                let items = InMemoryWorkloads.makeItems().map(convert)
                return {
                    let pool = try SQLiteWorkloads.rawPool()
                    try await pool.write { db in for item in items { try item.insert(db) } }
                    try pool.close()
                    return items.count
                }
            },
            fetchAll: {
                let pool = try filledPool(InMemoryWorkloads.makeItems(), convert)
                return { try await pool.read { db in try Item.order(Column("id")).fetchAll(db).count } }
            },
            pointFetches: {
                let items = InMemoryWorkloads.makeItems()
                let pool = try filledPool(items, convert)
                let ids = InMemoryWorkloads.probes(items)
                return {
                    try await pool.read { db in
                        var found = 0
                        for id in ids where try Item.fetchOne(db, key: id) != nil { found += 1 }
                        return found
                    }
                }
            },
            indexedQuery: {
                let pool = try filledPool(InMemoryWorkloads.makeItems(), convert)
                return {
                    try await pool.read { db in
                        try Item.filter(Column("category") == 7).order(Column("score").desc, Column("id")).limit(100)
                            .fetchAll(db).count
                    }
                }
            },
            cascade: {
                let pool = try SQLiteWorkloads.rawPool()
                let parentID = UUID()
                try await pool.write { db in
                    try parent(parentID, "parent").insert(db)
                    for index in 0..<InMemoryWorkloads.childCount {
                        try child(UUID(), "child \(index)", parentID).insert(db)
                    }
                }
                return {
                    try await pool.write { db in
                        _ = try Child.filter(Column("parent") == parentID).deleteAll(db)
                        _ = try Parent.deleteOne(db, key: parentID)
                        return try Child.fetchCount(db)
                    }
                }
            })
    }

    static func filledPool<Item: PersistableRecord>(_ items: [BenchItem], _ convert: (BenchItem) -> Item) throws
        -> DatabasePool
    {
        let pool = try SQLiteWorkloads.rawPool()
        let records = items.map(convert)
        try pool.write { db in for record in records { try record.insert(db) } }
        return pool
    }
}

// MARK: Codable records

struct CodableItem: Codable, FetchableRecord, PersistableRecord, Sendable {
    static let databaseTableName = "items"
    var id: UUID
    var name: String
    var category: Int
    var score: Double
    var createdAt: Date
    var isActive: Bool
    var note: String?
    var quantity: Int
    var ratio: Double
    var code: String
    var region: String

    init(_ item: BenchItem) {
        (id, name, category, score, createdAt, isActive) =
            (item.id, item.name, item.category, item.score, item.createdAt, item.isActive)
        (note, quantity, ratio, code, region) = (item.note, item.quantity, item.ratio, item.code, item.region)
    }
}

struct CodableParent: Codable, PersistableRecord {
    static let databaseTableName = "parents"
    var id: UUID
    var name: String
}

struct CodableChild: Codable, PersistableRecord {
    static let databaseTableName = "children"
    var id: UUID
    var name: String
    var parent: UUID?
}

// MARK: Hand-written records

struct HandItem: FetchableRecord, PersistableRecord, Sendable {
    static let databaseTableName = "items"
    enum Columns {
        static let id = Column("id")
        static let name = Column("name")
        static let category = Column("category")
        static let score = Column("score")
        static let createdAt = Column("createdAt")
        static let isActive = Column("isActive")
        static let note = Column("note")
        static let quantity = Column("quantity")
        static let ratio = Column("ratio")
        static let code = Column("code")
        static let region = Column("region")
    }
    var item: BenchItem

    init(_ item: BenchItem) { self.item = item }

    init(row: Row) throws {
        item = BenchItem(
            id: row[Columns.id], name: row[Columns.name], category: row[Columns.category], score: row[Columns.score],
            createdAt: row[Columns.createdAt], isActive: row[Columns.isActive], note: row[Columns.note],
            quantity: row[Columns.quantity], ratio: row[Columns.ratio], code: row[Columns.code],
            region: row[Columns.region])
    }

    func encode(to container: inout PersistenceContainer) throws {
        container[Columns.id] = item.id
        container[Columns.name] = item.name
        container[Columns.category] = item.category
        container[Columns.score] = item.score
        container[Columns.createdAt] = item.createdAt
        container[Columns.isActive] = item.isActive
        container[Columns.note] = item.note
        container[Columns.quantity] = item.quantity
        container[Columns.ratio] = item.ratio
        container[Columns.code] = item.code
        container[Columns.region] = item.region
    }
}

struct HandParent: PersistableRecord {
    static let databaseTableName = "parents"
    var id: UUID
    var name: String
    func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["name"] = name
    }
}

struct HandChild: PersistableRecord {
    static let databaseTableName = "children"
    var id: UUID
    var name: String
    var parent: UUID?
    func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["name"] = name
        container["parent"] = parent
    }
}
