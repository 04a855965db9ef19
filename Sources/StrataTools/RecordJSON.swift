import Foundation
import Strata

/// Records as lines of plain JSON, typed by the schema: what `strata export` writes and
/// `strata import` reads. One object per record — `{"entity","id","version","values","links"}` —
/// with each value in the JSON form of its attribute type: strings, integers, booleans; doubles as
/// numbers (shortest form that reads back bit-exact; `"NaN"`, `"Infinity"`, `"-Infinity"` as
/// strings); dates as seconds since 2001-01-01 (bit-exact); UUIDs as strings; data as base64;
/// to-ones as the destination's ID; null as null.
public enum RecordJSON {
    /// Reads a line written by `line(_:links:entity:)`. A value of the wrong JSON kind for its
    /// attribute is `StrataError.Code.typeMismatch` naming the entity, record and property.
    public static func parse(_ line: some StringProtocol, schema: Schema) throws -> (
        record: Record, links: [String: [RecordID]]
    ) {
        guard let object = (try? ExactJSON.parse(line)) as? [String: Any] else {
            throw StrataError(.corruptStore, "the line is not a JSON object")
        }
        guard let name = object["entity"] as? String, let entity = schema.entity(name) else {
            throw StrataError(
                .unknownEntity, entity: object["entity"] as? String, "the line names no entity of the schema")
        }
        guard let rawID = object["id"], let id = JSONValueForm.recordID(rawID, kind: entity.idKind) else {
            throw StrataError(
                .typeMismatch, entity: name, property: "id", "the record's ID is not a \(entity.idKind.rawValue)")
        }
        let version = (object["version"] as? NSNumber)?.int64Value ?? 0
        var values: [String: Value] = [:]
        for (property, raw) in object["values"] as? [String: Any] ?? [:] {
            if let attribute = entity.attribute(property) {
                guard let value = JSONValueForm.value(raw, attribute: attribute) else {
                    throw StrataError(
                        .typeMismatch, entity: name, recordID: id, property: property,
                        "\(property) is not a \(attribute.type.rawValue)")
                }
                values[property] = value
            } else if let relationship = entity.relationship(property),
                let destination = schema.entity(relationship.destination)
            {
                if raw is NSNull {
                    values[property] = .null
                    continue
                }
                guard let target = JSONValueForm.recordID(raw, kind: destination.idKind) else {
                    throw StrataError(
                        .typeMismatch, entity: name, recordID: id, property: property,
                        "\(property) is not a \(destination.name) ID")
                }
                values[property] = target.value
            } else {
                throw StrataError(
                    .unknownProperty, entity: name, recordID: id, property: property,
                    "\(property) is not a property of \(name)")
            }
        }
        var links: [String: [RecordID]] = [:]
        for (property, raw) in object["links"] as? [String: Any] ?? [:] {
            guard let relationship = entity.relationship(property), relationship.keepsLinkList,
                let destination = schema.entity(relationship.destination),
                let list = raw as? [Any]
            else {
                throw StrataError(
                    .unknownProperty, entity: name, recordID: id, property: property,
                    "\(property) is not a link list of \(name)")
            }
            links[property] = try list.map {
                guard let target = JSONValueForm.recordID($0, kind: destination.idKind) else {
                    throw StrataError(
                        .typeMismatch, entity: name, recordID: id, property: property,
                        "a member of \(property) is not a \(destination.name) ID")
                }
                return target
            }
        }
        return (Record(entity: name, id: id, version: version, values: values), links)
    }
}
