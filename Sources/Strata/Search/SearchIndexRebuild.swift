import StrataStorage

/// Full-text indexes built from the records: what a migration does for an entity whose records
/// it rewrote or whose full-text indexes it added or changed, and what `strata verify` compares
/// the kept index with.
enum SearchIndexRebuild {
    /// Removes every key of every full-text index of `entity`.
    static func drop(_ entity: String, in transaction: any StorageWriteTransaction) throws {
        let prefix = SearchIndexLayout.entityPrefix(entity)
        while true {
            let page = try transaction.metadata(prefix: prefix, after: nil, limit: 512)
            if page.isEmpty { return }
            for entry in page { try transaction.setMetadata(entry.key, nil) }
        }
    }

    /// Indexes every record of `entity` into each of its full-text indexes, `batchSize` records
    /// per segment.
    static func build(
        _ entity: EntityDescription, in transaction: any StorageWriteTransaction, executor: QueryExecutor,
        batchSize: Int
    ) throws {
        guard !entity.searchIndexes.isEmpty else { return }
        try Migrator.forEachBatch(entity.name, in: transaction, executor: executor, size: max(1, batchSize)) { batch in
            for index in entity.searchIndexes {
                let changes = batch.map {
                    SearchDocumentChange(id: $0.id, old: nil, new: SearchDocumentChange.words(of: $0, index))
                }
                try SearchIndexWriter(entity: entity.name, index: index, transaction: transaction).apply(changes)
            }
        }
    }
}
