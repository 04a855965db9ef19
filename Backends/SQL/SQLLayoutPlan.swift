import StrataStorage

/// What tables a schema needs in an SQL store, whatever the dialect: one table per entity (`id`,
/// `strata_version`, then a typed column per attribute — composite fields flattened — and per
/// to-one, holding the destination's ID), its secondary indexes (each ending in `id`, so an
/// equality yields rows in the contract's tie-break order), and one link table per owned link list
/// (owner, target, position). Each dialect names and types them (``SQLDialect`` does not: its
/// layout renders this plan into DDL). No foreign keys: the engine owns delete rules, and
/// `noAction` must be able to leave a dangling reference.
package struct SQLLayoutPlan: Sendable {
    /// One entity's table.
    package struct Table: Sendable {
        package let entity: EntityDescription
        /// Stored property columns after `id` and `strata_version`, in record-layout order.
        package let columns: [(name: String, kind: ColumnKind)]
        /// Column lists of the plain secondary indexes: indexed attributes, declared indexes and
        /// to-ones, without duplicates.
        package let indexes: Set<[String]>
        /// Indexed arrays and sets: each dialect keeps an index of their elements (SQLite a table
        /// of elements kept by triggers, PostgreSQL a GIN index).
        package var elementIndexes: [String] { entity.elementIndexedAttributes.map(\.name) }
        /// Column lists of the unique constraints. They get plain indexes too: the engine
        /// enforces uniqueness over a whole save inside its write transaction, and a per-statement
        /// UNIQUE index would refuse valid saves that swap values between records.
        package let uniqueConstraints: [[String]]
    }

    /// What a column holds.
    package enum ColumnKind: Sendable {
        case attribute(AttributeType)
        /// An array, set, dictionary or document: one JSON value (`TEXT` in SQLite, `jsonb` in
        /// PostgreSQL), read back by its type and element type.
        case collection(AttributeType, element: AttributeType?)
        /// A to-one: the destination's ID.
        case reference(RecordID.Kind)
    }

    /// One owned link list's table.
    package struct LinkList: Sendable {
        package let owner: EntityDescription
        package let relationship: RelationshipDescription
        package let targetKind: RecordID.Kind
    }

    package let schema: Schema
    package let tables: [String: Table]
    /// Relationships whose link lists the store keeps, in schema order.
    package let linkLists: [LinkList]

    package init(schema: Schema) {
        self.schema = schema
        var tables: [String: Table] = [:]
        var linkLists: [LinkList] = []
        for entity in schema.entities {
            var columns: [(String, ColumnKind)] = entity.attributes.map {
                ($0.name, $0.type.isScalar ? .attribute($0.type) : .collection($0.type, element: $0.element))
            }
            var indexes = Set(entity.attributes.filter { $0.isIndexed && $0.type.isScalar }.map { [$0.name] })
            for index in entity.indexes where index.allSatisfy({ entity.attribute($0)?.type.isScalar ?? true }) {
                indexes.insert(index)
            }
            for relationship in entity.relationships {
                let destinationKind = schema.entity(relationship.destination)?.idKind ?? .uuid
                if relationship.isToOne {
                    columns.append((relationship.name, .reference(destinationKind)))
                    indexes.insert([relationship.name])
                }
                if relationship.keepsLinkList {
                    linkLists.append(LinkList(owner: entity, relationship: relationship, targetKind: destinationKind))
                }
            }
            tables[entity.name] = Table(
                entity: entity, columns: columns, indexes: indexes, uniqueConstraints: entity.uniqueConstraints)
        }
        self.tables = tables
        self.linkLists = linkLists
    }

    /// `columns` followed by `id` unless they hold it: an index's key.
    package static func keyed(_ columns: [String]) -> [String] {
        columns.contains("id") ? columns : columns + ["id"]
    }
}
