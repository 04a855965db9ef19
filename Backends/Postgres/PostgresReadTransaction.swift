import PostgresNIO
import StrataSQL
import StrataStorage

/// Reads over one leased connection. In a read, the backend has begun a `REPEATABLE READ READ
/// ONLY` transaction, so every statement sees one snapshot; in a write, the store's advisory lock
/// is held, so no other writer commits in between (see ``PostgresWriteTransaction``).
class PostgresReadTransaction: StorageReadTransaction {
    let session: PostgresSession
    let layout: PostgresLayout
    var schema: Schema { layout.schema }

    init(session: PostgresSession, layout: PostgresLayout) {
        self.session = session
        self.layout = layout
    }

    /// Called before every statement that reads `entity`'s records or links (nil: any table, or
    /// the metadata when `metadata` is set): a write flushes what it holds back first.
    func willRead(_ entity: String?, metadata: Bool = false) throws {
        try flushesFirst?.willRead(entity, metadata: metadata)
    }

    /// A write whose pending writes this transaction's reads must see (a migration reads the
    /// tables it keeps through the old view while writing through the new).
    var flushesFirst: PostgresWriteTransaction?

    func rows(_ sql: String, _ binds: PostgresBindings, reading entity: String?) throws -> [PostgresRow] {
        try willRead(entity)
        return try session.rows(sql, binds)
    }

    /// A row (`id`, `strata_version`, columns…) as a record.
    func decode(_ row: PostgresRow, _ table: PostgresLayout.Table) throws -> Record {
        let cells = row.makeRandomAccess()
        let id = try PostgresValues.recordID(cells[0], kind: table.entity.idKind)
        func corrupt(_ why: String, _ underlying: (any Error)? = nil) -> StrataError {
            StrataError(
                .corruptStore, entity: table.entity.name, recordID: id, underlying: underlying,
                "stored record is damaged: \(why)")
        }
        guard case .int(let version) = try PostgresValues.value(cells[1], as: .int) else {
            throw corrupt("it has no version")
        }
        var slots: [Value] = []
        slots.reserveCapacity(table.columns.count)
        for (offset, column) in table.columns.enumerated() {
            do {
                switch column.kind {
                case .attribute(let type): slots.append(try PostgresValues.value(cells[offset + 2], as: type))
                case .collection(let type, let element):
                    slots.append(try PostgresValues.value(cells[offset + 2], as: type, element: element))
                case .reference(let kind):
                    slots.append(
                        cells[offset + 2].bytes == nil
                            ? .null : try PostgresValues.recordID(cells[offset + 2], kind: kind).value)
                }
            } catch {
                throw corrupt("\(column.name) holds a value of the wrong kind", error)
            }
        }
        return Record(entity: table.entity.name, id: id, version: version, layout: table.layout, slots: slots)
    }

    /// IDs that can be stored (longer string IDs cannot exist, so they are answered as absent).
    static func storable(_ ids: [RecordID]) -> [RecordID] {
        ids.filter(isStorable)
    }

    /// Whether a record can have this ID here: within the length every backend holds, and for
    /// a string ID without U+0000 (PostgreSQL text cannot hold it; the engine refuses it).
    static func isStorable(_ id: RecordID) -> Bool {
        if case .string(let text) = id, text.utf8.contains(0) { return false }
        return ValueRules.isStorable(id)
    }

    /// An array parameter of IDs.
    static func idArray(_ ids: some Sequence<RecordID>, kind: RecordID.Kind) -> PostgresWireArray {
        var array = PostgresWireArray(element: PostgresValues.wireType(kind))
        for id in ids { array.append(id.value) }
        return array
    }

    func record(_ entity: String, id: RecordID) throws -> Record? {
        try records(entity, ids: [id])[id]
    }

    func records(_ entity: String, ids: [RecordID]) throws -> [RecordID: Record] {
        let table = try layout.table(entity)
        let asked = Self.storable(ids)
        guard !asked.isEmpty else { return [:] }
        var binds = PostgresBindings()
        binds.append(Self.idArray(asked, kind: table.entity.idKind))
        var found: [RecordID: Record] = [:]
        for row in try rows(
            "SELECT \(table.selectList) FROM \(table.name) AS t0 WHERE t0.\"id\" = ANY($1)", binds, reading: entity)
        {
            let record = try decode(row, table)
            found[record.id] = record
        }
        return found
    }

    /// The versions of `ids`' records (a cascade's children): two columns read, no values decoded.
    func versions(_ entity: String, ids: [RecordID]) throws -> [RecordID: Int64] {
        let table = try layout.table(entity)
        let asked = Self.storable(ids)
        guard !asked.isEmpty else { return [:] }
        var binds = PostgresBindings()
        binds.append(Self.idArray(asked, kind: table.entity.idKind))
        var found: [RecordID: Int64] = [:]
        found.reserveCapacity(asked.count)
        for row in try rows(
            "SELECT \"id\", \"strata_version\" FROM \(table.name) WHERE \"id\" = ANY($1)", binds, reading: entity)
        {
            let cells = row.makeRandomAccess()
            let id = try PostgresValues.recordID(cells[0], kind: table.entity.idKind)
            guard case .int(let version) = try PostgresValues.value(cells[1], as: .int) else {
                throw StrataError(
                    .corruptStore, entity: entity, recordID: id, "stored record is damaged: it has no version")
            }
            found[id] = version
        }
        return found
    }

