import CLMDB
import Foundation
import Strata

/// The named databases of a store, by role.
struct LMDBLayout: Sendable {
    let schema: Schema

    static func records(_ entity: String) -> String { "r/\(entity)" }
    static func index(_ entity: String, _ property: String) -> String { "i/\(entity)/\(property)" }
    static func links(_ entity: String, _ relationship: String) -> String { "l/\(entity)/\(relationship)" }
    static func linkOwners(_ entity: String, _ relationship: String) -> String { "o/\(entity)/\(relationship)" }
    static let meta = "meta"

    /// Every named database, and whether it keeps duplicates (the secondary indexes do).
    var databases: [(name: String, duplicates: Bool)] {
        var specs: [(String, Bool)] = [(Self.meta, false)]
        for entity in schema.entities {
            specs.append((Self.records(entity.name), false))
            for property in entity.indexedProperties.sorted() { specs.append((Self.index(entity.name, property), true)) }
            for relationship in entity.relationships where relationship.keepsLinkList {
                specs.append((Self.links(entity.name, relationship.name), false))
                specs.append((Self.linkOwners(entity.name, relationship.name), true))
            }
        }
        return specs
    }
}

/// Reads inside one LMDB transaction (read-only, or the write transaction).
class LMDBReadTransaction: StorageReadTransaction {
    let txn: OpaquePointer
    let environment: LMDBEnvironment
    let schema: Schema

    init(txn: OpaquePointer, environment: LMDBEnvironment, schema: Schema) {
        self.txn = txn
        self.environment = environment
        self.schema = schema
    }

    func database(_ name: String) throws -> MDB_dbi {
        guard let dbi = environment.databases[name] else { throw StrataError(.unknownEntity, "no database \(name) in this store") }
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
        try scan(dbi, from: key) { candidate, value in
            guard candidate == key else { return false }
            found.append(value)
            return true
        }
        return found
    }

    // MARK: StorageReadTransaction

    func record(_ entityName: String, id: RecordID) throws -> Record? {
        let entity = try entity(entityName)
        guard let key = LMDBKeys.lookupID(id), let bytes = try get(try database(LMDBLayout.records(entityName)), key) else { return nil }
        return try RecordCodec.decode(bytes, id: id, entity)
    }

    func fetch(_ plan: FetchPlan) throws -> [Record] {
        if let page = try sortedByIndex(plan) { return page }
        return PredicateEvaluator.sortAndPage(try matching(plan), plan)
    }

    /// A page sorted by one indexed attribute of fixed-size type, read in index order and stopped
    /// as soon as the page is full. Nulls sit first in the index (the contract's ascending order);
    /// descending walks keys backwards but each key's IDs forwards, keeping the ID tie-break.
    private func sortedByIndex(_ plan: FetchPlan) throws -> [Record]? {
        guard let limit = plan.limit, plan.sort.count == 1, let key = plan.sort.first else { return nil }
        let entity = try entity(plan.entity)
        guard let attribute = entity.attribute(key.property), LMDBKeys.supportsRanges(attribute.type),
            entity.indexedProperties.contains(key.property)
        else { return nil }
        let index = try database(LMDBLayout.index(entity.name, key.property))
        let recordsDB = try database(LMDBLayout.records(entity.name))
        let evaluator = PredicateEvaluator(self)
        var page: [Record] = []
        var skipped = 0
        var cursor: OpaquePointer?
        try check(mdb_cursor_open(txn, index, &cursor))
        defer { mdb_cursor_close(cursor) }
        var keyVal = MDB_val()
        var dataVal = MDB_val()
        // Visits every ID of the key under the cursor, in ID order; false once the page is full.
        func visitKey() throws -> Bool {
            var code = mdb_cursor_get(cursor, &keyVal, &dataVal, MDB_FIRST_DUP)
            while code == 0 {
                let idBytes = Array(UnsafeRawBufferPointer(start: dataVal.mv_data, count: dataVal.mv_size))
                let id = try LMDBKeys.decodeID(idBytes, kind: entity.idKind)
                if let bytes = try get(recordsDB, idBytes) {
                    let record = try RecordCodec.decode(bytes, id: id, entity)
                    if try plan.predicate.map({ try evaluator.matches(record, $0) }) ?? true {
                        if skipped < plan.offset { skipped += 1 } else { page.append(record) }
                        if page.count >= limit { return false }
                    }
                }
                code = mdb_cursor_get(cursor, &keyVal, &dataVal, MDB_NEXT_DUP)
            }
            if code != MDB_NOTFOUND { try check(code) }
            return true
        }
        if limit == 0 { return [] }
        var code = mdb_cursor_get(cursor, &keyVal, &dataVal, key.ascending ? MDB_FIRST : MDB_LAST)
        while code == 0 {
            guard try visitKey() else { break }
            code = mdb_cursor_get(cursor, &keyVal, &dataVal, key.ascending ? MDB_NEXT_NODUP : MDB_PREV_NODUP)
        }
        if code != 0 && code != MDB_NOTFOUND { try check(code) }
        return page
    }

