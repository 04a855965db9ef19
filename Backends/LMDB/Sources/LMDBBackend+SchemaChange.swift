import CLMDB
import Foundation
import StrataStorage
import Synchronization

/// Migrations on LMDB, inside one write transaction (a crash leaves the last committed state).
///
/// LMDB cannot rename a database, so per stage each database of an entity being rebuilt (its
/// records, index, link and link-owner databases) is copied aside under `m/` (in key order, so
/// every put appends) and emptied; the new layout's databases are opened (the emptied ones reused
/// by name); the engine copies through the two views; the set-aside copies are dropped. A
/// database the new layout no longer has stays, empty, in the file (dropping a database closes
/// its handle at once, even if the transaction then aborts).
///
/// On a shadow copy (``LMDBBackend/makeShadowCopy()``) the same steps commit at every
/// checkpoint, so the pages a transaction keeps in memory stay bounded by the batch.
extension LMDBBackend: SchemaChangingBackend {
    public func changeSchema<T: Sendable>(_ body: @escaping @Sendable (any SchemaChangeTransaction) throws -> T)
        async throws -> T
    {
        try checkOpen()
        let schema = schema
        if isShadowCopy {
            return try await onWriter { environment in try self.changeSchemaInBatches(environment, schema: schema, body)
            }
        }
        return try await onWriter { environment in
            let (result, handles) = try self.writeRaw { transaction -> (T, [String: MDB_dbi]) in
                let change = LMDBSchemaChange(transaction: transaction, schema: schema, checkpoints: nil)
                let result = try body(change)
                try change.recordSchema()
                return (result, change.handles)
            }
            // The databases opened in the transaction are the environment's now it committed.
            environment.adopt(handles)
            return result
        }
    }

    /// The schema change of a shadow copy, on the writer thread: a write transaction that each
    /// checkpoint commits and begins anew (growing the map first when it is half full).
    private func changeSchemaInBatches<T>(
        _ environment: LMDBEnvironment, schema: Schema, _ body: (any SchemaChangeTransaction) throws -> T
    ) throws -> T {
        func begin() throws -> OpaquePointer {
            environment.resizeLock.readLock()
            var txn: OpaquePointer?
            let code = mdb_txn_begin(environment.handle, nil, 0, &txn)
            guard code == 0, let txn else {
                environment.resizeLock.unlock()
                try check(code == 0 ? ENOMEM : code)
                throw LMDBStatus(code: ENOMEM)
            }
            return txn
        }
        /// Commits `txn` (freed whatever the outcome) and releases the resize lock.
        func commit(_ txn: OpaquePointer) throws {
            let code = mdb_txn_commit(txn)
            environment.resizeLock.unlock()
            try check(code)
        }
        var open: OpaquePointer? = try begin()
        do {
            guard let first = open else { throw LMDBStatus(code: ENOMEM) }
            let change = LMDBSchemaChange(
                transaction: LMDBWriteTransaction(
                    txn: first, environment: environment, schema: schema),
                schema: schema,
                checkpoints: { txn in
                    open = nil
                    try commit(txn)
                    let (used, map) = environment.usage
                    if used > map / 2 { try environment.setMapSize(map * 2) }
                    let next = try begin()
                    open = next
                    return next
                })
            let result = try body(change)
            try change.recordSchema()
            open = nil
            try commit(change.txn)
            environment.adopt(change.handles)
            return result
        } catch {
            if let txn = open {
                mdb_txn_abort(txn)
                environment.resizeLock.unlock()
            }
            throw error
        }
    }
}

final class LMDBSchemaChange: SchemaChangeTransaction {
    private(set) var schema: Schema
    private var transaction: LMDBWriteTransaction
    /// Databases opened in this transaction (kept only if it commits).
    private(set) var handles: [String: MDB_dbi] = [:]
    /// On a shadow copy: commits the transaction given and returns the next one.
    private let checkpoints: ((OpaquePointer) throws -> OpaquePointer)?
    /// The transaction objects handed out (the current one, a stage's old and new views): a
    /// checkpoint moves them all onto the next transaction.
    private var attached: [LMDBReadTransaction] = []

    init(transaction: LMDBWriteTransaction, schema: Schema, checkpoints: ((OpaquePointer) throws -> OpaquePointer)?) {
        self.transaction = transaction
        self.schema = schema
        self.checkpoints = checkpoints
        attached = [transaction]
    }

    var current: any StorageWriteTransaction { transaction }

    var txn: OpaquePointer { transaction.txn }

    func checkpoint() throws {
        guard let checkpoints else { return }
        let next = try checkpoints(txn)
        for view in attached { view.txn = next }
    }

