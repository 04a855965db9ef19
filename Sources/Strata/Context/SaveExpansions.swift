import Synchronization

/// What a context's save did beyond the context's own changes — records its delete rules cascaded
/// to, references and list entries they cleared — as they were before it, so that undoing the
/// group that deleted a record brings its whole graph back, as Core Data's undo of a saved cascade
/// does. Collected inside the save's transaction (``Collector``), attributed on the context's
/// actor to the deleted records the context itself deleted (``restorations(roots:pending:schema:)``).
struct SaveExpansions: Sendable {
    /// Records the save deleted, as they were before it.
    var deleted: [RecordKey: Record] = [:]
    /// Records the save updated, before and after.
    var updated: [RecordKey: (before: Record, after: Record)] = [:]
    /// Link lists the save changed, before and after.
    var lists: [LinkKey: (before: [RecordID], after: [RecordID])] = [:]

    /// What undoing the deletion of one root puts back besides the root: records as they were,
    /// link lists as they were (or with the root's graph put back in them).
    struct Restoration {
        var records = OrderedMap<RecordKey, Record>()
        var lists = OrderedMap<LinkKey, [RecordID]>()
    }

    /// Reads the save's staged state once its records are written.
    final class Collector: CommitParticipant {
        let found = Mutex(SaveExpansions())

        func participate(in commit: CommitInProgress, transaction: any StorageWriteTransaction) throws {
            var expansions = SaveExpansions()
            for change in commit.changes {
                let key = RecordKey(entity: change.entity, id: change.id)
                guard let entry = commit.workingSet.entry(key), let original = entry.original else { continue }
                switch change.kind {
                case .delete: expansions.deleted[key] = original
                case .update: if let current = entry.current { expansions.updated[key] = (original, current) }
                case .insert: break
                }
            }
            for (key, entry) in commit.workingSet.linkEntries where entry.original != entry.current {
                expansions.lists[key] = (entry.original, entry.current)
            }
            found.withLock { $0 = expansions }
        }

        /// The cascade's records are put back whole: their values are read.
        func readsDeletedRecords(of entity: String) -> Bool { true }
    }

    /// For each root (a stored record the context deleted), what its deletion took with it: the
    /// records the rules deleted under it (as the context showed them, `pending`, else as stored),
    /// the records whose references to it or to those the rules cleared (with the reference put
    /// back), the link lists of the deleted records, and the lists they were taken out of.
    func restorations(roots: Set<RecordKey>, pending: [RecordKey: Record?], schema: Schema)
        -> [RecordKey: Restoration]
    {
        let graph = Graph(self, roots: roots, schema: schema)
        var found: [RecordKey: Restoration] = [:]
        for key in deleted.keys.sorted(by: Self.order) where !roots.contains(key) {
            guard let root = graph.root(of: key), let before = deleted[key] else { continue }
            found[root, default: Restoration()].records[key] = (pending[key] ?? nil) ?? before
        }
        for key in updated.keys.sorted(by: Self.order) {
            guard let (before, after) = updated[key] else { continue }
            restoreReferences(
                of: key, before: before, after: after, pending: pending[key] ?? nil, graph: graph, into: &found)
        }
        let listed = lists.keys.sorted { a, b in
            a.ownerKey == b.ownerKey ? a.relationship < b.relationship : Self.order(a.ownerKey, b.ownerKey)
        }
        for key in listed {
            guard let (before, after) = lists[key] else { continue }
            restoreList(key, before: before, after: after, graph: graph, into: &found)
        }
        return found
    }

    /// A surviving record's references the rules cleared, put back for the root they led to.
    private func restoreReferences(
        of key: RecordKey, before: Record, after: Record, pending: Record?, graph: Graph,
        into found: inout [RecordKey: Restoration]
    ) {
        guard let entity = graph.schema.entity(key.entity) else { return }
        for relationship in entity.relationships where relationship.isToOne {
            let name = relationship.name
            // Cleared by the rules, not by the context (whose pending state has it set).
            guard after[name].isNull, let target = RecordID(before[name]), pending.map({ !$0[name].isNull }) ?? true
            else { continue }
            let cleared = RecordKey(entity: relationship.destination, id: target)
            guard deleted[cleared] != nil, let root = graph.root(of: cleared) else { continue }
            var state = found[root]?.records[key] ?? pending ?? after
            state[name] = before[name]
            found[root, default: Restoration()].records[key] = state
        }
    }

