/// A context's pending changes laid over a read transaction, so its fetches, counts and
/// relationship reads see them. Nothing is validated or written: the overlay is a private view.
struct ContextOverlay: Sendable {
    struct MembershipState: Sendable {
        var owner: RecordKey
        var relationship: String
        var desired: [RecordID]
    }

    /// Pending records in change order: the context's view (`nil` for a delete), and whether the
    /// context inserted it.
    var records: [(key: RecordKey, record: Record?, inserted: Bool)]
    var memberships: [MembershipState]

    /// Runs `body` over `reader` with each overlay laid on the one before (a nested context's
    /// ancestors, outermost first).
    static func nest<T>(
        _ overlays: ArraySlice<ContextOverlay>, over reader: StoreReader, executor: QueryExecutor,
        _ body: (StoreReader, QueryExecutor) throws -> T
    ) throws -> T {
        guard let first = overlays.first else { return try body(reader, executor) }
        return try first.view(over: reader, executor: executor) { view, viewExecutor in
            try nest(
                overlays.dropFirst(), over: StoreReader(transaction: view, executor: viewExecutor),
                executor: viewExecutor, body)
        }
    }

    /// Runs `body` over the committed state with the pending changes staged on top. With nothing
    /// pending, the body reads the backend directly (and the backend evaluates what it can).
    func view<T>(
        over reader: StoreReader, executor: QueryExecutor,
        _ body: (any StorageReadTransaction, QueryExecutor) throws -> T
    ) throws -> T {
        if records.isEmpty && memberships.isEmpty { return try body(reader.transaction, executor) }
        let session = SaveSession(overlaying: reader.transaction, executor: executor)
        let workingSet = session.workingSet
        for (key, record, inserted) in records {
            // Inserts and updates go through the session, so the inverses they change — an
            // ordered link list an insert joins through its to-one — read as they will be saved.
            guard let record else {
                try workingSet.stage(key, nil)
                continue
            }
            do {
                if inserted { try session.insert(record) } else { try session.update(record) }
            } catch {
                try workingSet.stage(key, record)
            }
        }
        for membership in memberships {
            guard try workingSet.record(membership.owner.entity, id: membership.owner.id) != nil,
                let relationship = workingSet.schema.entity(membership.owner.entity)?.relationship(
                    membership.relationship)
            else { continue }
            try session.setRelated(
                membership.owner, membership.relationship,
                try workingSet.existing(membership.desired, of: relationship.destination))
        }
        // The working set evaluates whole plans itself, over committed and staged records alike.
        return try body(workingSet, QueryExecutor(capabilities: .all))
    }
}
