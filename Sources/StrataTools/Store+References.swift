import Foundation
import Strata

extension Store {
    /// Every reference and link-list target of the store that points at nothing, and every
    /// one-to-one whose two sides disagree — read page by page (memory bounded by a page). A
    /// dangling reference is a finding unless deleting its destination leaves it by rule (the
    /// inverse's delete rule is noAction, or there is no inverse); a bare stored shape keeps no
    /// rules, the app's recorded declaration does (`declaredSchema()`). For `strata verify`
    /// and the end of a load.
    public func checkReferences(limit: Int = 1_000) async throws -> [StrataError] {
        let (schema, executor) = (schema, executor)
        return try await backend.read { transaction -> [StrataError] in
            let reader = StoreReader(transaction: transaction, executor: executor)
            var findings: [StrataError] = []
            for entity in schema.entities {
                let oneToOne = entity.relationships.filter {
                    $0.isToOne && schema.inverse(of: $0)?.storage == .reference
                }
                var after: RecordID?
                while findings.count < limit {
                    let items = try reader.page(entity.name, after: after, limit: 1_000)
                    let page = items.map(\.record)
                    findings += try StoreLoader.dangling(
                        page, links: items.map { ($0.record.key, $0.links) }, in: transaction)
                    for relationship in oneToOne {
                        guard let inverse = schema.inverse(of: relationship) else { continue }
                        let targets = page.compactMap { record in
                            RecordID(record[relationship.name]).map { (record, $0) }
                        }
                        let partners = try transaction.records(relationship.destination, ids: targets.map(\.1))
                        for (record, target) in targets {
                            guard let partner = partners[target], partner[inverse.name] != record.id.value else {
                                continue
                            }
                            findings.append(
                                StrataError(
                                    .invalidReference, entity: record.entity, recordID: record.id,
                                    property: relationship.name,
                                    "\(relationship.destination)(\(target)).\(inverse.name) does not point back (one-to-one sides disagree)"
                                ))
                        }
                    }
                    guard page.count == 1_000, let last = page.last else { break }
                    after = last.id
                }
            }
            return Array(findings.prefix(limit))
        }
    }
}
