import Foundation
import Strata

extension Store {
    /// Every full-text index compared with the records it should hold: a record whose words are
    /// missing or differ, an entry for a record that does not exist, counts that disagree, or
    /// damaged bytes, each a `corruptStore` finding naming the entity, the record and the index
    /// (as its property). For `strata verify`. Reads each indexed entity whole.
    public func checkSearchIndexes(limit: Int = 1_000) async throws -> [StrataError] {
        let schema = schema
        return try await backend.read { transaction -> [StrataError] in
            var findings: [StrataError] = []
            for entity in schema.entities where !entity.searchIndexes.isEmpty && findings.count < limit {
                findings += try SearchIndexVerification.check(entity, in: transaction, limit: limit - findings.count)
            }
            return findings
        }
    }
}
