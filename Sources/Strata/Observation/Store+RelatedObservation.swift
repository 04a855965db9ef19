import Synchronization

extension Store {
    /// The members of one owner's to-many as they change, in the relationship's stored order (the
    /// link order of an ordered to-many, as `setRelated` set it): the initial members, then the new
    /// members after each commit that changes the membership, its order or a member, each with a
    /// ``ResultsDiff`` against the value delivered before (a reorder is a `moved` entry, an edited
    /// member a `modified` one). A commit that changes neither delivers nothing.
    ///
    /// ```swift
    /// for try await stops in store.observe(Trip.stops, of: tripID) {
    ///     render(stops.models, moving: stops.diff.moved)
    /// }
    /// ```
    ///
    /// An owner that does not exist (or is deleted) ends the stream with `notFound`. Like
    /// ``observe(_:)``: a slow consumer gets the latest members, graceful shutdown of the service
    /// iterating it ends it, closing the store ends it with `storeClosed`. Each commit to the
    /// owner's or the members' entity costs one read of the owner's members.
    public func observe<M: PersistentModel, D: PersistentModel>(_ relationship: ToMany<M, D>, of owner: M.ID)
        -> AsyncThrowingStream<QueryResults<D>, any Error>
    {
        ObservationStream.start { output, wakes, wake in
            try await self.followRelated(relationship, of: owner, output: output, wakes: wakes, wake: wake)
        }
    }

    /// Reads the members, subscribes after that read, and reads again on every commit of the two
    /// entities, publishing when the members, their order or their versions changed.
    private func followRelated<M: PersistentModel, D: PersistentModel>(
        _ relationship: ToMany<M, D>, of owner: M.ID,
        output: AsyncThrowingStream<QueryResults<D>, any Error>.Continuation,
        wakes: AsyncStream<Void>, wake: AsyncStream<Void>.Continuation
    ) async throws {
        let read: @Sendable () async throws -> ([Record], HistoryToken?) = {
            try await self.read { reader in
                guard try reader.record(M.entityName, id: owner.recordID) != nil else {
                    throw StrataError(
                        .notFound, entity: M.entityName, recordID: owner.recordID, "the owner does not exist")
                }
                let members = try reader.relatedRecords(M.entityName, relationship.name, owners: [owner.recordID])
                return (members[owner.recordID] ?? [], try HistoryLog.lastToken(in: reader.transaction))
            }
        }
        var (records, token) = try await read()
        let failure = Mutex<(any Error)?>(nil)
        let subscription = hub.subscribe(after: token, entities: [M.entityName, D.entityName]) { event in
            switch event {
            case .committed: break
            case .gap: break  // the members are read again whole: a purge loses nothing
            case .failed(let error): failure.withLock { $0 = error }
            }
            wake.yield()
        }
        defer { hub.unsubscribe(subscription) }
        var previous: [(id: RecordID, version: Int64)]?
        var iterator = wakes.makeAsyncIterator()
        while true {
            let keys = records.map { (id: $0.id, version: $0.version) }
            if previous.map({ !$0.elementsEqual(keys, by: { $0.id == $1.id && $0.version == $1.version }) }) ?? true {
                let diff = ResultsDiff.between(previous ?? [], keys)
                output.yield(QueryResults(models: try records.map(D.init(record:)), diff: diff, token: token))
                previous = keys
            }
            guard await iterator.next() != nil, !Task.isCancelled else { return }
            if let error = failure.withLock({ $0 }) { throw error }
            (records, token) = try await read()
        }
    }
}
