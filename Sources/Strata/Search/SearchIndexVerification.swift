import StrataStorage

/// A full-text index compared with the records it should hold: what `strata verify` reports.
package enum SearchIndexVerification {
    /// Every difference between `entity`'s full-text indexes and its records — a record whose
    /// words are missing or wrong, an entry for a record that does not exist, counts that disagree,
    /// damaged bytes — each a ``StrataError/Code/corruptStore`` naming the entity, the record and
    /// the index (as the property). At most `limit` findings.
    package static func check(
        _ entity: EntityDescription, in transaction: any StorageReadTransaction, limit: Int = 1_000
    ) throws -> [StrataError] {
        var findings: [StrataError] = []
        let records = try transaction.fetch(FetchPlan(entity: entity.name))
        for index in entity.searchIndexes where findings.count < limit {
            do {
                try compare(index, of: entity, records, transaction, &findings, limit: limit)
            } catch let error as StrataError where error.code == .corruptStore {
                findings.append(error)
            }
        }
        return findings
    }

    private static func compare(
        _ index: SearchIndexDescription, of entity: EntityDescription, _ records: [Record],
        _ transaction: any StorageReadTransaction, _ findings: inout [StrataError], limit: Int
    ) throws {
        func finding(_ id: RecordID?, _ message: String) {
            guard findings.count < limit else { return }
            findings.append(
                StrataError(
                    .corruptStore, entity: entity.name, recordID: id, property: index.name,
                    "full-text index \(index.name): \(message)"))
        }
        let reader = try SearchIndexReader(entity: entity.name, index: index, transaction: transaction)
        var expected: [String: [RecordID: SearchPosting]] = [:]
        var totals = Array(repeating: 0, count: index.fields.count)
        var slots = SearchWordSlots()
        for record in records {
            let words = SearchDocumentChange.words(of: record, index)
            for (field, list) in words.enumerated() { totals[field] += list.count }
            SearchIndexWriter.forEachWord(of: words, &slots) { _, word, occurrences in
                var positions = Array(repeating: [Int](), count: words.count)
                for (field, position) in occurrences { positions[field].append(position) }
                expected[word, default: [:]][record.id] = SearchPosting(
                    id: record.id, positions: positions, lengths: words.map(\.count))
            }
        }
        if reader.stats.documents != records.count || reader.stats.totals != totals {
            finding(
                nil,
                "it counts \(reader.stats.documents) records and \(reader.stats.totals) words; "
                    + "the records are \(records.count) with \(totals)")
        }
        let kept = try reader.entries(startingWith: "")
        for word in Set(kept.keys).union(expected.keys).sorted() where findings.count < limit {
            let have = Dictionary((kept[word] ?? []).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            let want = expected[word] ?? [:]
            for id in Set(have.keys).union(want.keys).sorted() where have[id] != want[id] {
                if want[id] == nil {
                    let held = records.contains { $0.id == id } ? "does not hold it" : "does not exist"
                    finding(id, "lists the word \"\(word)\" for a record that \(held)")
                } else if have[id] == nil {
                    finding(id, "misses the word \"\(word)\" of the record")
                } else {
                    finding(id, "keeps the word \"\(word)\" at other positions or lengths than the record's")
                }
            }
        }
    }
}
