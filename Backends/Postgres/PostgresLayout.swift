import Foundation
import PostgresNIO
import StrataSQL
import StrataStorage

/// The tables of a Strata store in one PostgreSQL schema: the shared `SQLLayoutPlan` rendered in
/// PostgreSQL's names and types.
///
/// - One table per entity: `id` (primary key, typed by the ID kind), `strata_version`, the plan's
///   columns.
/// - One table per owned link list (`"Entity.relationship"`: owner, target, position), indexed on
///   (owner, position) and on (target, owner).
/// - The plan's indexes and unique-constraint indexes, one set, each named by a hash of its columns.
/// - `strata_meta` (key, value): format version, schema description, counters, history.
///
/// Names longer than PostgreSQL keeps (63 bytes) are shortened with a hash, never
/// truncated into each other.
struct PostgresLayout: Sendable {
    struct Table: Sendable {
        let entity: EntityDescription
        /// The schema-qualified, quoted name.
        let name: String
        let columns: [(name: String, kind: ColumnKind)]
        let columnIndex: [String: Int]
        let selectList: String
        /// The entity's record layout: the columns' order, so a row's values are its slots.
        var layout: RecordLayout { entity.layout }

        typealias ColumnKind = SQLLayoutPlan.ColumnKind
    }

    static let formatVersion = "1"
    static let metaTableName = "strata_meta"
    static let setAsidePrefix = SQLSchemaChangePlan.setAsidePrefix

    let schema: Schema
    /// What the schema needs, whatever the dialect.
    let plan: SQLLayoutPlan
    /// The PostgreSQL schema (namespace) the store lives in, unquoted.
    let namespace: String
    let tables: [String: Table]
    let setAside: Set<String>

    init(schema: Schema, namespace: String, setAside: Set<String> = []) {
        self.schema = schema
        self.namespace = namespace
        self.setAside = setAside
        let plan = SQLLayoutPlan(schema: schema)
        self.plan = plan
        var tables: [String: Table] = [:]
        for entity in schema.entities {
            let columns = plan.tables[entity.name]?.columns ?? []
            let names = ["id", "strata_version"] + columns.map(\.0)
            tables[entity.name] = Table(
                entity: entity,
                name: Self.qualified(
                    namespace, setAside.contains(entity.name) ? Self.setAsidePrefix + entity.name : entity.name),
                columns: columns,
                columnIndex: Dictionary(uniqueKeysWithValues: columns.enumerated().map { ($1.0, $0) }),
                selectList: names.map { "t0." + quoted(Self.shortened($0)) }.joined(separator: ", "))
        }
        self.tables = tables
    }

    var metaTable: String { Self.qualified(namespace, Self.metaTableName) }

    /// The function a write takes the store's lock with (see `PostgresBackend.locked`).
    var writeLockFunction: String { Self.qualified(namespace, "strata_write_lock") }

    /// Creates (or replaces) ``writeLockFunction``: takes the advisory lock, then reads the
    /// metadata entries asked for in a snapshot taken after it. Volatile PL/pgSQL runs each
    /// statement in its own snapshot at READ COMMITTED, so the values are current.
    var writeLockFunctionStatement: String {
        """
        CREATE OR REPLACE FUNCTION \(writeLockFunction)(lock_key bigint, wanted text[]) \
        RETURNS TABLE(key text, value bytea)
        LANGUAGE plpgsql VOLATILE AS $strata_lock$
        BEGIN
          PERFORM pg_advisory_lock(lock_key);
          RETURN QUERY SELECT m.key::text, m.value FROM \(metaTable) AS m WHERE m.key = ANY(wanted);
        END
        $strata_lock$
        """
    }

    func table(_ entity: String) throws -> Table {
        guard let table = tables[entity] else {
            throw StrataError(.unknownEntity, entity: entity, "entity \(entity) is not in the schema")
        }
        return table
    }

    /// `"namespace"."name"`, the name shortened to what PostgreSQL keeps.
    static func qualified(_ namespace: String, _ name: String) -> String {
        quoted(namespace) + "." + quoted(shortened(name))
    }

    /// A column's quoted name.
    static func column(_ name: String) -> String { quoted(shortened(name)) }

    /// `name` if PostgreSQL keeps it whole (63 bytes), else a prefix and a hash of the whole.
    static func shortened(_ name: String) -> String {
        guard name.utf8.count > 63 else { return name }
        var prefix = ""
        for character in name where prefix.utf8.count + character.utf8.count <= 44 { prefix.append(character) }
        return prefix + "_" + hash(name)
    }

