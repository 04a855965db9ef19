import Foundation
import Strata

/// The human-readable document: stable key order (sorted), entities and records sorted, format
/// version and schema fingerprint at the top.
///
/// ```json
/// { "entities" : { "Person" : { "<id>" : { "values" : { … }, "version" : 1 } } },
///   "format" : 1, "links" : { "Trip.stops" : { "<id>" : [ … ] } }, "metadata" : { … }, "schema" : "…" }
/// ```
enum JSONDocument {
    static let formatVersion = 1

    /// The whole state readable through `transaction`, as document bytes.
    static func encode(from transaction: any StorageReadTransaction) throws -> Data {
        let schema = transaction.schema
        var entities: [String: Any] = [:]
        var links: [String: Any] = [:]
        for entity in schema.entities {
            let records = try transaction.fetch(FetchPlan(entity: entity.name))
            var byID: [String: Any] = [:]
            for record in records {
                var values: [String: Any] = [:]
                for (name, value) in record.values { values[name] = JSONValues.encode(value) }
                byID[JSONValues.idKey(record.id)] = ["version": record.version, "values": values]
            }
            entities[entity.name] = byID
            for relationship in entity.relationships where relationship.storage == .links || relationship.storage == .orderedLinks {
                var lists: [String: Any] = [:]
                for record in records {
                    let targets = try transaction.links(entity.name, relationship: relationship.name, from: record.id)
                    if !targets.isEmpty { lists[JSONValues.idKey(record.id)] = targets.map(JSONValues.idValue) }
                }
                links["\(entity.name).\(relationship.name)"] = lists
            }
        }
        var metadata: [String: Any] = [:]
        for entry in try transaction.metadata(prefix: "", after: nil, limit: nil) {
            metadata[entry.key] = Data(entry.value).base64EncodedString()
        }
        let document: [String: Any] = [
            "format": formatVersion, "schema": schema.fingerprint, "entities": entities, "links": links, "metadata": metadata,
        ]
        var data = try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        data.append(0x0A)
        return data
    }

    /// The operations that rebuild a store from document bytes; typed errors for anything else.
    static func operations(_ data: Data, path: String, schema: Schema) throws -> [JSONOperation] {
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw StrataError(.notAStore, underlying: error, "\(path) is not JSON")
        }
        guard let document = parsed as? [String: Any], let format = document["format"] as? Int,
            let entities = document["entities"] as? [String: Any]
        else { throw StrataError(.notAStore, "\(path) is JSON but not a Strata document") }
        guard format <= formatVersion else {
            throw StrataError(.incompatibleStore, "\(path) was written in document format \(format); this version reads \(formatVersion)")
        }
        guard document["schema"] as? String == schema.fingerprint else {
            throw StrataError(.incompatibleStore, "\(path) was written with a different schema (migrations are not supported yet)")
        }
        var operations: [JSONOperation] = []
        for (name, rawRecords) in entities {
            guard let entity = schema.entity(name), let records = rawRecords as? [String: Any] else {
                throw StrataError(.corruptStore, entity: name, "\(path): entity \(name) is not in the schema or malformed")
            }
            for (key, rawRecord) in records {
                guard let id = JSONValues.id(key, kind: entity.idKind), let fields = rawRecord as? [String: Any],
                    let version = (fields["version"] as? NSNumber)?.int64Value, let values = fields["values"] as? [String: Any]
                else { throw StrataError(.corruptStore, entity: name, "\(path): record \(key) is malformed") }
                operations.append(.put(try record(entity, id: id, version: version, values: values, schema: schema)))
            }
        }
        for (path, rawLists) in document["links"] as? [String: Any] ?? [:] {
            guard let dot = path.firstIndex(of: "."), let entity = schema.entity(String(path[..<dot])),
                let relationship = entity.relationship(String(path[path.index(after: dot)...])),
                let destination = schema.entity(relationship.destination), let lists = rawLists as? [String: Any]
            else { throw StrataError(.corruptStore, "link list \(path) is not in the schema") }
            for (key, rawTargets) in lists {
                guard let owner = JSONValues.id(key, kind: entity.idKind), let targets = rawTargets as? [Any] else {
                    throw StrataError(.corruptStore, "link list \(path)/\(key) is malformed")
                }
                let ids = try targets.map { item -> RecordID in
                    guard let id = JSONValues.id(json: item, kind: destination.idKind) else { throw StrataError(.corruptStore, "link target in \(path) is malformed") }
                    return id
                }
                operations.append(.links(entity: entity.name, relationship: relationship.name, owner: owner, targets: ids))
            }
        }
        for (key, rawValue) in document["metadata"] as? [String: Any] ?? [:] {
            guard let text = rawValue as? String, let data = Data(base64Encoded: text) else {
                throw StrataError(.corruptStore, "metadata \(key) is malformed")
            }
            operations.append(.metadata(key: key, value: Array(data)))
        }
        return operations
    }

    static func record(_ entity: EntityDescription, id: RecordID, version: Int64, values raw: [String: Any], schema: Schema) throws -> Record {
        var values: [String: Value] = [:]
        for attribute in entity.attributes {
            values[attribute.name] = try JSONValues.decode(raw[attribute.name], as: attribute.type, "\(entity.name)(\(id)).\(attribute.name)")
        }
        for relationship in entity.relationships where relationship.isToOne {
            let kind = schema.entity(relationship.destination)?.idKind ?? .uuid
            values[relationship.name] = JSONValues.id(json: raw[relationship.name], kind: kind)?.value ?? .null
        }
        return Record(entity: entity.name, id: id, version: version, values: values)
    }
}