    func count(_ plan: FetchPlan) throws -> Int {
        try matching(plan).count
    }

    /// Candidates from a secondary index when a conjunct pins an indexed property (equality, a
    /// list, or a range over a fixed-size type), else the whole entity; then the exact predicate.
    private func matching(_ plan: FetchPlan) throws -> [Record] {
        let entity = try entity(plan.entity)
        let recordsDB = try database(LMDBLayout.records(entity.name))
        var candidates: [Record] = []
        // Lookups by ID read the records database directly, and need no further evaluation.
        switch plan.predicate {
        case .compare("id", .equal, let value, [])?:
            return try RecordID(value).flatMap { try record(entity.name, id: $0) }.map { [$0] } ?? []
        case .inList("id", let values, [])?:
            return try Set(values.compactMap(RecordID.init)).compactMap { try record(entity.name, id: $0) }
        default:
            break
        }
        if let predicate = plan.predicate, let ids = try indexedCandidates(predicate, entity) {
            for id in Set(ids) {
                if let bytes = try get(recordsDB, try LMDBKeys.id(id)) { candidates.append(try RecordCodec.decode(bytes, id: id, entity)) }
            }
        } else {
            try scan(recordsDB, from: nil) { key, value in
                candidates.append(try RecordCodec.decode(value, id: try LMDBKeys.decodeID(key, kind: entity.idKind), entity))
                return true
            }
        }
        guard let predicate = plan.predicate else { return candidates }
        let evaluator = PredicateEvaluator(self)
        return try candidates.filter { try evaluator.matches($0, predicate) }
    }