    func existingIDs(_ entity: String, among ids: [RecordID]) throws -> Set<RecordID> {
        let table = try layout.table(entity)
        let asked = Self.storable(ids)
        guard !asked.isEmpty else { return [] }
        var binds = PostgresBindings()
        binds.append(Self.idArray(asked, kind: table.entity.idKind))
        var found = Set<RecordID>()
        for row in try rows("SELECT \"id\" FROM \(table.name) WHERE \"id\" = ANY($1)", binds, reading: entity) {
            found.insert(try PostgresValues.recordID(row.makeRandomAccess()[0], kind: table.entity.idKind))
        }
        return found
    }

    func fetch(_ plan: FetchPlan) throws -> [Record] {
        let table = try layout.table(plan.entity)
        var query = PostgresFetchSQL(layout: layout)
        let sql = try query.select(plan)
        return try rows(sql, query.binds, reading: nil).map { try decode($0, table) }
    }

    func count(_ plan: FetchPlan) throws -> Int {
        var query = PostgresFetchSQL(layout: layout)
        let sql = try query.count(plan)
        guard let row = try rows(sql, query.binds, reading: nil).first,
            case .int(let count) = try PostgresValues.value(row.makeRandomAccess()[0], as: .int)
        else { return 0 }
        return Int(count)
    }

    func aggregate(_ plan: AggregatePlan) throws -> [AggregateRow] {
        let table = try layout.table(plan.entity)
        var query = PostgresFetchSQL(layout: layout)
        let sql = try query.aggregate(plan)
        let offset = plan.groupBy == nil ? 0 : 1
        return try rows(sql, query.binds, reading: plan.entity).map { row in
            let cells = row.makeRandomAccess()
            var group = Value.null
            if let property = plan.groupBy {
                switch try kind(of: property, in: table) {
                case .attribute(let type): group = try PostgresValues.value(cells[0], as: type)
                case .collection(let type, let element):
                    group = try PostgresValues.value(cells[0], as: type, element: element)
                case .reference(let kind):
                    group = cells[0].bytes == nil ? .null : try PostgresValues.recordID(cells[0], kind: kind).value
                }
            }
            var values: [Value] = []
            for (position, function) in plan.functions.enumerated() {
                let cell = cells[offset + position]
                guard let property = function.property, let type = table.entity.attribute(property)?.type else {
                    values.append(try PostgresValues.value(cell, as: .int))
                    continue
                }
                switch function {
                case .sum where type == .int:
                    guard case .string(let text) = try PostgresValues.value(cell, as: .string) else {
                        throw StrataError(
                            .corruptStore, entity: plan.entity, property: property,
                            "the sum of \(property) came back empty")
                    }
                    guard let total = Int64(text) else {
                        throw StrataError.sumOverflow(entity: plan.entity, property: property)
                    }
                    values.append(.int(total))
                case .sum, .average:
                    values.append(try PostgresValues.value(cell, as: .double))
                default:
                    values.append(try PostgresValues.value(cell, as: type))
                }
            }
            return AggregateRow(group: group, values: values)
        }
    }

    func metadata(_ key: String) throws -> [UInt8]? {
        guard !key.unicodeScalars.contains("\u{0}") else { return nil }
        try willRead(nil, metadata: true)
        var binds = PostgresBindings()
        binds.append(strata: .string(key))
        guard let row = try session.rows("SELECT value FROM \(layout.metaTable) WHERE key = $1", binds).first else {
            return nil
        }
        return try Self.bytes(row.makeRandomAccess()[0])
    }

    /// One statement for the whole set (`key = ANY($1)`) rather than a round trip per key.
    func metadata(keys: [String]) throws -> [String: [UInt8]] {
        let asked = keys.filter { !$0.unicodeScalars.contains("\u{0}") }
        guard !asked.isEmpty else { return [:] }
        try willRead(nil, metadata: true)
        var names = PostgresWireArray(element: .text)
        for key in asked { names.append(.string(key)) }
        var binds = PostgresBindings()
        binds.append(names)
        var found: [String: [UInt8]] = [:]
        for row in try session.rows("SELECT key, value FROM \(layout.metaTable) WHERE key = ANY($1::text[])", binds) {
            let cells = row.makeRandomAccess()
            guard case .string(let key) = try PostgresValues.value(cells[0], as: .string) else {
                throw StrataError(.corruptStore, "unreadable metadata entry")
            }
            found[key] = try Self.bytes(cells[1])
        }
        return found
    }

    func metadata(prefix: String, after: String?, limit: Int?) throws -> [(key: String, value: [UInt8])] {
        try willRead(nil, metadata: true)
        var binds = PostgresBindings()
        binds.append(strata: .string(prefix))
        // A key range rather than LIKE, so the primary key answers it.
        var sql = "SELECT key, value FROM \(layout.metaTable) WHERE key >= $1"
        if let end = KeyRange.upperBound(ofPrefix: prefix) {
            binds.append(strata: .string(end))
            sql += " AND key < $\(binds.count)"
        }
        if let after {
            binds.append(strata: .string(after))
            sql += " AND key > $\(binds.count)"
        }
        sql += " ORDER BY key"
        if let limit {
            binds.append(strata: .int(Int64(limit)))
            sql += " LIMIT $\(binds.count)"
        }
        return try session.rows(sql, binds).map { row in
            let cells = row.makeRandomAccess()
            guard case .string(let key) = try PostgresValues.value(cells[0], as: .string) else {
                throw StrataError(.corruptStore, "unreadable metadata entry")
            }
            return (key, try Self.bytes(cells[1]))
        }
    }

    static func bytes(_ cell: PostgresCell) throws -> [UInt8] {
        guard case .data(let data) = try PostgresValues.value(cell, as: .data) else {
            throw StrataError(.corruptStore, "unreadable metadata entry")
        }
        return Array(data)
    }
}
