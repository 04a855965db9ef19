import CLMDB
import Foundation
import StrataStorage

/// Reads inside one LMDB transaction (read-only, or the write transaction).
class LMDBReadTransaction: StorageReadTransaction {
    /// Replaced only by a shadow copy's migration checkpoint (a commit, then a new write
    /// transaction), between two calls.
    var txn: OpaquePointer
    let environment: LMDBEnvironment
    let schema: Schema

    /// Handles a migration opened in this transaction (not yet the environment's), by name.
    var migrationHandles: [String: MDB_dbi] = [:]
    /// Entities whose databases a migration set aside: read under ``LMDBLayout/setAsidePrefix``.
    var setAside: Set<String> = []

    init(txn: OpaquePointer, environment: LMDBEnvironment, schema: Schema) {
        self.txn = txn
        self.environment = environment
        self.schema = schema
    }

    /// A stored record, its checksum verified: damage is `corruptStore` naming the entity and ID.
    func decodeRecord(_ bytes: [UInt8], id: RecordID, _ entity: EntityDescription) throws -> Record {
        try RecordCodec.decode(bytes, id: id, entity)
    }

    func database(_ name: String) throws -> MDB_dbi {
        var name = name
        if !setAside.isEmpty, let entity = LMDBLayout.entity(of: name), setAside.contains(entity) {
            name = LMDBLayout.setAsidePrefix + name
        }
        guard let dbi = migrationHandles[name] ?? environment.databases[name] else {
            throw StrataError(.unknownEntity, "no database \(name) in this store")
        }
        return dbi
    }

    func entity(_ name: String) throws -> EntityDescription { try schema.requireEntity(name) }

    // MARK: Raw access

    func get(_ dbi: MDB_dbi, _ key: [UInt8]) throws -> [UInt8]? {
        var keyVal = MDB_val()
        var dataVal = MDB_val()
        let code: Int32 = key.withUnsafeBytes { raw in
            keyVal = MDB_val(mv_size: raw.count, mv_data: UnsafeMutableRawPointer(mutating: raw.baseAddress))
            return mdb_get(txn, dbi, &keyVal, &dataVal)
        }
        if code == MDB_NOTFOUND { return nil }
        try check(code)
        return Array(UnsafeRawBufferPointer(start: dataVal.mv_data, count: dataVal.mv_size))
    }

    /// Walks `dbi` from `start` (or the first key), calling `visit` with each key and value until it returns false.
    func scan(_ dbi: MDB_dbi, from start: [UInt8]?, _ visit: ([UInt8], [UInt8]) throws -> Bool) throws {
        var cursor: OpaquePointer?
        try check(mdb_cursor_open(txn, dbi, &cursor))
        defer { mdb_cursor_close(cursor) }
        var keyVal = MDB_val()
        var dataVal = MDB_val()
        var code: Int32
        if let start, !start.isEmpty {
            code = start.withUnsafeBytes { raw in
                keyVal = MDB_val(mv_size: raw.count, mv_data: UnsafeMutableRawPointer(mutating: raw.baseAddress))
                return mdb_cursor_get(cursor, &keyVal, &dataVal, MDB_SET_RANGE)
            }
        } else {
            code = mdb_cursor_get(cursor, &keyVal, &dataVal, MDB_FIRST)
        }
        while code == 0 {
            let key = Array(UnsafeRawBufferPointer(start: keyVal.mv_data, count: keyVal.mv_size))
            let value = Array(UnsafeRawBufferPointer(start: dataVal.mv_data, count: dataVal.mv_size))
            guard try visit(key, value) else { return }
            code = mdb_cursor_get(cursor, &keyVal, &dataVal, MDB_NEXT)
        }
        if code != MDB_NOTFOUND { try check(code) }
    }

    /// Every duplicate stored under `key` in a DUPSORT database.
    func duplicates(_ dbi: MDB_dbi, _ key: [UInt8]) throws -> [[UInt8]] {
        var found: [[UInt8]] = []
        try walkDuplicates(dbi, key) {
            found.append($0)
            return true
        }
        return found
    }

    /// Calls `visit` with each duplicate stored under `key`, in order, until it returns false: a
    /// page of a key holding ten thousand IDs reads only as many as it needs.
    func walkDuplicates(_ dbi: MDB_dbi, _ key: [UInt8], _ visit: ([UInt8]) throws -> Bool) throws {
        var cursor: OpaquePointer?
        try check(mdb_cursor_open(txn, dbi, &cursor))
        defer { mdb_cursor_close(cursor) }
        var keyVal = MDB_val()
        var dataVal = MDB_val()
        var code: Int32 = key.withUnsafeBytes { raw in
            keyVal = MDB_val(mv_size: raw.count, mv_data: UnsafeMutableRawPointer(mutating: raw.baseAddress))
            return mdb_cursor_get(cursor, &keyVal, &dataVal, MDB_SET)
        }
        while code == 0 {
            guard try visit(Array(UnsafeRawBufferPointer(start: dataVal.mv_data, count: dataVal.mv_size))) else {
                return
            }
            code = mdb_cursor_get(cursor, &keyVal, &dataVal, MDB_NEXT_DUP)
        }
        if code != MDB_NOTFOUND { try check(code) }
    }

