import PostgresNIO
import StrataSQL
import StrataStorage

/// Relationship lookups: referrers by a reference column, and link lists read from either end, one
/// at a time or for many keys in one statement.
extension PostgresReadTransaction {
    /// How `property` is stored in `table` (an aggregate reads it too).
    func kind(of property: String, in table: PostgresLayout.Table) throws -> PostgresLayout.Table.ColumnKind {
        guard let index = table.columnIndex[property] else {
            throw StrataError(
                .unknownProperty, entity: table.entity.name, property: property,
                "\(property) is not a stored property of \(table.entity.name)")
        }
        return table.columns[index].kind
    }

    func referrers(_ entity: String, property: String, to target: RecordID) throws -> [RecordID] {
        try referrers(entity, property: property, toEach: [target])[target] ?? []
    }

    func referrers(_ entity: String, property: String, toEach targets: [RecordID]) throws -> [RecordID: [RecordID]] {
        let table = try layout.table(entity)
        let kind = try kind(of: property, in: table)
        let targetKind: RecordID.Kind
        switch kind {
        case .reference(let referenced): targetKind = referenced
        case .collection: return try referrersOneTargetAtATime(entity, property: property, toEach: targets)
        case .attribute(let type):
            // An indexed attribute holding IDs' values: compare by value.
            switch type {
            case .uuid: targetKind = .uuid
            case .string: targetKind = .string
            case .int: targetKind = .int
            default: return try referrersOneTargetAtATime(entity, property: property, toEach: targets)
            }
        }
        let asked = Self.storable(Array(Set(targets))).filter { $0.kind == targetKind }
        guard !asked.isEmpty else { return [:] }
        var binds = PostgresBindings()
        binds.append(Self.idArray(asked, kind: targetKind))
        let column = PostgresLayout.column(property)
        var found: [RecordID: [RecordID]] = [:]
        for row in try rows(
            "SELECT \"id\", \(column) FROM \(table.name) WHERE \(column) = ANY($1) ORDER BY \(column), \"id\"", binds,
            reading: entity)
        {
            let cells = row.makeRandomAccess()
            let target = try PostgresValues.recordID(cells[1], kind: targetKind)
            found[target, default: []].append(try PostgresValues.recordID(cells[0], kind: table.entity.idKind))
        }
        return found
    }

    private func ids(_ sql: String, _ argument: RecordID, kind: RecordID.Kind, reading entity: String) throws
        -> [RecordID]
    {
        guard Self.isStorable(argument) else { return [] }
        var binds = PostgresBindings()
        binds.append(strataID: argument)
        return try rows(sql, binds, reading: entity).map {
            try PostgresValues.recordID($0.makeRandomAccess()[0], kind: kind)
        }
    }

    func links(_ entity: String, relationship: String, from owner: RecordID) throws -> [RecordID] {
        let kind = try layout.schema.destinationIDKind(of: entity, relationship: relationship)
        return try ids(
            "SELECT target FROM \(layout.linkTable(entity, relationship)) WHERE owner = $1 ORDER BY position", owner,
            kind: kind, reading: entity)
    }

    func linkOwners(_ entity: String, relationship: String, to target: RecordID) throws -> [RecordID] {
        let kind = try layout.table(entity).entity.idKind
        return try ids(
            "SELECT DISTINCT owner FROM \(layout.linkTable(entity, relationship)) WHERE target = $1 ORDER BY owner",
            target, kind: kind, reading: entity)
    }

    func links(_ entity: String, relationship: String, fromEach owners: [RecordID]) throws -> [RecordID: [RecordID]] {
        let kinds = try linkKinds(entity, relationship)
        return try pairs(
            "SELECT owner, target FROM \(layout.linkTable(entity, relationship)) WHERE owner = ANY($1) "
                + "ORDER BY owner, position", owners, kinds: (kinds.owner, kinds.target), reading: entity)
    }

    func linkOwners(_ entity: String, relationship: String, toEach targets: [RecordID]) throws -> [RecordID: [RecordID]]
    {
        let kinds = try linkKinds(entity, relationship)
        return try pairs(
            "SELECT DISTINCT target, owner FROM \(layout.linkTable(entity, relationship)) WHERE target = ANY($1) "
                + "ORDER BY target, owner", targets, kinds: (kinds.target, kinds.owner), reading: entity)
    }

    /// The ID kinds of a link table's owners and targets.
    private func linkKinds(_ entity: String, _ relationship: String) throws -> (
        owner: RecordID.Kind, target: RecordID.Kind
    ) {
        (
            try layout.table(entity).entity.idKind,
            try layout.schema.destinationIDKind(of: entity, relationship: relationship)
        )
    }

    /// Rows of (key, ID) for the keys bound as one array, grouped by key in the order they come.
    private func pairs(
        _ sql: String, _ keys: [RecordID], kinds: (key: RecordID.Kind, id: RecordID.Kind), reading entity: String
    ) throws -> [RecordID: [RecordID]] {
        let asked = Self.storable(Array(Set(keys))).filter { $0.kind == kinds.key }
        guard !asked.isEmpty else { return [:] }
        var binds = PostgresBindings()
        binds.append(Self.idArray(asked, kind: kinds.key))
        var found: [RecordID: [RecordID]] = [:]
        for row in try rows(sql, binds, reading: entity) {
            let cells = row.makeRandomAccess()
            let key = try PostgresValues.recordID(cells[0], kind: kinds.key)
            found[key, default: []].append(try PostgresValues.recordID(cells[1], kind: kinds.id))
        }
        return found
    }
}
