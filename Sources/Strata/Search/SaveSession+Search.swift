import StrataStorage

/// Full-text indexes change in the same transaction as the records, on every path that commits
/// through a save (repositories, contexts, batches, cascades, sync, `strata import`/`copy`).
extension SaveSession {
    /// Writes each full-text index's share of the save: the words of every record of its entity
    /// the save inserted, changed or deleted, before and after.
    func updateSearchIndexes(_ base: any StorageWriteTransaction) throws {
        guard schema.entities.contains(where: { !$0.searchIndexes.isEmpty }) else { return }
        var pending: [(entity: String, index: SearchIndexDescription, changes: [SearchDocumentChange])] = []
        var positions: [SearchKeyPair: Int] = [:]
        var described: (name: String, entity: EntityDescription?)?
        for entry in workingSet.staged where entry.original != nil || entry.current != nil {
            let name = entry.key.entity
            if described?.name != name { described = (name, schema.entity(name)) }
            guard let entity = described?.entity, !entity.searchIndexes.isEmpty else { continue }
            for index in entity.searchIndexes {
                let old = entry.original.map { SearchDocumentChange.words(of: $0, index) }
                let new = entry.current.map { SearchDocumentChange.words(of: $0, index) }
                if let old, let new, old == new { continue }
                let pair = SearchKeyPair(entity: name, index: index.name)
                let position: Int
                if let found = positions[pair] {
                    position = found
                } else {
                    position = pending.count
                    positions[pair] = position
                    pending.append((name, index, []))
                }
                pending[position].changes.append(SearchDocumentChange(id: entry.key.id, old: old, new: new))
            }
        }
        for (entity, index, changes) in pending {
            try SearchIndexWriter(entity: entity, index: index, transaction: base).apply(changes)
        }
    }
}

private struct SearchKeyPair: Hashable {
    var entity: String
    var index: String
}
