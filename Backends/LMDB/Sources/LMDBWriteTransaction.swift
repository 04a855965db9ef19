import CLMDB
import Foundation
import StrataStorage

/// The single write transaction: records, their index entries, link lists and metadata change together.
final class LMDBWriteTransaction: LMDBReadTransaction, StorageWriteTransaction {
    private func put(_ dbi: MDB_dbi, _ key: [UInt8], _ value: [UInt8]) throws {
        var keyVal = MDB_val()
        var dataVal = MDB_val()
        let code: Int32 = key.withUnsafeBytes { rawKey in
            value.withUnsafeBytes { rawValue in
                keyVal = MDB_val(mv_size: rawKey.count, mv_data: UnsafeMutableRawPointer(mutating: rawKey.baseAddress))
                dataVal = MDB_val(
                    mv_size: rawValue.count, mv_data: UnsafeMutableRawPointer(mutating: rawValue.baseAddress))
                return mdb_put(txn, dbi, &keyVal, &dataVal, 0)
            }
        }
        try check(code)
    }

    /// Deletes `key` (with a value: that one duplicate). Missing is not an error.
    private func remove(_ dbi: MDB_dbi, _ key: [UInt8], _ value: [UInt8]? = nil) throws {
        var keyVal = MDB_val()
        var dataVal = MDB_val()
        let code: Int32 = key.withUnsafeBytes { rawKey in
            keyVal = MDB_val(mv_size: rawKey.count, mv_data: UnsafeMutableRawPointer(mutating: rawKey.baseAddress))
            guard let value else { return mdb_del(txn, dbi, &keyVal, nil) }
            return value.withUnsafeBytes { rawValue in
                dataVal = MDB_val(
                    mv_size: rawValue.count, mv_data: UnsafeMutableRawPointer(mutating: rawValue.baseAddress))
                return mdb_del(txn, dbi, &keyVal, &dataVal)
            }
        }
        if code != MDB_NOTFOUND { try check(code) }
    }

    private func updateIndexes(
        _ entity: EntityDescription, id: [UInt8], old: Record?, new: Record?, indexed: [String]? = nil
    ) throws {
        for property in indexed ?? Array(entity.indexedProperties) {
            let oldKey = old.map { LMDBKeys.indexKey(entity, property, $0[property]) }
            let newKey = new.map { LMDBKeys.indexKey(entity, property, $0[property]) }
            guard oldKey != newKey else { continue }
            let dbi = try database(LMDBLayout.index(entity.name, property))
            if let oldKey { try remove(dbi, oldKey, id) }
            if let newKey { try put(dbi, newKey, id) }
        }
    }

    /// Fills new index databases for `properties` from the stored records (a migration that adds
    /// an index and changes nothing else).
    /// Builds the index entries of `properties` from every stored record, 4,096 records at a
    /// time, calling `checkpoint` after each (a shadow copy's migration commits there).
    func buildIndexes(_ entity: EntityDescription, _ properties: [String], checkpoint: () throws -> Void = {}) throws {
        var last: [UInt8]?
        var more = true
        while more {
            var entries: [(key: [UInt8], id: [UInt8])] = []
            var records = 0
            more = false
            // A scan starts at the first key at or after `last`: the one done already is skipped.
            try scan(try database(LMDBLayout.records(entity.name)), from: last) { key, bytes in
                if key == last { return true }
                let record = try decodeRecord(bytes, id: try LMDBKeys.decodeID(key, kind: entity.idKind), entity)
                for property in properties {
                    entries.append((LMDBKeys.indexKey(entity, property, record[property]), key))
                }
                last = key
                records += 1
                if records >= 4_096 { more = true }
                return !more
            }
            for (position, property) in properties.enumerated() {
                let dbi = try database(LMDBLayout.index(entity.name, property))
                for (offset, entry) in entries.enumerated() where offset % properties.count == position {
                    try put(dbi, entry.key, entry.id)
                }
            }
            try checkpoint()
        }
    }