    /// FNV-1a, 64 bits, in hex: stable across processes and releases.
    static func hash(_ text: String) -> String {
        String(fnv(text), radix: 16)
    }

    static func fnv(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return hash
    }

    static func arrayCast(_ sqlType: String) -> String {
        sqlType.replacingOccurrences(of: " COLLATE \"C\"", with: "") + "[]"
    }

    /// The link table of `entity`'s `relationship` (set aside or not).
    func linkTable(_ entity: String, _ relationship: String) -> String {
        Self.qualified(namespace, (setAside.contains(entity) ? Self.setAsidePrefix : "") + "\(entity).\(relationship)")
    }

    var linkRelationships: [(entity: EntityDescription, relationship: RelationshipDescription)] {
        plan.linkLists.map { ($0.owner, $0.relationship) }
    }

    /// The secondary indexes of an entity's table: a stable name (the index's own description
    /// hashed, so a changed index gets a new name) and its DDL.
    func indexStatements(_ entity: EntityDescription) -> [(name: String, sql: String)] {
        guard let table = tables[entity.name], let planned = plan.tables[entity.name] else { return [] }
        let indexed = planned.indexes.union(planned.uniqueConstraints)
        return indexed.sorted(by: { $0.joined(separator: ",") < $1.joined(separator: ",") }).map { columns in
            let list = SQLLayoutPlan.keyed(columns).map(Self.column).joined(separator: ", ")
            let name = "strata_i_" + Self.hash("\(entity.name)(\(list))")
            return (name, "CREATE INDEX \(quoted(name)) ON \(table.name) (\(list))")
        }
            + planned.elementIndexes.map { attribute in
                // An indexed array or set: a GIN index over its elements, which answers `@>` (contains).
                let column = Self.column(attribute)
                let name = "strata_i_" + Self.hash("\(entity.name)(gin \(column))")
                return (name, "CREATE INDEX \(quoted(name)) ON \(table.name) USING GIN (\(column) jsonb_path_ops)")
            }
    }

    /// The DDL for an empty store.
    func creationStatements() -> [String] {
        [
            "CREATE TABLE \(metaTable) (key text COLLATE \"C\" PRIMARY KEY, value bytea NOT NULL)",
            writeLockFunctionStatement,
        ]
            + schema.entities.flatMap { creationStatements(for: $0.name) }
    }

    /// The DDL for one entity's empty table, its indexes and the link tables it owns.
    func creationStatements(for name: String) -> [String] {
        var statements: [String] = []
        guard let entity = schema.entity(name), let table = tables[name] else { return [] }
        let columns =
            ["\"id\" \(PostgresValues.columnType(entity.idKind)) PRIMARY KEY", "\"strata_version\" bigint NOT NULL"]
            + table.columns.map { "\(Self.column($0.name)) \($0.kind.sqlType)" }
        statements.append("CREATE TABLE \(table.name) (\(columns.joined(separator: ", ")))")
        statements += indexStatements(entity).map(\.sql)
        for list in plan.linkLists where list.owner.name == name {
            let relationship = list.relationship
            let ownerType = PostgresValues.columnType(entity.idKind)
            let targetType = PostgresValues.columnType(list.targetKind)
            let link = linkTable(name, relationship.name)
            // No unique key on (owner, position): a flush replaces a list by deleting and
            // inserting in one statement, whose parts do not see each other.
            statements.append(
                "CREATE TABLE \(link) (owner \(ownerType) NOT NULL, target \(targetType) NOT NULL, position bigint "
                    + "NOT NULL)"
            )
            statements.append(
                "CREATE INDEX \(quoted("strata_l_" + Self.hash("\(name).\(relationship.name).owner"))) ON \(link) "
                    + "(owner, position)"
            )
            statements.append(
                "CREATE INDEX \(quoted("strata_l_" + Self.hash("\(name).\(relationship.name).target"))) ON \(link) "
                    + "(target, owner)"
            )
        }
        return statements
    }
}

extension SQLLayoutPlan.ColumnKind {
    var sqlType: String {
        switch self {
        case .attribute(let type), .collection(let type, _): PostgresValues.columnType(type)
        case .reference(let kind): PostgresValues.columnType(kind)
        }
    }

    var arrayCast: String {
        switch self {
        case .attribute(let type), .collection(let type, _): PostgresLayout.arrayCast(PostgresValues.columnType(type))
        case .reference(let kind): PostgresLayout.arrayCast(PostgresValues.columnType(kind))
        }
    }

    var wireType: PostgresDataType {
        switch self {
        case .attribute(let type), .collection(let type, _): PostgresValues.wireType(type)
        case .reference(let kind): PostgresValues.wireType(kind)
        }
    }
}