    // MARK: StorageReadTransaction

    func record(_ entityName: String, id: RecordID) throws -> Record? {
        let entity = try entity(entityName)
        guard let key = LMDBKeys.lookupID(id), let bytes = try get(try database(LMDBLayout.records(entityName)), key)
        else { return nil }
        return try decodeRecord(bytes, id: id, entity)
    }

    /// The distinct IDs with their keys, in key order, so consecutive lookups descend through
    /// pages the previous one just read.
    static func inKeyOrder(_ ids: [RecordID]) -> [(key: [UInt8], id: RecordID)] {
        Set(ids).compactMap { id in LMDBKeys.lookupID(id).map { (key: $0, id: id) } }.sorted {
            LMDBKeys.precedes($0.key, $1.key)
        }
    }

    /// Keys only: a record's bytes are neither decoded nor checked to know that it exists.
    func existingIDs(_ entityName: String, among ids: [RecordID]) throws -> Set<RecordID> {
        _ = try entity(entityName)
        let recordsDB = try database(LMDBLayout.records(entityName))
        let keyed = Self.inKeyOrder(ids)
        var found = Set<RecordID>()
        for (key, id) in keyed where try get(recordsDB, key) != nil { found.insert(id) }
        return found
    }

    /// In key order (see ``inKeyOrder(_:)``).
    func records(_ entityName: String, ids: [RecordID]) throws -> [RecordID: Record] {
        let entity = try entity(entityName)
        let recordsDB = try database(LMDBLayout.records(entityName))
        let keyed = Self.inKeyOrder(ids)
        var found: [RecordID: Record] = [:]
        found.reserveCapacity(keyed.count)
        for (key, id) in keyed {
            if let bytes = try get(recordsDB, key) { found[id] = try decodeRecord(bytes, id: id, entity) }
        }
        return found
    }

    /// In key order; each record's checksum checked, its values not decoded.
    func versions(_ entityName: String, ids: [RecordID]) throws -> [RecordID: Int64] {
        let entity = try entity(entityName)
        let recordsDB = try database(LMDBLayout.records(entityName))
        let keyed = Self.inKeyOrder(ids)
        var found: [RecordID: Int64] = [:]
        found.reserveCapacity(keyed.count)
        for (key, id) in keyed {
            if let bytes = try get(recordsDB, key) { found[id] = try RecordCodec.version(bytes, id: id, entity) }
        }
        return found
    }

    func referrers(_ entityName: String, property: String, to target: RecordID) throws -> [RecordID] {
        let entity = try entity(entityName)
        guard entity.indexedProperties.contains(property) else {
            throw StrataError(.invalidQuery, entity: entityName, property: property, "\(property) is not indexed")
        }
        guard let key = LMDBKeys.lookupID(target) else { return [] }
        return try duplicates(try database(LMDBLayout.index(entityName, property)), [1] + key)
            .map { try LMDBKeys.decodeID($0, kind: entity.idKind) }
    }

    func links(_ entity: String, relationship: String, from owner: RecordID) throws -> [RecordID] {
        guard let key = LMDBKeys.lookupID(owner),
            let bytes = try get(try database(LMDBLayout.links(entity, relationship)), key)
        else { return [] }
        return try LMDBKeys.decodeIDs(bytes)
    }

    func linkOwners(_ entityName: String, relationship: String, to target: RecordID) throws -> [RecordID] {
        let kind = try entity(entityName).idKind
        guard let key = LMDBKeys.lookupID(target) else { return [] }
        return try duplicates(try database(LMDBLayout.linkOwners(entityName, relationship)), key)
            .map { try LMDBKeys.decodeID($0, kind: kind) }
    }

    func metadata(_ key: String) throws -> [UInt8]? {
        try get(try database(LMDBLayout.meta), Array(key.utf8))
    }

    func metadata(prefix: String, after: String?, limit: Int?) throws -> [(key: String, value: [UInt8])] {
        var entries: [(key: String, value: [UInt8])] = []
        let prefixBytes = Array(prefix.utf8)
        try scan(try database(LMDBLayout.meta), from: prefixBytes) { key, value in
            guard key.starts(with: prefixBytes) else { return false }
            let text = String(decoding: key, as: UTF8.self)
            if let after, text <= after { return true }
            entries.append((text, value))
            return limit.map { entries.count < $0 } ?? true
        }
        return entries
    }
}
