import Foundation
import StrataStorage

/// The human-readable document: stable key order (sorted), entities and records sorted, format
/// version and schema fingerprint at the top.
///
/// ```json
/// { "entities" : { "Person" : { "<id>" : { "values" : { … }, "version" : 1 } } },
///   "format" : 1, "links" : { "Trip.stops" : { "<id>" : [ … ] } }, "metadata" : { … }, "schema" : "…" }
/// ```
enum JSONDocument {
    static let formatVersion = 1

    /// The whole state readable through `transaction`, as document bytes: format and schema first,
    /// then entities, records (one line each, so a diff shows one line per changed record), link
    /// lists and metadata, every level sorted.
    static func encode(from transaction: any StorageReadTransaction) throws -> Data {
        let schema = transaction.schema
        var text = JSONText()
        text.raw("{\n  \"format\": \(formatVersion),\n  \"schema\": ")
        text.string(schema.fingerprint)
        text.raw(",\n  \"entities\": {")
        var linkLists: [(String, [(RecordID, [RecordID])])] = []
        for (entityIndex, entity) in schema.entities.sorted(by: { $0.name < $1.name }).enumerated() {
            let records = try transaction.fetch(FetchPlan(entity: entity.name)).sorted {
                $0.id.description < $1.id.description
            }
            text.raw(entityIndex == 0 ? "\n    " : ",\n    ")
            text.string(entity.name)
            text.raw(": {")
            for (index, record) in records.enumerated() {
                text.raw(index == 0 ? "\n      " : ",\n      ")
                text.string(JSONValues.idKey(record.id))
                text.raw(": {\"version\": \(record.version), \"values\": ")
                text.values(of: record)
                text.raw("}")
            }
            text.raw(records.isEmpty ? "}" : "\n    }")
            for relationship in entity.relationships where relationship.keepsLinkList {
                var lists: [(RecordID, [RecordID])] = []
                for record in records {
                    let targets = try transaction.links(entity.name, relationship: relationship.name, from: record.id)
                    if !targets.isEmpty { lists.append((record.id, targets)) }
                }
                linkLists.append(("\(entity.name).\(relationship.name)", lists))
            }
        }
        text.raw("\n  },\n  \"links\": {")
        for (listIndex, (name, lists)) in linkLists.sorted(by: { $0.0 < $1.0 }).enumerated() {
            text.raw(listIndex == 0 ? "\n    " : ",\n    ")
            text.string(name)
            text.raw(": {")
            for (index, (owner, targets)) in lists.enumerated() {
                text.raw(index == 0 ? "\n      " : ",\n      ")
                text.string(JSONValues.idKey(owner))
                text.raw(": [")
                for (position, target) in targets.enumerated() {
                    if position > 0 { text.raw(", ") }
                    text.id(target)
                }
                text.raw("]")
            }
            text.raw(lists.isEmpty ? "}" : "\n    }")
        }
        text.raw(linkLists.isEmpty ? "},\n  \"metadata\": {" : "\n  },\n  \"metadata\": {")
        let metadata = try transaction.metadata(prefix: "", after: nil, limit: nil)
        for (index, entry) in metadata.enumerated() {
            text.raw(index == 0 ? "\n    " : ",\n    ")
            text.string(entry.key)
            text.raw(": ")
            text.string(Data(entry.value).base64EncodedString())
        }
        text.raw(metadata.isEmpty ? "}" : "\n  }")
        return Data(text.bytes + JSONIntegrity.closing(body: text.bytes))
    }

    /// The operations that rebuild a store from document bytes; typed errors for anything else.
    static func operations(_ data: Data, path: String, schema: Schema) throws -> [JSONOperation] {
        let (document, description) = try checkedDocument(data, path: path)
        try StoredSchema.check(description: description, schema: schema, path: path)
        return try operations(document: document, path: path, schema: schema)
    }

    /// The document's entities and the schema description it records, once its format and digest
    /// are checked (what an attach reads, without a schema).
    static func checkedDocument(_ data: Data, path: String) throws -> (document: [String: Any], description: [UInt8]?) {
        let parsed: Any
        do {
            parsed = try ExactJSON.parse(data)
        } catch {
            throw StrataError(.notAStore, underlying: error, "\(path) is not JSON")
        }
        guard let document = parsed as? [String: Any], let format = document["format"] as? Int,
            document["entities"] is [String: Any]
        else { throw StrataError(.notAStore, "\(path) is JSON but not a Strata document") }
        guard format == formatVersion else {
            throw StrataError(
                .incompatibleStore,
                "\(path) was written in document format \(format); this version reads \(formatVersion)")
        }
        // A document without a digest has only the five known keys: a damaged `digest` key
        // cannot turn the check off.
        let known: Set<String> = ["format", "schema", "entities", "links", "metadata"]
        try JSONIntegrity.checkDigest(data, declared: !Set(document.keys).isSubset(of: known), path: path)
        let description = (document["metadata"] as? [String: Any])?[SchemaDescription.metadataKey]
            .flatMap { $0 as? String }.flatMap { Data(base64Encoded: $0) }.map { Array($0) }
        return (document, description)
    }

    private static func operations(document: [String: Any], path: String, schema: Schema) throws -> [JSONOperation] {
        let entities = document["entities"] as? [String: Any] ?? [:]
        var operations: [JSONOperation] = []
        for (name, rawRecords) in entities {
            guard let entity = schema.entity(name), let records = rawRecords as? [String: Any] else {
                throw StrataError(
                    .corruptStore, entity: name, "\(path): entity \(name) is not in the schema or malformed")
            }
            for (key, rawRecord) in records {
                guard let id = JSONValues.id(key, kind: entity.idKind), let fields = rawRecord as? [String: Any],
                    let version = (fields["version"] as? NSNumber)?.int64Value,
                    let values = fields["values"] as? [String: Any]
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
                    guard let id = JSONValues.id(json: item, kind: destination.idKind) else {
                        throw StrataError(.corruptStore, "link target in \(path) is malformed")
                    }
                    return id
                }
                operations.append(
                    .links(entity: entity.name, relationship: relationship.name, owner: owner, targets: ids))
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

    static func record(
        _ entity: EntityDescription, id: RecordID, version: Int64, values raw: [String: Any], schema: Schema
    ) throws -> Record {
        var slots: [Value] = []
        slots.reserveCapacity(entity.layout.count)
        for attribute in entity.attributes {
            slots.append(
                try JSONValues.decode(
                    raw[attribute.name], as: attribute.type, element: attribute.element,
                    "\(entity.name)(\(id)).\(attribute.name)"))
        }
        for relationship in entity.relationships where relationship.isToOne {
            let kind = schema.entity(relationship.destination)?.idKind ?? .uuid
            slots.append(JSONValues.id(json: raw[relationship.name], kind: kind)?.value ?? .null)
        }
        return Record(entity: entity.name, id: id, version: version, layout: entity.layout, slots: slots)
    }
}
