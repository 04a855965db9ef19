import GRDB
import StrataSQL
import StrataStorage

/// The tables of a Strata SQLite store: the shared `SQLLayoutPlan` rendered in SQLite's names and
/// types.
///
/// - One table per entity, named after it: `id` (primary key, typed by the ID kind),
///   `strata_version`, the plan's columns, then `strata_checksum`.
/// - One table per owned link list (`"Entity.relationship"`: owner, target, position), keyed on
///   (owner, position) and indexed on the target for reverse lookups.
/// - The plan's indexes (`"Entity.indexN"`) and unique-constraint indexes (`"Entity.uniqueN"`).
/// - `strata_meta` (key, value): format version, schema description, counters, history.
struct SQLiteLayout: Sendable {
    struct Table: Sendable {
        let entity: EntityDescription
        let name: String
        /// Stored property columns in order, with the type to decode each.
        let columns: [(name: String, kind: ColumnKind)]
        let columnIndex: [String: Int]
        let selectList: String
        let insertSQL: String
        /// The upsert's `ON CONFLICT` clause, shared by the one-row and many-row forms.
        let upsertClause: String
        let selectByIDSQL: String
        let deleteSQL: String
        /// The entity's record layout: the columns' order, so a row's values are its slots.
        var layout: RecordLayout { entity.layout }
        /// Rows per many-row upsert, and its SQL, built once (the SQL is also the statement
        /// cache's key, so rebuilding it per batch cost a long string's building and hashing).
        var batchRows = 1
        var batchInsertSQL = ""

        /// Which of `count` IDs exist: the duplicate-ID check of every save.
        func existingIDsSQL(count: Int) -> String {
            "SELECT \"id\" FROM \(name) WHERE \"id\" IN (" + Array(repeating: "?", count: count).joined(separator: ", ")
                + ")"
        }

        /// The versions of `count` IDs' records (a cascade's children): no values read.
        func versionsSQL(count: Int) -> String {
            "SELECT \"id\", \"strata_version\" FROM \(name) WHERE \"id\" IN ("
                + Array(repeating: "?", count: count).joined(separator: ", ") + ")"
        }

        /// An upsert of `rows` records in one statement.
        func insertSQL(rows: Int) -> String {
            let names = ["id", "strata_version"] + columns.map(\.name) + [SQLiteLayout.checksumColumn]
            let row = "(" + names.map { _ in "?" }.joined(separator: ", ") + ")"
            return "INSERT INTO \(name) (\(names.map(quoted).joined(separator: ", "))) VALUES "
                + Array(repeating: row, count: rows).joined(separator: ", ") + upsertClause
        }

        typealias ColumnKind = SQLLayoutPlan.ColumnKind
    }

    /// The store format this release writes and reads (`strata.sqlite.format`); any other is
    /// refused with `incompatibleStore` naming it.
    static let formatVersion = "1"
    /// Bound parameters per many-row statement.
    static let batchArguments = 500
    /// The last column of every entity table: a CRC-32 of the row's ID, version and values (see
    /// `Checksum.record(id:version:)`), checked on every read; a row without one is damaged.
    static let checksumColumn = "strata_checksum"
    static let metaTable = "strata_meta"

    let schema: Schema
    /// What the schema needs, whatever the dialect.
    let plan: SQLLayoutPlan
    let tables: [String: Table]
    /// Entities whose tables a migration has set aside under ``setAsidePrefix`` (read there).
    let setAside: Set<String>
    /// What a migration prefixes the names of the tables it sets aside with.
    static let setAsidePrefix = SQLSchemaChangePlan.setAsidePrefix

