import Foundation
import Strata

/// Relationships renamed in the typed declaration (`renamedFrom:` on `.toOne` and `.toMany`), both
/// sides of an ordered one-to-many at once: every member stays, in its order, on both sides.
extension MigrationChecks {
    static let typedRenames: [ConformanceCheck] = [
        ConformanceCheck(
            .migration, "relationshipsRenamedInTheTypedDeclarationKeepTheirMembersInOrder", requires: [.migrate]
        ) {
            c in
            let store = try await c.store(try Schema(CrateV1.self, BoxV1.self))
            let crate = CrateV1(id: UUID(), name: "Kitchen")
            let boxes = (0..<3).map { BoxV1(id: UUID(), label: "Box \($0)", crate: crate.id) }
            try await store.transaction { tx in
                try tx.insert(crate)
                try tx.insert(contentsOf: boxes)
                try tx.setRelated(CrateV1.items, of: crate.id, to: [boxes[2].id, boxes[0].id, boxes[1].id])
            }
            let renamed = try Schema(CrateV2.self, BoxV2.self)
            let plan = MigrationPlan(
                versions: [SchemaVersion("1", try Schema(CrateV1.self, BoxV1.self)), SchemaVersion("2", renamed)])
            let migrated = try await c.migrate(store, to: renamed, plan: plan)
            try expectEqual(
                try await migrated.repository(CrateV2.self).related(CrateV2.boxes, of: crate.id).map(\.id),
                [boxes[2].id, boxes[0].id, boxes[1].id], "the list, in its order, under its new name")
            let moved = try await migrated.repository(BoxV2.self).fetch(Query<BoxV2>.where(\.holder == crate.id))
            try expectEqual(Set(moved.map(\.id)), Set(boxes.map(\.id)), "every box points at its crate by the new name")
        }
    ]
}

/// Version 1: a crate's ordered boxes are `items`, a box's crate `crate`.
struct CrateV1: PersistentModel {
    var id: UUID
    var name: String
    static let items = ToMany<CrateV1, BoxV1>("items")
    static let entity = Entity<CrateV1>(
        "Crate", [.attribute(\.name), .toMany(items, inverse: \BoxV1.crate, ordered: true)])
}

struct BoxV1: PersistentModel {
    var id: UUID
    var label: String
    var crate: CrateV1.ID?
    static let entity = Entity<BoxV1>(
        "Box", [.attribute(\.label), .toOne(\.crate, CrateV1.self, inverse: CrateV1.items)])
}

/// Version 2: the same relationships renamed `boxes` and `holder`.
struct CrateV2: PersistentModel {
    var id: UUID
    var name: String
    static let boxes = ToMany<CrateV2, BoxV2>("boxes")
    static let entity = Entity<CrateV2>(
        "Crate", [.attribute(\.name), .toMany(boxes, inverse: \BoxV2.holder, ordered: true, renamedFrom: "items")])
}

struct BoxV2: PersistentModel {
    var id: UUID
    var label: String
    var holder: CrateV2.ID?
    static let entity = Entity<BoxV2>(
        "Box", [.attribute(\.label), .toOne(\.holder, CrateV2.self, inverse: CrateV2.boxes, renamedFrom: "crate")])
}