    /// Records the schema the store now has, as the backend records it at creation.
    func recordSchema() throws {
        try transaction.setMetadata(SchemaDescription.metadataKey, SchemaDescription(schema).encoded())
        try transaction.setMetadata(MetadataKeys.schemaFingerprint, Array(schema.fingerprint.utf8))
    }

    private func open(_ name: String, duplicates: Bool) throws -> MDB_dbi {
        if let dbi = handles[name] ?? transaction.environment.databases[name] { return dbi }
        var dbi: MDB_dbi = 0
        try check(mdb_dbi_open(txn, name, UInt32(MDB_CREATE) | (duplicates ? UInt32(MDB_DUPSORT) : 0), &dbi))
        handles[name] = dbi
        return dbi
    }

    func change(
        to target: Schema, rebuilding retired: Set<String>, creating created: Set<String>,
        reindexing reindexed: Set<String>,
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
            for name in before.subtracting(after.map(\.name)) {
                try check(mdb_drop(txn, try open(name, duplicates: true), 0))
            }
            var added: [String] = []
            for spec in after where !before.contains(spec.name) {
                _ = try open(spec.name, duplicates: spec.duplicates)
                if let property = spec.name.split(separator: "/").last, spec.name.hasPrefix("i/") {
                    added.append(String(property))
                }
            }
            if let description = target.entity(entity), !added.isEmpty { indexing.append((description, added)) }
        }
        let old = LMDBReadTransaction(
            txn: txn, environment: transaction.environment, schema: schema)
        old.migrationHandles = handles
        old.setAside = retired
        let new = LMDBWriteTransaction(
            txn: txn, environment: transaction.environment, schema: target)
        new.migrationHandles = handles
        attached += [old, new]
        for (entity, properties) in indexing { try new.buildIndexes(entity, properties, checkpoint: checkpoint) }
        try body(old, new)
        for dbi in aside { try check(mdb_drop(txn, dbi, 1)) }
        for name in handles.keys where name.hasPrefix(LMDBLayout.setAsidePrefix) { handles[name] = nil }
        schema = target
        transaction = new
        attached = [new]
    }

    /// Copies every entry in key (and duplicate) order, so each put appends; on a shadow copy,
    /// a checkpoint every 4,096 entries, the cursor placed again after the last one copied.
    private func copyEntries(from source: MDB_dbi, to destination: MDB_dbi, duplicates: Bool) throws {
        var last: (key: [UInt8], value: [UInt8])?
        while true {
            var cursor: OpaquePointer?
            try check(mdb_cursor_open(txn, source, &cursor))
            defer { mdb_cursor_close(cursor) }
            var key = MDB_val()
            var value = MDB_val()
            var code: Int32
            if let last {
                code = try Self.position(cursor, after: last, duplicates: duplicates, &key, &value)
            } else {
                code = mdb_cursor_get(cursor, &key, &value, MDB_FIRST)
            }
            var copied = 0
            while code == 0 {
                // A further duplicate of the last key appends as a duplicate; a new key as a key.
                let bytes = Array(UnsafeRawBufferPointer(start: key.mv_data, count: key.mv_size))
                let flags = duplicates && bytes == last?.key ? UInt32(MDB_APPENDDUP) : UInt32(MDB_APPEND)
                try check(mdb_put(txn, destination, &key, &value, flags))
                last = (bytes, Array(UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size)))
                copied += 1
                if checkpoints != nil, copied >= 4_096 { break }
                code = mdb_cursor_get(cursor, &key, &value, MDB_NEXT)
            }
            if code != 0 {
                if code != MDB_NOTFOUND { try check(code) }
                return
            }
            mdb_cursor_close(cursor)
            cursor = nil
            try checkpoint()
        }
    }

    /// Places `cursor` on the entry after `last` (its key, and for duplicates its value).
    private static func position(
        _ cursor: OpaquePointer?, after last: (key: [UInt8], value: [UInt8]), duplicates: Bool, _ key: inout MDB_val,
        _ value: inout MDB_val
    ) throws -> Int32 {
        var found: Int32 = last.key.withUnsafeBytes { rawKey in
            key = MDB_val(mv_size: rawKey.count, mv_data: UnsafeMutableRawPointer(mutating: rawKey.baseAddress))
            guard duplicates else { return mdb_cursor_get(cursor, &key, &value, MDB_SET_KEY) }
            return last.value.withUnsafeBytes { rawValue in
                value = MDB_val(
                    mv_size: rawValue.count, mv_data: UnsafeMutableRawPointer(mutating: rawValue.baseAddress))
                return mdb_cursor_get(cursor, &key, &value, MDB_GET_BOTH)
            }
        }
        if found == 0 { found = mdb_cursor_get(cursor, &key, &value, MDB_NEXT) }
        return found
    }
}