    func put(_ record: Record) throws {
        let entity = try entity(record.entity)
        try put(
            record, key: try LMDBKeys.id(record.id), entity, try database(LMDBLayout.records(entity.name)),
            indexed: Array(entity.indexedProperties))
    }

    private func put(
        _ record: Record, key: [UInt8], _ entity: EntityDescription, _ recordsDB: MDB_dbi, indexed: [String]
    ) throws {
        let old = try get(recordsDB, key).map { try decodeRecord($0, id: record.id, entity) }
        try put(recordsDB, key, RecordCodec.encode(record, entity))
        try updateIndexes(entity, id: key, old: old, new: record, indexed: indexed)
    }

    /// In key order: consecutive puts land on neighbouring B-tree pages, which LMDB has just
    /// copied for this transaction, instead of dirtying a fresh page per record.
    func put(contentsOf records: [Record]) throws {
        let keyed = try records.map { (key: try LMDBKeys.id($0.id), record: $0) }
            .sorted {
                $0.record.entity != $1.record.entity
                    ? $0.record.entity < $1.record.entity : LMDBKeys.precedes($0.key, $1.key)
            }
        // The entity, its records database and its indexed properties, once per entity.
        var current: (entity: EntityDescription, db: MDB_dbi, indexed: [String])?
        for (key, record) in keyed {
            if current?.entity.name != record.entity {
                let entity = try entity(record.entity)
                current = (entity, try database(LMDBLayout.records(entity.name)), Array(entity.indexedProperties))
            }
            guard let current else { continue }
            try put(record, key: key, current.entity, current.db, indexed: current.indexed)
        }
    }

    /// In key order, for the same locality as ``put(contentsOf:)``; the entity, its databases and
    /// its index databases are looked up once for the whole set.
    func delete(_ entityName: String, ids: [RecordID]) throws {
        let entity = try entity(entityName)
        let keyed = ids.compactMap { id in LMDBKeys.lookupID(id).map { (key: $0, id: id) } }.sorted {
            LMDBKeys.precedes($0.key, $1.key)
        }
        guard !keyed.isEmpty else { return }  // no record has such an ID
        let recordsDB = try database(LMDBLayout.records(entity.name))
        let indexes = try entity.indexedProperties.sorted().map { property in
            (property: property, dbi: try database(LMDBLayout.index(entity.name, property)))
        }
        let linked = entity.relationships.filter(\.keepsLinkList)
        for (key, id) in keyed {
            guard let old = try get(recordsDB, key).map({ try decodeRecord($0, id: id, entity) }) else { continue }
            try remove(recordsDB, key)
            for index in indexes {
                try remove(index.dbi, LMDBKeys.indexKey(entity, index.property, old[index.property]), key)
            }
            for relationship in linked { try setLinks(entityName, relationship: relationship.name, from: id, to: []) }
        }
    }

    func delete(_ entityName: String, id: RecordID) throws { try delete(entityName, ids: [id]) }

    func setLinks(_ entity: String, relationship: String, from owner: RecordID, to targets: [RecordID]) throws {
        let listDB = try database(LMDBLayout.links(entity, relationship))
        let ownersDB = try database(LMDBLayout.linkOwners(entity, relationship))
        let ownerKey = try LMDBKeys.id(owner)
        for old in try links(entity, relationship: relationship, from: owner) {
            try remove(ownersDB, try LMDBKeys.id(old), ownerKey)
        }
        if targets.isEmpty {
            try remove(listDB, ownerKey)
        } else {
            try put(listDB, ownerKey, try LMDBKeys.encodeIDs(targets))
            for target in targets { try put(ownersDB, try LMDBKeys.id(target), ownerKey) }
        }
    }

    func setMetadata(_ key: String, _ value: [UInt8]?) throws {
        let dbi = try database(LMDBLayout.meta)
        if let value { try put(dbi, Array(key.utf8), value) } else { try remove(dbi, Array(key.utf8)) }
    }
}
