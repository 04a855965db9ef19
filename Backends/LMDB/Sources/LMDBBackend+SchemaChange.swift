import CLMDB
import Foundation
import Strata
import Synchronization

/// Migrations on LMDB, inside one write transaction (a crash leaves the last committed state).
///
/// LMDB cannot rename a database, so per stage each database of an entity being rebuilt (its
/// records, index, link and link-owner databases) is copied aside under `m/` (in key order, so
/// every put appends) and emptied; the new layout's databases are opened (the emptied ones reused
/// by name); the engine copies through the two views; the set-aside copies are dropped. A
/// database the new layout no longer has stays, empty, in the file (dropping a database closes
/// its handle at once, even if the transaction then aborts).
extension LMDBBackend: SchemaChangingBackend {
    public func changeSchema<T: Sendable>(_ body: @escaping @Sendable (any SchemaChangeTransaction) throws -> T) async throws -> T {
        try checkOpen()
        let schema = schema
        return try await onWriter { environment in
            let (result, handles) = try self.writeRaw { transaction -> (T, [String: MDB_dbi]) in
                let change = LMDBSchemaChange(transaction: transaction, schema: schema)
                let result = try body(change)
                try change.current.setMetadata(SchemaDescription.metadataKey, SchemaDescription(change.schema).encoded())
                try change.current.setMetadata("strata.schema.fingerprint", Array(change.schema.fingerprint.utf8))
                return (result, change.handles)
            }
            // The databases opened in the transaction are the environment's now it committed.
            environment.adopt(handles)
            return result
        }
    }
}

final class LMDBSchemaChange: SchemaChangeTransaction {
    private(set) var schema: Schema
    private var transaction: LMDBWriteTransaction
    /// Databases opened in this transaction (kept only if it commits).
    private(set) var handles: [String: MDB_dbi] = [:]

    init(transaction: LMDBWriteTransaction, schema: Schema) {
        self.transaction = transaction
        self.schema = schema
    }

    var current: any StorageWriteTransaction { transaction }

    private var txn: OpaquePointer { transaction.txn }

    private func open(_ name: String, duplicates: Bool) throws -> MDB_dbi {
        if let dbi = handles[name] ?? transaction.environment.databases[name] { return dbi }
        var dbi: MDB_dbi = 0
        try check(mdb_dbi_open(txn, name, UInt32(MDB_CREATE) | (duplicates ? UInt32(MDB_DUPSORT) : 0), &dbi))
        handles[name] = dbi
        return dbi
    }

    func change(
        to target: Schema, rebuilding retired: Set<String>, creating created: Set<String>, reindexing reindexed: Set<String>,
        _ body: (any StorageReadTransaction, any StorageWriteTransaction) throws -> Void
    ) throws {
        let present = LMDBLayout(schema: schema)
        var aside: [MDB_dbi] = []
        for entity in retired.sorted() {
            for spec in present.databases(of: entity) {
                let original = try open(spec.name, duplicates: spec.duplicates)
                let copy = try open(LMDBLayout.setAsidePrefix + spec.name, duplicates: spec.duplicates)
                try copyEntries(from: original, to: copy, duplicates: spec.duplicates)
                try check(mdb_drop(txn, original, 0))
                aside.append(copy)
            }
        }
        let layout = LMDBLayout(schema: target)
        for entity in created.sorted() {
            for spec in layout.databases(of: entity) { _ = try open(spec.name, duplicates: spec.duplicates) }
        }
        var indexing: [(EntityDescription, [String])] = []
        for entity in reindexed.sorted() {
            // The records stay: index databases the target drops are emptied, new ones built below.
            let before = Set(present.databases(of: entity).map(\.name))
            let after = layout.databases(of: entity)
            for name in before.subtracting(after.map(\.name)) { try check(mdb_drop(txn, try open(name, duplicates: true), 0)) }
            var added: [String] = []
            for spec in after where !before.contains(spec.name) {
                _ = try open(spec.name, duplicates: spec.duplicates)
                if let property = spec.name.split(separator: "/").last, spec.name.hasPrefix("i/") { added.append(String(property)) }
            }
            if let description = target.entity(entity), !added.isEmpty { indexing.append((description, added)) }
        }
        let old = LMDBReadTransaction(txn: txn, environment: transaction.environment, schema: schema, requireChecksums: transaction.requireChecksums)
        old.migrationHandles = handles
        old.setAside = retired
        let new = LMDBWriteTransaction(txn: txn, environment: transaction.environment, schema: target, requireChecksums: transaction.requireChecksums)
        new.migrationHandles = handles
        for (entity, properties) in indexing { try new.buildIndexes(entity, properties) }
        try body(old, new)
        for dbi in aside { try check(mdb_drop(txn, dbi, 1)) }
        for name in handles.keys where name.hasPrefix(LMDBLayout.setAsidePrefix) { handles[name] = nil }
        schema = target
        transaction = new
    }

    /// Copies every entry in key (and duplicate) order, so each put appends.
    private func copyEntries(from source: MDB_dbi, to destination: MDB_dbi, duplicates: Bool) throws {
        var cursor: OpaquePointer?
        try check(mdb_cursor_open(txn, source, &cursor))
        defer { mdb_cursor_close(cursor) }
        var key = MDB_val()
        var value = MDB_val()
        var code = mdb_cursor_get(cursor, &key, &value, MDB_FIRST)
        var previous: [UInt8]?
        while code == 0 {
            // A further duplicate of the last key appends as a duplicate; a new key as a key.
            let bytes = Array(UnsafeRawBufferPointer(start: key.mv_data, count: key.mv_size))
            let flags = duplicates && bytes == previous ? UInt32(MDB_APPENDDUP) : UInt32(MDB_APPEND)
            if duplicates { previous = bytes }
            try check(mdb_put(txn, destination, &key, &value, flags))
            code = mdb_cursor_get(cursor, &key, &value, MDB_NEXT)
        }
        if code != MDB_NOTFOUND { try check(code) }
    }
}
