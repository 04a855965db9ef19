import CLMDB
import Foundation
import Strata

/// The named databases of a store, by role.
struct LMDBLayout: Sendable {
    let schema: Schema

    static func records(_ entity: String) -> String { "r/\(entity)" }
    static func index(_ entity: String, _ property: String) -> String { "i/\(entity)/\(property)" }
    static func links(_ entity: String, _ relationship: String) -> String { "l/\(entity)/\(relationship)" }
    static func linkOwners(_ entity: String, _ relationship: String) -> String { "o/\(entity)/\(relationship)" }
    static let meta = "meta"

    /// Every named database, and whether it keeps duplicates (the secondary indexes do).
    var databases: [(name: String, duplicates: Bool)] {
        var specs: [(String, Bool)] = [(Self.meta, false)]
        for entity in schema.entities {
            specs.append((Self.records(entity.name), false))
            for property in entity.indexedProperties.sorted() { specs.append((Self.index(entity.name, property), true)) }
            for relationship in entity.relationships where relationship.keepsLinkList {
                specs.append((Self.links(entity.name, relationship.name), false))
                specs.append((Self.linkOwners(entity.name, relationship.name), true))
            }
        }
        return specs
    }
}
