/// What merging others' commits into a context did: observable through
/// ``ModelContext/refreshes`` and ``ModelContext/lastRefresh``.
public struct ContextRefresh: Sendable, Hashable {
    /// The history position the context caught up with.
    public var token: HistoryToken?
    /// Records this context had not changed that took the store's new values.
    public var refreshed: [RecordKey] = []
    /// Records this context had not changed that others deleted; the context forgot them.
    public var deleted: [RecordKey] = []
    /// Records this context has changed that others changed or deleted too: they keep this
    /// context's values and are resolved by the merge policy at save.
    public var conflicting: [RecordKey] = []

    /// Whether nothing in the context was affected.
    public var isEmpty: Bool { refreshed.isEmpty && deleted.isEmpty && conflicting.isEmpty }
}

/// Which of a context's records others have changed since it last looked, found in one read
/// transaction from the store's history (or, when history has a gap, by re-reading them all).
struct RefreshRequest: Sendable {
    /// Read the history after this position.
    var after: HistoryToken?
    /// `false` the first time the context reads: there is nothing to catch up with, only a position to take.
    var hasSeenStore: Bool
    /// The version each tracked record was read at.
    var bases: [RecordKey: Int64]

    /// How many history transactions are read before falling back to re-reading every record.
    static let historyWindow = 4096

    struct Found: Sendable {
        var token: HistoryToken?
        /// Current state of records whose version moved (`nil`: deleted).
        var records: [RecordKey: Record?]
    }

    /// - Parameter ownSave: The token of the save this context just made inside the same
    ///   transaction: its changes are the context's own, re-based by the caller.
    func run(in transaction: any StorageReadTransaction, executor: QueryExecutor, ownSave: HistoryToken? = nil) throws
        -> Found
    {
        let token = try HistoryLog.lastToken(in: transaction)
        guard hasSeenStore, token != after, !bases.isEmpty else { return Found(token: token, records: [:]) }
        // Nothing but this context's own save happened since it last looked.
        if let ownSave, token == ownSave, (after?.value ?? 0) + 1 == ownSave.value {
            return Found(token: token, records: [:])
        }
        let history = try HistoryLog.read(after: after, limit: Self.historyWindow + 1, in: transaction)
        let expectedFirst = (after?.value ?? 0) + 1
        let complete =
            history.count <= Self.historyWindow && (history.first.map { $0.token.value == expectedFirst } ?? true)
        var candidates: Set<RecordKey> = []
        if complete {
            for entry in history where entry.token != ownSave {
                for change in entry.changes {
                    let key = RecordKey(entity: change.entity, id: change.id)
                    if let base = bases[key], change.kind == .delete || change.version > base { candidates.insert(key) }
                }
            }
        } else {
            candidates = Set(bases.keys)
        }
        var records: [RecordKey: Record?] = [:]
        let byEntity = Dictionary(grouping: candidates, by: \.entity)
        for (entity, keys) in byEntity {
            let found = try executor.fetch(entity, where: "id", in: keys.map(\.id.value), from: transaction)
            var byID: [RecordID: Record] = [:]
            for record in found { byID[record.id] = record }
            for key in keys {
                let record = byID[key.id]
                if let record, let base = bases[key], record.version == base { continue }
                records[key] = .some(record)
            }
        }
        return Found(token: token, records: records)
    }
}

extension ModelContext {
    /// Brings the records this context has not changed up to date with everything committed since
    /// it last looked, and reports what moved. Fetches and saves do this themselves while
    /// `automaticallyMergesChanges` is on.
    @discardableResult
    public func mergeChangesFromStore() async throws -> ContextRefresh {
        guard let request = refreshRequest(force: true) else { return ContextRefresh(token: lastSeenToken) }
        let executor = store.executor
        let found = try await store.backend.read { try request.run(in: $0, executor: executor) }
        return apply(found)
    }

    /// Re-reads one record. With `mergeChanges` this context's changes to it are kept over the
    /// store's current state (and will not conflict with what was just read); without, they are dropped.
    public func refresh<M: PersistentModel>(_ type: M.Type, id: M.ID, mergeChanges: Bool = true) async throws {
        let key = RecordKey(entity: M.entityName, id: id.recordID)
        let stored = try await readStore { reader, _ in try reader.record(key.entity, id: key.id) }
        guard let entry = tracker[key] else {
            if let stored { tracker.register(stored) }
            return
        }
        guard let stored else {
            if mergeChanges && entry.base == nil { return }
            tracker.forget(key)
            return
        }
        guard mergeChanges, entry.isPending, let current = entry.current else {
            tracker.track(stored)
            return
        }
        var merged = stored
        for name in entry.changed where store.schema.entity(key.entity)?.isStoredProperty(name) == true {
            merged[name] = current[name]
        }
        tracker.set(key, base: stored, current: merged)
    }

    func refreshRequest(force: Bool) -> RefreshRequest? {
        guard force || automaticallyMergesChanges || !hasSeenStore else { return nil }
        var bases: [RecordKey: Int64] = [:]
        if hasSeenStore {
            bases.reserveCapacity(tracker.count)
            for (key, entry) in tracker.records { if let base = entry.base { bases[key] = base.version } }
        }
        return RefreshRequest(after: lastSeenToken, hasSeenStore: hasSeenStore, bases: bases)
    }

    @discardableResult
    func apply(_ found: RefreshRequest.Found) -> ContextRefresh {
        var refresh = ContextRefresh(token: found.token)
        for (key, record) in found.records.sorted(by: { ($0.key.entity, $0.key.id) < ($1.key.entity, $1.key.id) }) {
            guard let entry = tracker[key], let base = entry.base else { continue }
            if let record, record.version <= base.version { continue }
            if entry.isPending {
                refresh.conflicting.append(key)
            } else if let record {
                tracker.track(record)
                refresh.refreshed.append(key)
            } else {
                tracker.forget(key)
                refresh.deleted.append(key)
            }
        }
        if !hasSeenStore || (found.token ?? HistoryToken(0)) > (lastSeenToken ?? HistoryToken(0)) {
            lastSeenToken = found.token
        }
        hasSeenStore = true
        if !refresh.isEmpty {
            lastRefresh = refresh
            refreshContinuation.yield(refresh)
        }
        return refresh
    }
}