    private func indexedCandidates(_ predicate: FilterExpression, _ entity: EntityDescription) throws -> [RecordID]? {
        func index(_ property: String) throws -> MDB_dbi? {
            entity.indexedProperties.contains(property) ? try database(LMDBLayout.index(entity.name, property)) : nil
        }
        func normalized(_ property: String, _ value: Value) -> Value {
            if entity.attribute(property)?.type == .double, case .int(let number) = value { return .double(Double(number)) }
            return value
        }
        func ids(_ dbi: MDB_dbi, _ value: Value, _ property: String) throws -> [RecordID] {
            try duplicates(dbi, LMDBKeys.indexKey(normalized(property, value))).map { try LMDBKeys.decodeID($0, kind: entity.idKind) }
        }
        func rangeAllowed(_ property: String) -> Bool {
            if let attribute = entity.attribute(property) { return LMDBKeys.supportsRanges(attribute.type) }
            return false
        }
        func range(_ dbi: MDB_dbi, _ property: String, lower: Value?, upper: Value?) throws -> [RecordID] {
            // Ranges never include nulls: start after the null key.
            let lowerKey = lower.map { LMDBKeys.indexKey(normalized(property, $0)) } ?? [1]
            let upperKey = upper.map { LMDBKeys.indexKey(normalized(property, $0)) }
            var found: [RecordID] = []
            try scan(dbi, from: lowerKey) { key, value in
                if let upperKey, key.lexicographicallyPrecedes(upperKey) == false, key != upperKey { return false }
                found.append(try LMDBKeys.decodeID(value, kind: entity.idKind))
                return true
            }
            return found
        }
        switch predicate {
        case .compare(let property, .equal, let value, []) where !value.isNull:
            guard let dbi = try index(property) else { return nil }
            return try ids(dbi, value, property)
        case .inList(let property, let values, []) where !values.contains(where: \.isNull):
            guard let dbi = try index(property) else { return nil }
            return try values.flatMap { try ids(dbi, $0, property) }
        case .between(let property, let lower, let upper) where rangeAllowed(property):
            guard let dbi = try index(property) else { return nil }
            return try range(dbi, property, lower: lower, upper: upper)
        case .compare(let property, let op, let value, []) where op != .equal && op != .notEqual && !value.isNull && rangeAllowed(property):
            guard let dbi = try index(property) else { return nil }
            switch op {
            case .greater, .greaterOrEqual: return try range(dbi, property, lower: value, upper: nil)
            default: return try range(dbi, property, lower: nil, upper: value)
            }
        case .and(let parts):
            for part in parts { if let found = try indexedCandidates(part, entity) { return found } }
            return nil
        default:
            return nil
        }
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
        guard let key = LMDBKeys.lookupID(owner), let bytes = try get(try database(LMDBLayout.links(entity, relationship)), key) else { return [] }
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

/// The single write transaction: records, their index entries, link lists and metadata change together.
final class LMDBWriteTransaction: LMDBReadTransaction, StorageWriteTransaction {
    private func put(_ dbi: MDB_dbi, _ key: [UInt8], _ value: [UInt8]) throws {
        var keyVal = MDB_val()
        var dataVal = MDB_val()
        let code: Int32 = key.withUnsafeBytes { rawKey in
            value.withUnsafeBytes { rawValue in
                keyVal = MDB_val(mv_size: rawKey.count, mv_data: UnsafeMutableRawPointer(mutating: rawKey.baseAddress))
                dataVal = MDB_val(mv_size: rawValue.count, mv_data: UnsafeMutableRawPointer(mutating: rawValue.baseAddress))
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
                dataVal = MDB_val(mv_size: rawValue.count, mv_data: UnsafeMutableRawPointer(mutating: rawValue.baseAddress))
                return mdb_del(txn, dbi, &keyVal, &dataVal)
            }
        }
        if code != MDB_NOTFOUND { try check(code) }
    }

    private func updateIndexes(_ entity: EntityDescription, id: [UInt8], old: Record?, new: Record?) throws {
        for property in entity.indexedProperties {
            let oldKey = old.map { LMDBKeys.indexKey(indexValue(entity, property, $0[property])) }
            let newKey = new.map { LMDBKeys.indexKey(indexValue(entity, property, $0[property])) }
            guard oldKey != newKey else { continue }
            let dbi = try database(LMDBLayout.index(entity.name, property))
            if let oldKey { try remove(dbi, oldKey, id) }
            if let newKey { try put(dbi, newKey, id) }
        }
    }

    /// References index under the destination ID's key encoding, attributes under their value's.
    private func indexValue(_ entity: EntityDescription, _ property: String, _ value: Value) -> Value {
        if entity.attribute(property)?.type == .double, case .int(let number) = value { return .double(Double(number)) }
        return value
    }

    func put(_ record: Record) throws {
        let entity = try entity(record.entity)
        let key = try LMDBKeys.id(record.id)
        let recordsDB = try database(LMDBLayout.records(entity.name))
        let old = try get(recordsDB, key).map { try RecordCodec.decode($0, id: record.id, entity) }
        try put(recordsDB, key, RecordCodec.encode(record, entity))
        try updateIndexes(entity, id: key, old: old, new: record)
    }

    func delete(_ entityName: String, id: RecordID) throws {
        let entity = try entity(entityName)
        let key = try LMDBKeys.id(id)
        let recordsDB = try database(LMDBLayout.records(entity.name))
        guard let old = try get(recordsDB, key).map({ try RecordCodec.decode($0, id: id, entity) }) else { return }
        try remove(recordsDB, key)
        try updateIndexes(entity, id: key, old: old, new: nil)
        for relationship in entity.relationships where relationship.keepsLinkList {
            try setLinks(entityName, relationship: relationship.name, from: id, to: [])
        }
    }

    func setLinks(_ entity: String, relationship: String, from owner: RecordID, to targets: [RecordID]) throws {
        let listDB = try database(LMDBLayout.links(entity, relationship))
        let ownersDB = try database(LMDBLayout.linkOwners(entity, relationship))
        let ownerKey = try LMDBKeys.id(owner)
        for old in try links(entity, relationship: relationship, from: owner) { try remove(ownersDB, try LMDBKeys.id(old), ownerKey) }
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
