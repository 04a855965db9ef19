import StrataStorage

/// The schema-change plan both SQL stores follow inside a migration's one transaction (their DDL
/// is transactional, so a failure leaves the store as it was). Per stage:
///
/// 1. each entity being rebuilt has the indexes on its table and on the link tables it owns
///    dropped (index names may be global: the new tables take the same ones), and those tables
///    renamed aside under ``setAsidePrefix``;
/// 2. the created entities get their tables, indexes and link tables;
/// 3. each reindexed entity keeps its rows: indexes the target declares differently or not at all
///    are dropped, the missing ones built from the rows, one declared alike by both is kept;
/// 4. the engine copies from the old view (set-aside tables) to the new one;
/// 5. the set-aside tables are dropped.
///
/// A dialect's migration transaction provides the statements and the catalog reads
/// (``SQLSchemaChangeSteps``); the order and the decisions are here, once.
package enum SQLSchemaChangePlan {
    /// Where a rebuilt entity's tables wait while the engine copies them.
    package static let setAsidePrefix = "strata_migrating."

    /// The tables an entity's storage occupies, by logical name: its own (the entity's name), then
    /// one `Entity.relationship` per link list it owns.
    package static func tables(of entity: String, in plan: SQLLayoutPlan) -> [String] {
        [entity] + plan.linkLists.filter { $0.owner.name == entity }.map { "\(entity).\($0.relationship.name)" }
    }

    /// What a reindexed table needs: the indexes to drop (stored but not wanted alike) and the
    /// statements to run (wanted but not stored alike), each sorted by name.
    ///
    /// - Parameters:
    ///   - stored: Strata's indexes on the table, by name, as ``SQLSchemaChangeSteps/storedIndexes(on:)``
    ///     reports them.
    ///   - wanted: The target's index statements, by name.
    ///   - definition: How the dialect recognizes an index definition from its name and statement.
    package static func reindexing(
        stored: [String: String], wanted: [(name: String, sql: String)],
        definition: (_ name: String, _ sql: String) -> String
    ) -> (drop: [String], create: [String]) {
        let wanted = Dictionary(wanted.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let drop = stored.filter { name, stored in
            wanted[name].map { definition($0.name, $0.sql) } != stored
        }.keys.sorted()
        let create = wanted.sorted(by: { $0.key < $1.key }).filter { name, index in
            stored[name] != definition(index.name, index.sql)
        }.map(\.value.sql)
        return (drop, create)
    }
}

/// What a dialect's migration transaction provides ``SQLSchemaChangePlan``: catalog reads and
/// statements, by logical table name (the dialect quotes, qualifies and shortens).
package protocol SQLSchemaChangeSteps: AnyObject {
    /// The schema the store has at this point of the transaction.
    var schema: Schema { get }
    /// Strata's indexes on a table (not the primary key's), by name, each with what
    /// ``definition(ofIndex:sql:)`` gives for the statement that created it.
    func storedIndexes(on table: String) throws -> [String: String]
    /// What identifies an index's definition in this dialect: the statement itself, or the name
    /// when names are derived from definitions.
    func definition(ofIndex name: String, sql: String) -> String
    /// The target's index statements for one entity's table, by name.
    func indexStatements(of entity: EntityDescription, in target: Schema) -> [(name: String, sql: String)]
    /// The DDL creating one entity's table, its indexes and the link tables it owns in `target`.
    func creationStatements(for entity: String, in target: Schema) -> [String]
    func dropIndex(_ name: String) throws
    /// Renames `table` to `SQLSchemaChangePlan.setAsidePrefix + table`.
    func setAside(_ table: String) throws
    /// Drops a table set aside by ``setAside(_:)``.
    func dropSetAside(_ table: String) throws
    func execute(_ sql: String) throws
    /// Builds the two views of a stage (`schema` with `retired` read from their set-aside tables,
    /// and `target`), runs `body` and writes what the new view holds; the new view becomes the
    /// transaction's current one.
    func copy(
        from retired: Set<String>, to target: Schema,
        _ body: (any StorageReadTransaction, any StorageWriteTransaction) throws -> Void
    ) throws
    /// Makes `target` the schema of the transaction.
    func adopt(_ target: Schema)
    /// Tables a dialect keeps for an entity beside the plan's (SQLite's element tables), by
    /// logical name: set aside and dropped with the entity's.
    func extraTables(of entity: EntityDescription) -> [String]
}

extension SQLSchemaChangeSteps {
    package func extraTables(of entity: EntityDescription) -> [String] { [] }
}

extension SQLSchemaChangeSteps {
    /// One stage of ``SchemaChangeTransaction/change(to:rebuilding:creating:reindexing:_:)``, in
    /// the plan's order.
    package func runStage(
        to target: Schema, rebuilding retired: Set<String>, creating created: Set<String>,
        reindexing reindexed: Set<String>,
        _ body: (any StorageReadTransaction, any StorageWriteTransaction) throws -> Void
    ) throws {
        let present = SQLLayoutPlan(schema: schema)
        var setAside: [String] = []
        for name in retired.sorted() {
            let extra = present.tables[name].map { extraTables(of: $0.entity) } ?? []
            for table in SQLSchemaChangePlan.tables(of: name, in: present) + extra {
                for index in try storedIndexes(on: table).keys.sorted() { try dropIndex(index) }
                try self.setAside(table)
                setAside.append(table)
            }
        }
        for name in created.sorted() {
            for statement in creationStatements(for: name, in: target) { try execute(statement) }
        }
        for name in reindexed.sorted() {
            guard let entity = target.entity(name) else { continue }
            let (drop, create) = SQLSchemaChangePlan.reindexing(
                stored: try storedIndexes(on: name), wanted: indexStatements(of: entity, in: target),
                definition: definition(ofIndex:sql:))
            for index in drop { try dropIndex(index) }
            for statement in create { try execute(statement) }
        }
        try copy(from: retired, to: target, body)
        for table in setAside { try dropSetAside(table) }
        adopt(target)
    }
}
