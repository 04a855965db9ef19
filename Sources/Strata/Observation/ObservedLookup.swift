/// Records a live value reads besides its results — the destinations of a to-one, for sections
/// keyed through it (`SectionKey.related(_:_:)`): read in the same read as the results, and a
/// dependency of the observation, so a change of a destination wakes it.
struct ObservedLookup: Sendable {
    /// The to-one's name in the observed entity.
    let relationship: String
    /// The entity it refers to.
    let destination: String
    /// The destinations the results refer to, by ID, read in the given transaction.
    let read: @Sendable ([Record], any StorageReadTransaction) throws -> [RecordID: Record]

    init?<Model, Key>(_ key: SectionKey<Model, Key>) {
        guard let (relationship, destination) = key.dependency else { return nil }
        self.relationship = relationship
        self.destination = destination
        read = { records, transaction in try key.referencedRecords(records, in: transaction) }
    }

    /// Whether two reads found the same destinations in the same versions.
    static func same(_ a: [RecordID: Record]?, _ b: [RecordID: Record]) -> Bool {
        guard let a, a.count == b.count else { return false }
        return a.allSatisfy { id, record in b[id].map { $0.version == record.version && $0 == record } ?? false }
    }
}

extension ObservedDependencies {
    /// These dependencies and a lookup's: its to-one is read, and any change of its destination's
    /// entity may change the value (so such a value is refetched, never caught up incrementally).
    func including(_ lookup: ObservedLookup?) -> ObservedDependencies {
        guard let lookup else { return self }
        var dependencies = self
        dependencies.read(lookup.relationship, of: lookup.destination)
        return dependencies
    }
}
