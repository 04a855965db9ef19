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

    /// The records a relationship of `record` points at; dangling references are skipped.
    public func relatedRecords(of record: Record, _ relationship: RelationshipDescription) throws -> [Record] {
        try relatedIDs(of: record, relationship).compactMap { try self.record(relationship.destination, id: $0) }
    }
}
