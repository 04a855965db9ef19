import CLMDB
import Foundation
import StrataStorage

/// The named databases of a store, by role.
struct LMDBLayout: Sendable {
    let schema: Schema

    static func records(_ entity: String) -> String { "r/\(entity)" }
    static func index(_ entity: String, _ property: String) -> String { "i/\(entity)/\(property)" }
    static func links(_ entity: String, _ relationship: String) -> String { "l/\(entity)/\(relationship)" }
    static func linkOwners(_ entity: String, _ relationship: String) -> String { "o/\(entity)/\(relationship)" }
    static let meta = "meta"
    /// What a migration prefixes the databases it sets aside with.
    static let setAsidePrefix = "m/"

    /// The entity a database name belongs to (nil for `meta`).
    static func entity(of name: String) -> String? {
        let parts = name.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
        return parts.count >= 2 && ["r", "i", "l", "o"].contains(parts[0]) ? String(parts[1]) : nil
    }

    /// The databases of one entity, with whether each keeps duplicates.
    func databases(of entity: String) -> [(name: String, duplicates: Bool)] {
        databases.filter { Self.entity(of: $0.name) == entity }
    }

    /// Every named database, and whether it keeps duplicates (the secondary indexes do).
    var databases: [(name: String, duplicates: Bool)] {
        var specs: [(String, Bool)] = [(Self.meta, false)]
        for entity in schema.entities {
            specs.append((Self.records(entity.name), false))
            for property in entity.indexedProperties.sorted() {
                specs.append((Self.index(entity.name, property), true))
            }
            for relationship in entity.relationships where relationship.keepsLinkList {
                specs.append((Self.links(entity.name, relationship.name), false))
                specs.append((Self.linkOwners(entity.name, relationship.name), true))
            }
        }
        return specs
    }
}