    /// A deleted record's own list as it was; a surviving record's list with the deleted records
    /// put back where they were, for the root each led to.
    private func restoreList(
        _ key: LinkKey, before: [RecordID], after: [RecordID], graph: Graph, into found: inout [RecordKey: Restoration]
    ) {
        if deleted[key.ownerKey] != nil {
            guard let root = graph.root(of: key.ownerKey) else { return }
            found[root, default: Restoration()].lists[key] = before
            return
        }
        guard let destination = graph.schema.entity(key.entity)?.relationship(key.relationship)?.destination
        else { return }
        let kept = Set(after)
        var byRoot: [RecordKey: Set<RecordID>] = [:]
        for id in before where !kept.contains(id) {
            let removed = RecordKey(entity: destination, id: id)
            guard deleted[removed] != nil, let root = graph.root(of: removed) else { continue }
            byRoot[root, default: []].insert(id)
        }
        for (root, ids) in byRoot {
            let wanted = Set(found[root]?.lists[key] ?? after).union(ids)
            found[root, default: Restoration()].lists[key] = before.filter { wanted.contains($0) }
        }
    }

    /// How the save's deleted records reached one another, for finding the root of each.
    struct Graph {
        let deleted: [RecordKey: Record]
        let roots: Set<RecordKey>
        let schema: Schema
        /// Each deleted record a deleted record's to-one or list names, by the one naming it (the
        /// cascade's other direction: a person's passport, a list that cascades).
        private var reachedBy: [RecordKey: RecordKey] = [:]

        init(_ expansions: SaveExpansions, roots: Set<RecordKey>, schema: Schema) {
            (deleted, self.roots, self.schema) = (expansions.deleted, roots, schema)
            // In key order, so which one a record reached from two is the same on every run.
            for (owner, record) in deleted.sorted(by: { SaveExpansions.order($0.key, $1.key) }) {
                for relationship in schema.entity(owner.entity)?.relationships ?? [] where relationship.isToOne {
                    guard let target = RecordID(record[relationship.name]) else { continue }
                    reachedBy[RecordKey(entity: relationship.destination, id: target)] = owner
                }
            }
            for (link, list) in expansions.lists where deleted[link.ownerKey] != nil {
                guard let destination = schema.entity(link.entity)?.relationship(link.relationship)?.destination
                else { continue }
                for id in list.before { reachedBy[RecordKey(entity: destination, id: id)] = link.ownerKey }
            }
        }

        /// The root a deleted record's deletion came from: itself when it is one, else the
        /// deleted record it was reached through (its to-one to it, a to-one of it to this record,
        /// a list of it naming this record), and so on — each record visited once.
        func root(of key: RecordKey) -> RecordKey? {
            var current = key
            var visited: Set<RecordKey> = []
            while visited.insert(current).inserted {
                if roots.contains(current) { return current }
                guard let parent = parent(of: current) else { return nil }
                current = parent
            }
            return nil
        }

        private func parent(of key: RecordKey) -> RecordKey? {
            if let record = deleted[key] {
                for relationship in schema.entity(key.entity)?.relationships ?? [] where relationship.isToOne {
                    guard let target = RecordID(record[relationship.name]) else { continue }
                    let candidate = RecordKey(entity: relationship.destination, id: target)
                    if deleted[candidate] != nil { return candidate }
                }
            }
            return reachedBy[key].flatMap { deleted[$0] != nil && $0 != key ? $0 : nil }
        }
    }

    static func order(_ a: RecordKey, _ b: RecordKey) -> Bool {
        a.entity != b.entity ? a.entity < b.entity : a.id < b.id
    }
}
