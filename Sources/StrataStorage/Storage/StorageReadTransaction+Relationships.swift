extension StorageReadTransaction {
    /// The IDs a relationship of `record` points at, in relationship order (link order for
    /// ordered relationships, ID order otherwise). Dangling IDs (noAction) may be included;
    /// callers that load records skip the ones not found.
    public func relatedIDs(of record: Record, _ relationship: RelationshipDescription) throws -> [RecordID] {
        switch relationship.storage {
        case .reference:
            return RecordID(record[relationship.name]).map { [$0] } ?? []
        case .inverseReference:
            guard let inverse = relationship.inverse else { return [] }
            return try referrers(relationship.destination, property: inverse, to: record.id)
        case .orderedLinks, .links:
            return try links(record.entity, relationship: relationship.name, from: record.id)
        case .inverseLinks:
            guard let inverse = relationship.inverse else { return [] }
            return try linkOwners(relationship.destination, relationship: inverse, to: record.id)
        }
    }

    /// How many existing records a to-many of `record` holds now: referrers exist by definition,
    /// while a link list may name a record deleted under noAction, which is not counted. What a
    /// derived count stores, in a save and in a migration's backfill alike.
    package func existingMemberCount(of record: Record, _ relationship: RelationshipDescription) throws -> Int {
        let ids = try relatedIDs(of: record, relationship)
        if relationship.storage == .inverseReference || ids.isEmpty { return ids.count }
        return try existingIDs(relationship.destination, among: ids).count
    }

    /// The records a relationship of `record` points at; dangling references are skipped.
    public func relatedRecords(of record: Record, _ relationship: RelationshipDescription) throws -> [Record] {
        try relatedIDs(of: record, relationship).compactMap { try self.record(relationship.destination, id: $0) }
    }
}
