/// The end of the pipeline: write what changed with bumped versions, then the history entry.
extension SaveSession {
    /// The outcome of a committed save.
    struct Outcome {
        var token: HistoryToken?
        var changes: [HistoryChange]
    }

    func commit(author: String?, contextName: String?) throws -> Outcome {
        try expandDeletes()
        try validate()
        let base = workingSet.base

        // A link-list change is a change of its owner: the owner is written with a new version.
        var linkChanges: [RecordKey: Set<String>] = [:]
        for key in workingSet.linkOrder {
            guard let entry = workingSet.linkEntries[key], entry.original != entry.current else { continue }
            let owner = RecordKey(entity: key.entity, id: key.owner)
            guard let record = try workingSet.record(key.entity, id: key.owner) else { continue }
            linkChanges[owner, default: []].insert(key.relationship)
            if workingSet.entries[owner] == nil { try workingSet.stage(record) }
        }

        var changes: [HistoryChange] = []
        for key in workingSet.order {
            guard let entry = workingSet.entries[key] else { continue }
            switch (entry.original, entry.current) {
            case (nil, nil):
                continue
            case (let original?, nil):
                try base.delete(key.entity, id: key.id)
                changes.append(HistoryChange(kind: .delete, entity: key.entity, id: key.id, changedProperties: [], version: original.version))
            case (nil, var record?):
                record.version = 1
                try base.put(record)
                let names = record.values.filter { !$0.value.isNull }.map(\.key) + (linkChanges[key] ?? [])
                changes.append(HistoryChange(kind: .insert, entity: key.entity, id: key.id, changedProperties: names.sorted(), version: 1))
            case (let original?, var record?):
                let names = Set(record.changedProperties(comparedTo: original)).union(linkChanges[key] ?? [])
                guard !names.isEmpty else { continue }
                record.version = original.version + 1
                try base.put(record)
                changes.append(HistoryChange(kind: .update, entity: key.entity, id: key.id, changedProperties: names.sorted(), version: record.version))
            }
        }
        for key in workingSet.linkOrder {
            guard let entry = workingSet.linkEntries[key], entry.original != entry.current else { continue }
            try base.setLinks(key.entity, relationship: key.relationship, from: key.owner, to: entry.current)
        }
        guard !changes.isEmpty else { return Outcome(token: nil, changes: []) }
        let token = try HistoryLog.append(changes, author: author, contextName: contextName, to: base)
        return Outcome(token: token, changes: changes)
    }
}