    init(schema: Schema, setAside: Set<String> = []) {
        self.schema = schema
        self.setAside = setAside
        let plan = SQLLayoutPlan(schema: schema)
        self.plan = plan
        var tables: [String: Table] = [:]
        for entity in schema.entities {
            let columns = plan.tables[entity.name]?.columns ?? []
            let name = quoted(setAside.contains(entity.name) ? Self.setAsidePrefix + entity.name : entity.name)
            let names = ["id", "strata_version"] + columns.map(\.0) + [SQLiteLayout.checksumColumn]
            let selectList = names.map { "t0." + quoted($0) }.joined(separator: ", ")
            let upsertClause =
                " ON CONFLICT(\"id\") DO UPDATE SET "
                + names.dropFirst().map { "\(quoted($0)) = excluded.\(quoted($0))" }.joined(separator: ", ")
            var table = Table(
                entity: entity, name: name, columns: columns,
                columnIndex: Dictionary(uniqueKeysWithValues: columns.enumerated().map { ($1.0, $0) }),
                selectList: selectList,
                // An upsert on the primary key only: `INSERT OR REPLACE` would also resolve a
                // conflict on any other index by deleting the other row.
                insertSQL:
                    "INSERT INTO \(name) (\(names.map(quoted).joined(separator: ", "))) VALUES "
                    + "(\(names.map { _ in "?" }.joined(separator: ", ")))"
                    + upsertClause,
                upsertClause: upsertClause,
                selectByIDSQL: "SELECT \(selectList) FROM \(name) AS t0 WHERE t0.\"id\" = ?",
                deleteSQL: "DELETE FROM \(name) WHERE \"id\" = ?")
            table.batchRows = max(1, Self.batchArguments / (columns.count + 3))
            table.batchInsertSQL = table.insertSQL(rows: table.batchRows)
            tables[entity.name] = table
        }
        self.tables = tables
    }

    func table(_ entity: String) throws -> Table {
        guard let table = tables[entity] else {
            throw StrataError(.unknownEntity, entity: entity, "entity \(entity) is not in the schema")
        }
        return table
    }

    static func linkTable(_ entity: String, _ relationship: String) -> String {
        quoted("\(entity).\(relationship)")
    }

    /// The link table of `entity`'s `relationship` in this layout (set aside or not).
    func linkTable(_ entity: String, _ relationship: String) -> String {
        setAside.contains(entity)
            ? quoted("\(Self.setAsidePrefix)\(entity).\(relationship)") : Self.linkTable(entity, relationship)
    }

    static func elementTable(_ entity: String, _ attribute: String) -> String {
        quoted("\(entity).\(attribute).elements")
    }

    /// The element table of an indexed array or set in this layout (set aside or not).
    func elementTable(_ entity: String, _ attribute: String) -> String? {
        setAside.contains(entity)
            ? quoted("\(Self.setAsidePrefix)\(entity).\(attribute).elements") : Self.elementTable(entity, attribute)
    }

    /// An indexed array's or set's element table (`value`, `owner`: one row per distinct element),
    /// its two indexes, and the triggers that keep it: every insert, update and delete of the
    /// entity's rows, whatever statement makes it, so no write path can leave it behind.
    func elementIndexStatements(_ entity: EntityDescription, _ table: String) -> [String] {
        entity.elementIndexedAttributes.flatMap { attribute -> [String] in
            let elements = Self.elementTable(entity.name, attribute.name)
            let column = quoted(attribute.name)
            let prefix = "\(entity.name).\(attribute.name).elements"
            let fill =
                "INSERT INTO \(elements) (value, owner) "
                + "SELECT DISTINCT value, NEW.\"id\" FROM json_each(NEW.\(column));"
            let empty = "DELETE FROM \(elements) WHERE owner = OLD.\"id\";"
            return [
                "CREATE TABLE \(elements) (value, owner \(SQLiteValues.columnType(entity.idKind)) NOT NULL)",
                "CREATE INDEX \(quoted(prefix + ".value")) ON \(elements) (value, owner)",
                "CREATE INDEX \(quoted(prefix + ".owner")) ON \(elements) (owner)",
                "CREATE TRIGGER \(quoted(prefix + ".insert")) AFTER INSERT ON \(table) BEGIN \(fill) END",
                "CREATE TRIGGER \(quoted(prefix + ".update")) AFTER UPDATE OF \(column) ON \(table) "
                    + "BEGIN \(empty) \(fill) END",
                "CREATE TRIGGER \(quoted(prefix + ".delete")) AFTER DELETE ON \(table) BEGIN \(empty) END",
            ]
        }
    }

