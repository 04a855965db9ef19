import Foundation
import StrataStorage

/// One storage change, as the journal records it. Every operation carries a full state (a whole
/// record, a whole link list, a whole metadata value), so replaying one twice is harmless.
enum JSONOperation {
    case put(Record)
    case delete(entity: String, id: RecordID)
    case links(entity: String, relationship: String, owner: RecordID, targets: [RecordID])
    case metadata(key: String, value: [UInt8]?)

    /// Appends this operation as one compact JSON object.
    func write(to text: inout JSONText) {
        switch self {
        case .put(let record):
            text.raw("{\"put\": ")
            text.string(record.entity)
            text.raw(", \"id\": ")
            text.id(record.id)
            text.raw(", \"version\": \(record.version), \"values\": ")
            text.values(of: record)
            text.raw("}")
        case .delete(let entity, let id):
            text.raw("{\"delete\": ")
            text.string(entity)
            text.raw(", \"id\": ")
            text.id(id)
            text.raw("}")
        case .links(let entity, let relationship, let owner, let targets):
            text.raw("{\"links\": ")
            text.string("\(entity).\(relationship)")
            text.raw(", \"id\": ")
            text.id(owner)
            text.raw(", \"targets\": [")
            for (index, target) in targets.enumerated() {
                if index > 0 { text.raw(", ") }
                text.id(target)
            }
            text.raw("]}")
        case .metadata(let key, let value):
            text.raw("{\"meta\": ")
            text.string(key)
            text.raw(", \"value\": ")
            if let value { text.string(Data(value).base64EncodedString()) } else { text.raw("null") }
            text.raw("}")
        }
    }

    static func parse(_ json: [String: Any], _ schema: Schema) throws -> JSONOperation {
        func entity(_ name: Any?) throws -> EntityDescription {
            guard let name = name as? String, let entity = schema.entity(name) else {
                throw StrataError(.corruptStore, "journal names an unknown entity \(name ?? "nil")")
            }
            return entity
        }
        if let name = json["put"] {
            let entity = try entity(name)
            guard let id = JSONValues.id(json: json["id"], kind: entity.idKind),
                let version = (json["version"] as? NSNumber)?.int64Value,
                let raw = json["values"] as? [String: Any]
            else { throw StrataError(.corruptStore, entity: entity.name, "journal put is malformed") }
            return .put(try JSONDocument.record(entity, id: id, version: version, values: raw, schema: schema))
        }
        if let name = json["delete"] {
            let entity = try entity(name)
            guard let id = JSONValues.id(json: json["id"], kind: entity.idKind) else {
                throw StrataError(.corruptStore, "journal delete is malformed")
            }
            return .delete(entity: entity.name, id: id)
        }
        if let path = json["links"] as? String, let dot = path.firstIndex(of: ".") {
            let entity = try entity(String(path[..<dot]))
            let relationshipName = String(path[path.index(after: dot)...])
            guard let relationship = entity.relationship(relationshipName),
                let destination = schema.entity(relationship.destination),
                let owner = JSONValues.id(json: json["id"], kind: entity.idKind), let raw = json["targets"] as? [Any]
            else { throw StrataError(.corruptStore, "journal links entry is malformed") }
            let targets = try raw.map { item -> RecordID in
                guard let id = JSONValues.id(json: item, kind: destination.idKind) else {
                    throw StrataError(.corruptStore, "journal link target is malformed")
                }
                return id
            }
            return .links(entity: entity.name, relationship: relationshipName, owner: owner, targets: targets)
        }
        if let key = json["meta"] as? String {
            if json["value"] is NSNull { return .metadata(key: key, value: nil) }
            guard let text = json["value"] as? String, let data = Data(base64Encoded: text) else {
                throw StrataError(.corruptStore, "journal metadata entry is malformed")
            }
            return .metadata(key: key, value: Array(data))
        }
        throw StrataError(.corruptStore, "journal entry of an unknown kind")
    }

    func apply(to transaction: any StorageWriteTransaction) throws {
        switch self {
        case .put(let record): try transaction.put(record)
        case .delete(let entity, let id): try transaction.delete(entity, id: id)
        case .links(let entity, let relationship, let owner, let targets):
            try transaction.setLinks(entity, relationship: relationship, from: owner, to: targets)
        case .metadata(let key, let value): try transaction.setMetadata(key, value)
        }
    }
}

/// Forwards to the in-memory transaction and records every change for the journal.
final class RecordingTransaction: ForwardingReadTransaction, StorageWriteTransaction {
    let inner: any StorageWriteTransaction
    private(set) var operations: [JSONOperation] = []

    init(_ inner: any StorageWriteTransaction) { self.inner = inner }

    var readsGoTo: any StorageReadTransaction { inner }

    func put(_ record: Record) throws {
        try inner.put(record)
        operations.append(.put(record))
    }
    func delete(_ entity: String, id: RecordID) throws {
        try inner.delete(entity, id: id)
        operations.append(.delete(entity: entity, id: id))
    }
    func put(contentsOf records: [Record]) throws {
        try inner.put(contentsOf: records)
        operations += records.map(JSONOperation.put)
    }
    func delete(_ entity: String, ids: [RecordID]) throws {
        try inner.delete(entity, ids: ids)
        operations += ids.map { .delete(entity: entity, id: $0) }
    }
    func setLinks(_ entity: String, relationship: String, from owner: RecordID, to targets: [RecordID]) throws {
        try inner.setLinks(entity, relationship: relationship, from: owner, to: targets)
        operations.append(.links(entity: entity, relationship: relationship, owner: owner, targets: targets))
    }
    func setMetadata(_ key: String, _ value: [UInt8]?) throws {
        try inner.setMetadata(key, value)
        operations.append(.metadata(key: key, value: value))
    }
}
