import BenchmarkWorkloads
import FluentKit
import FluentPostgresDriver
import FluentSQL
import FluentSQLiteDriver
import Foundation
import Logging
import NIOCore
import NIOPosix

/// FluentKit on its SQLite driver, set up without Vapor the way fluent-kit's own tests do: one
/// event loop, one connection (so the file settings below apply to every query), the same file
/// settings as the other libraries (WAL, synchronous=NORMAL) and an equivalent table and index made
/// by Fluent's schema builder; on PostgreSQL, its own connection pool on the same server. Models
/// are classes, declared `@unchecked Sendable` as Fluent's own documentation declares them.
enum FluentPeer {
    static let eventLoops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    static let threads: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        return pool
    }()

    /// Fluent's database on a new configuration (a new file for SQLite; for PostgreSQL, the tables
    /// dropped and made again); the `Databases` must stay alive while it is used.
    static func open(_ kind: Kind) async throws -> (Databases, any Database) {
        let databases = Databases(threadPool: threads, on: eventLoops)
        switch kind {
        case .sqlite: databases.use(.sqlite(.file(SQLiteWorkloads.temporaryPath())), as: .sqlite)
        case .postgres(let configuration): databases.use(.postgres(configuration: configuration), as: .psql)
        }
        var logger = Logger(label: "fluent")
        logger.logLevel = .error
        guard let database = databases.database(logger: logger, on: eventLoops.any()) else {
            throw PeerError("Fluent gave no database")
        }
        guard let sql = database as? any SQLDatabase else { throw PeerError("Fluent's database is not an SQLDatabase") }
        if case .sqlite = kind {
            try await sql.raw("PRAGMA journal_mode = WAL").run()
            try await sql.raw("PRAGMA synchronous = NORMAL").run()
        }
        for table in [FluentChild.schema, FluentParent.schema, FluentItem.schema] {
            try await sql.raw("DROP TABLE IF EXISTS \(unsafeRaw: table)").run()
        }
        try await database.schema(FluentItem.schema).id().field("name", .string, .required)
            .field("category", .int, .required).field("score", .double, .required)
            .field("createdAt", .datetime, .required).field("isActive", .bool, .required).field("note", .string)
            .field("quantity", .int, .required).field("ratio", .double, .required).field("code", .string, .required)
            .field("region", .string, .required).create()
        try await sql.raw("CREATE INDEX items_category ON items (category)").run()
        try await database.schema(FluentParent.schema).id().field("name", .string, .required).create()
        try await database.schema(FluentChild.schema).id().field("name", .string, .required)
            .field("parent", .uuid, .references(FluentParent.schema, "id")).create()
        try await sql.raw("CREATE INDEX children_parent ON children (parent)").run()
        return (databases, database)
    }

    /// Fluent's batch create, in chunks that stay under SQLite's bound-variable limit.
    static func create<M: Model>(_ models: [M], on database: any Database) async throws {
        try await database.transaction { tx in
            var start = 0
            while start < models.count {
                let end = min(start + 2_000, models.count)
                try await Array(models[start..<end]).create(on: tx)
                start = end
            }
        }
    }

    static func filled(_ kind: Kind, _ items: [BenchItem]) async throws -> (Databases, any Database) {
        let (databases, database) = try await open(kind)
        try await create(items.map(FluentItem.init), on: database)
        return (databases, database)
    }

    /// The driver and where its database lives.
    enum Kind: Sendable {
        case sqlite
        case postgres(SQLPostgresConfiguration)
    }

    static func library(_ kind: Kind) -> PeerLibrary {
        PeerLibrary(
            name: "FluentKit",
            insert: {
                let items = InMemoryWorkloads.makeItems()
                return {
                    let (databases, database) = try await open(kind)
                    try await create(items.map(FluentItem.init), on: database)
                    await databases.shutdownAsync()
                    return items.count
                }
            },
            fetchAll: {
                let (databases, database) = try await filled(kind, InMemoryWorkloads.makeItems())
                return {
                    withExtendedLifetime(databases) {}
                    return try await FluentItem.query(on: database).sort(\.$id).all().count
                }
            },
            pointFetches: {
                let items = InMemoryWorkloads.makeItems()
                let (databases, database) = try await filled(kind, items)
                let ids = InMemoryWorkloads.probes(items)
                return {
                    withExtendedLifetime(databases) {}
                    var found = 0
                    for id in ids where try await FluentItem.find(id, on: database) != nil { found += 1 }
                    return found
                }
            },
            indexedQuery: {
                let (databases, database) = try await filled(kind, InMemoryWorkloads.makeItems())
                return {
                    withExtendedLifetime(databases) {}
                    return try await FluentItem.query(on: database).filter(\.$category == 7).sort(\.$score, .descending)
                        .sort(\.$id).limit(100).all().count
                }
            },
            cascade: {
                let (databases, database) = try await open(kind)
                let parent = FluentParent(id: UUID(), name: "parent")
                try await parent.create(on: database)
                let parentID = try parent.requireID()
                let children = (0..<InMemoryWorkloads.childCount).map {
                    FluentChild(id: UUID(), name: "child \($0)", parent: parentID)
                }
                try await create(children, on: database)
                return {
                    withExtendedLifetime(databases) {}
                    try await database.transaction { tx in
                        try await FluentChild.query(on: tx).filter(\.$parent.$id == parentID).delete()
                        try await FluentParent.query(on: tx).filter(\.$id == parentID).delete()
                    }
                    return try await FluentChild.query(on: database).count()
                }
            })
    }
}

struct PeerError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

final class FluentItem: Model, @unchecked Sendable {
    static let schema = "items"
    @ID(key: .id) var id: UUID?
    @Field(key: "name") var name: String
    @Field(key: "category") var category: Int
    @Field(key: "score") var score: Double
    @Field(key: "createdAt") var createdAt: Date
    @Field(key: "isActive") var isActive: Bool
    @OptionalField(key: "note") var note: String?
    @Field(key: "quantity") var quantity: Int
    @Field(key: "ratio") var ratio: Double
    @Field(key: "code") var code: String
    @Field(key: "region") var region: String

    init() {}

    init(_ item: BenchItem) {
        (id, name, category, score, createdAt, isActive) =
            (item.id, item.name, item.category, item.score, item.createdAt, item.isActive)
        (note, quantity, ratio, code, region) = (item.note, item.quantity, item.ratio, item.code, item.region)
    }
}

final class FluentParent: Model, @unchecked Sendable {
    static let schema = "parents"
    @ID(key: .id) var id: UUID?
    @Field(key: "name") var name: String
    @Children(for: \.$parent) var children: [FluentChild]

    init() {}
    init(id: UUID, name: String) {
        self.id = id
        self.name = name
    }
}

final class FluentChild: Model, @unchecked Sendable {
    static let schema = "children"
    @ID(key: .id) var id: UUID?
    @Field(key: "name") var name: String
    @OptionalParent(key: "parent") var parent: FluentParent?

    init() {}
    init(id: UUID, name: String, parent: UUID) {
        self.id = id
        self.name = name
        self.$parent.id = parent
    }
}