    /// Relationships whose link lists this store keeps.
    var linkRelationships: [(entity: EntityDescription, relationship: RelationshipDescription)] {
        plan.linkLists.map { ($0.owner, $0.relationship) }
    }

    /// The secondary indexes of an entity's table, by name. Each ends in `id`, so an equality on
    /// the indexed columns yields its rows in ID order (the contract's tie-break) straight from the
    /// index: `== … LIMIT 100` reads 100 entries however many rows match, and referrer lookups
    /// need no sort.
    func indexStatements(_ entity: EntityDescription) -> [(name: String, sql: String)] {
        guard let table = tables[entity.name], let planned = plan.tables[entity.name] else { return [] }
        func create(_ name: String, _ columns: [String]) -> (name: String, sql: String) {
            let keyed = SQLLayoutPlan.keyed(columns).map(quoted).joined(separator: ", ")
            return (name, "CREATE INDEX \(quoted(name)) ON \(table.name) (\(keyed))")
        }
        var statements = planned.indexes.sorted(by: { $0.joined() < $1.joined() }).enumerated().map { number, columns in
            create("\(entity.name).index\(number)", columns)
        }
        for (number, columns) in planned.uniqueConstraints.enumerated() {
            statements.append(create("\(entity.name).unique\(number)", columns))
        }
        return statements
    }

    /// The DDL for an empty store.
    func creationStatements() -> [String] {
        [Self.metaTableStatement(Self.metaTable)] + schema.entities.flatMap { creationStatements(for: $0.name) }
    }

    /// The metadata table: a rowid table whose key has an index of its own. Its values run to a
    /// file's chunk (256 KiB) and spill into overflow pages; in a `WITHOUT ROWID` table the key's
    /// B-tree holds them whole, so every seek that compared against such a row read its overflow
    /// chain into the page cache (SQLite advises `WITHOUT ROWID` only for small rows).
    static func metaTableStatement(_ name: String) -> String {
        "CREATE TABLE \(name) (key TEXT PRIMARY KEY NOT NULL, value BLOB NOT NULL)"
    }

    /// The DDL for one entity's empty table, its indexes and the link tables it owns.
    func creationStatements(for name: String) -> [String] {
        var statements: [String] = []
        for entity in schema.entities where entity.name == name {
            guard let table = tables[entity.name] else { continue }
            let columns =
                [
                    "\"id\" \(SQLiteValues.columnType(entity.idKind)) PRIMARY KEY NOT NULL",
                    "\"strata_version\" INTEGER NOT NULL",
                ]
                + table.columns.map { column -> String in
                    switch column.kind {
                    case .attribute(let type), .collection(let type, _):
                        return "\(quoted(column.name)) \(SQLiteValues.columnType(type))"
                    case .reference(let kind): return "\(quoted(column.name)) \(SQLiteValues.columnType(kind))"
                    }
                }
                + ["\(quoted(Self.checksumColumn)) INTEGER"]
            statements.append("CREATE TABLE \(table.name) (\(columns.joined(separator: ", ")))")
            statements += indexStatements(entity).map(\.sql)
            statements += elementIndexStatements(entity, table.name)
        }
        for list in plan.linkLists where list.owner.name == name {
            let (entity, relationship) = (list.owner, list.relationship)
            let ownerKind = SQLiteValues.columnType(entity.idKind)
            let targetKind = SQLiteValues.columnType(list.targetKind)
            let table = Self.linkTable(entity.name, relationship.name)
            statements.append(
                "CREATE TABLE \(table) (owner \(ownerKind) NOT NULL, target \(targetKind) NOT NULL, position INTEGER "
                    + "NOT NULL, PRIMARY KEY (owner, position)) WITHOUT ROWID"
            )
            statements.append(
                "CREATE INDEX \(quoted("\(entity.name).\(relationship.name).target")) ON \(table) (target, owner)")
        }
        return statements
    }
}
