import Foundation

/// The JSON form of a ``SchemaFile``: values typed by their attribute (as in an export's record
/// lines: dates as seconds since 2001, UUIDs as text, data as base64, non-finite doubles as
/// `"NaN"`, `"Infinity"`, `"-Infinity"`); false flags and empty lists left out.
extension SchemaFile {
    /// The file's bytes: JSON with sorted keys, so one schema always encodes to the same bytes.
    public func encoded(pretty: Bool = false) -> [UInt8] {
        var root: [String: Any] = ["strata": "schema", "format": format, "entities": entities.map(\.json)]
        if let version { root["version"] = version }
        let options: JSONSerialization.WritingOptions = pretty ? [.sortedKeys, .prettyPrinted] : [.sortedKeys]
        return (try? Array(JSONSerialization.data(withJSONObject: root, options: options))) ?? []
    }

    /// Reads a file's bytes. Anything malformed is ``StrataError/Code/invalidSchema`` naming where
    /// (`path`, the entity and the property) and what was expected.
    public static func decode(_ bytes: [UInt8], path: String) throws -> SchemaFile {
        let reader = Reader(path: path)
        guard let root = try? ExactJSON.parse(Data(bytes)) as? [String: Any] else {
            throw reader.fail(nil, nil, "is not a JSON object")
        }
        guard root["strata"] as? String == "schema" else {
            throw reader.fail(nil, nil, "is not a Strata schema file (no \"strata\": \"schema\")")
        }
        let format = root["format"] as? Int ?? 0
        guard format == 1 else { throw reader.fail(nil, nil, "has format \(format); this Strata reads format 1") }
        try reader.refuseUnknownKeys(root, Reader.rootKeys, nil, nil, in: "the file")
        guard let entities = root["entities"] as? [[String: Any]] else {
            throw reader.fail(nil, nil, "has no list of entities")
        }
        var file = SchemaFile(version: root["version"] as? String, entities: [])
        file.entities = try entities.enumerated().map { try reader.entity($1, at: $0) }
        return file
    }

    init(version: String?, entities: [Entity]) {
        self.version = version
        self.entities = entities
    }
}

extension SchemaFile.Entity {
    var json: [String: Any] {
        var out: [String: Any] = [
            "name": name, "idKind": idKind.rawValue, "attributes": attributes.map(\.json),
            "relationships": relationships.map(\.json),
        ]
        if !indexes.isEmpty { out["indexes"] = indexes }
        if !uniqueConstraints.isEmpty { out["uniqueConstraints"] = uniqueConstraints }
        if !recordChecks.isEmpty { out["recordChecks"] = recordChecks }
        if let renamedFrom { out["renamedFrom"] = renamedFrom }
        if !searchIndexes.isEmpty {
            out["searchIndexes"] = searchIndexes.map { index in
                [
                    "name": index.name,
                    "fields": index.fields.map { ["attribute": $0.attribute, "weight": $0.weight] as [String: Any] },
                ] as [String: Any]
            }
        }
        return out
    }
}

extension SchemaFile.Attribute {
    var json: [String: Any] {
        var out: [String: Any] = ["name": name, "type": type.rawValue]
        if let element { out["element"] = element.rawValue }
        if let derived { out["derived"] = derived }
        if isOptional { out["isOptional"] = true }
        if isIndexed { out["isIndexed"] = true }
        if let defaultValue { out["defaultValue"] = SchemaFile.json(defaultValue) }
        if let allowedValues { out["allowedValues"] = allowedValues.map(SchemaFile.json) }
        if !rules.isEmpty {
            out["rules"] = rules.map { rule -> [String: Any] in
                switch rule {
                case .range(let min, let max):
                    var item: [String: Any] = ["kind": "range"]
                    if let min { item["min"] = SchemaFile.json(min) }
                    if let max { item["max"] = SchemaFile.json(max) }
                    return item
                case .length(let min, let max):
                    var item: [String: Any] = ["kind": "length"]
                    if let min { item["min"] = min }
                    if let max { item["max"] = max }
                    return item
                case .pattern(let regex, let name):
                    var item: [String: Any] = ["kind": "pattern", "pattern": regex]
                    if let name { item["name"] = name }
                    return item
                }
            }
        }
        if !customRules.isEmpty { out["customRules"] = customRules }
        if let renamedFrom { out["renamedFrom"] = renamedFrom }
        return out
    }
}

extension SchemaFile.Relationship {
    var json: [String: Any] {
        var out: [String: Any] = [
            "name": name, "destination": destination, "cardinality": cardinality.rawValue,
            "deleteRule": deleteRule.rawValue,
        ]
        if let inverse { out["inverse"] = inverse }
        if isOrdered { out["isOrdered"] = true }
        if isRequired { out["isRequired"] = true }
        if let minCount { out["minCount"] = minCount }
        if let maxCount { out["maxCount"] = maxCount }
        if let renamedFrom { out["renamedFrom"] = renamedFrom }
        return out
    }
}

extension SchemaFile {
    /// A value as JSONSerialization writes it (the forms of `JSONValueForm`).
    static func json(_ value: Value) -> Any {
        switch value {
        case .null: return NSNull()
        case .bool(let flag): return flag
        case .int(let number): return number
        case .double(let number):
            if number.isNaN { return "NaN" }
            if number.isInfinite { return number > 0 ? "Infinity" : "-Infinity" }
            return number
        case .string(let text): return text
        case .date(let date): return date.timeIntervalSinceReferenceDate
        case .uuid(let uuid): return uuid.uuidString
        case .data(let data): return data.base64EncodedString()
        case .decimal(let number): return DecimalForm.text(number)
        case .array, .dictionary, .document:
            return (try? ExactJSON.parse(CollectionForm.text(value) ?? "null")) ?? NSNull()
        }
    }

    /// Reads the parts of a file, naming where a part is malformed.
    struct Reader {
        let path: String

        func fail(_ entity: String?, _ property: String?, _ text: String) -> StrataError {
            let place = [entity, property].compactMap { $0 }.joined(separator: ".")
            return StrataError(
                .invalidSchema, entity: entity, property: property,
                "\(path)\(place.isEmpty ? "" : ": \(place)") \(text)")
        }

        func entity(_ json: [String: Any], at position: Int) throws -> SchemaFile.Entity {
            guard let name = json["name"] as? String else { throw fail(nil, nil, "entities[\(position)] has no name") }
            try refuseUnknownKeys(json, Self.entityKeys, name, nil, in: "an entity")
            let kindText = json["idKind"] as? String ?? "uuid"
            guard let idKind = RecordID.Kind(rawValue: kindText) else {
                throw fail(name, nil, "has idKind \"\(kindText)\"; expected uuid, string or int")
            }
            let attributes = try list(json["attributes"], name, "attributes").map { try attribute($0, in: name) }
            let relationships = try list(json["relationships"], name, "relationships").map {
                try relationship($0, in: name)
            }
            return SchemaFile.Entity(
                name: name, idKind: idKind, attributes: attributes, relationships: relationships,
                indexes: try names(json["indexes"], name, "indexes"),
                uniqueConstraints: try names(json["uniqueConstraints"], name, "uniqueConstraints"),
                recordChecks: json["recordChecks"] as? [String] ?? [], renamedFrom: json["renamedFrom"] as? String,
                searchIndexes: try searchIndexes(json["searchIndexes"], name))
        }

        private func searchIndexes(_ raw: Any?, _ entity: String) throws -> [SearchIndexDescription] {
            try list(raw, entity, "searchIndexes").map { json in
                try refuseUnknownKeys(json, Self.searchIndexKeys, entity, nil, in: "a full-text index")
                guard let name = json["name"] as? String else {
                    throw fail(entity, nil, "a full-text index has no name")
                }
                let fields = try list(json["fields"], entity, "searchIndexes.fields").map { field in
                    try refuseUnknownKeys(field, Self.searchFieldKeys, entity, nil, in: "a full-text index's field")
                    guard let attribute = field["attribute"] as? String else {
                        throw fail(entity, nil, "a field of full-text index \(name) has no attribute")
                    }
                    let weight = field["weight"].map { $0 as? Double ?? ($0 as? Int).map(Double.init) ?? .nan } ?? 1
                    return SearchIndexDescription.Field(attribute, weight: weight)
                }
                return SearchIndexDescription(name: name, fields: fields)
            }
        }

        private func list(_ raw: Any?, _ entity: String, _ key: String) throws -> [[String: Any]] {
            guard let raw else { return [] }
            guard let items = raw as? [[String: Any]] else {
                throw fail(entity, nil, "\(key) is not a list of objects")
            }
            return items
        }

        private func names(_ raw: Any?, _ entity: String, _ key: String) throws -> [[String]] {
            guard let raw else { return [] }
            guard let items = raw as? [[String]] else {
                throw fail(entity, nil, "\(key) is not a list of lists of property names")
            }
            return items
        }

        private func attribute(_ json: [String: Any], in entity: String) throws -> SchemaFile.Attribute {
            guard let name = json["name"] as? String else { throw fail(entity, nil, "has an attribute without a name") }
            try refuseUnknownKeys(json, Self.attributeKeys, entity, name, in: "an attribute")
            let typeText = json["type"] as? String ?? ""
            guard let type = AttributeType(rawValue: typeText) else {
                throw fail(
                    entity, name,
                    "has type \"\(typeText)\"; expected one of "
                        + AttributeType.allCases.map(\.rawValue).joined(separator: ", ")
                )
            }
            var element: AttributeType?
            if let elementText = json["element"] {
                guard let text = elementText as? String, let kind = AttributeType(rawValue: text), kind.isScalar else {
                    throw fail(entity, name, "has element \(elementText); expected a scalar type")
                }
                element = kind
            }
            func value(_ raw: Any, _ what: String) throws -> Value {
                let read =
                    type.isScalar
                    ? JSONValueForm.value(raw, type: type)
                    : raw is NSNull ? .null : CollectionForm.value(parsed: raw, type: type, element: element)
                guard let value = read else {
                    throw fail(entity, name, "\(what) is not a \(type.rawValue) value")
                }
                return value
            }
            var rules: [SchemaFile.Rule] = []
            for item in json["rules"] as? [[String: Any]] ?? [] {
                try refuseUnknownKeys(item, Self.ruleKeys, entity, name, in: "a rule")
                switch item["kind"] as? String {
                case "range":
                    rules.append(
                        .range(
                            min: try item["min"].map { try value($0, "a range's min") },
                            max: try item["max"].map { try value($0, "a range's max") }))
                case "length":
                    rules.append(.length(min: item["min"] as? Int, max: item["max"] as? Int))
                case "pattern":
                    guard let regex = item["pattern"] as? String else {
                        throw fail(entity, name, "has a pattern rule without a pattern")
                    }
                    guard item["name"] == nil || item["name"] is String else {
                        throw fail(entity, name, "has a pattern rule whose name is not a string")
                    }
                    rules.append(.pattern(regex, name: item["name"] as? String))
                default:
                    throw fail(
                        entity, name,
                        "has a rule of kind \(item["kind"].map { "\"\($0)\"" } ?? "none"); "
                            + "expected range, length or pattern"
                    )
                }
            }
            var derived: String?
            if let text = json["derived"] {
                guard let text = text as? String, Derivation(recorded: text) != nil else {
                    throw fail(entity, name, "has derived \(text); expected count(…), folded(…) or function(…)")
                }
                derived = text
            }
            var attribute = SchemaFile.Attribute(
                name: name, type: type, isOptional: json["isOptional"] as? Bool ?? false,
                isIndexed: json["isIndexed"] as? Bool ?? false,
                defaultValue: try json["defaultValue"].map { try value($0, "defaultValue") },
                allowedValues: try (json["allowedValues"] as? [Any]).map {
                    try $0.map { try value($0, "an allowed value") }
                },
                rules: rules, customRules: json["customRules"] as? [String] ?? [],
                renamedFrom: json["renamedFrom"] as? String, element: element)
            attribute.derived = derived
            return attribute
        }

        private func relationship(_ json: [String: Any], in entity: String) throws -> SchemaFile.Relationship {
            guard let name = json["name"] as? String else {
                throw fail(entity, nil, "has a relationship without a name")
            }
            try refuseUnknownKeys(json, Self.relationshipKeys, entity, name, in: "a relationship")
            guard let destination = json["destination"] as? String else {
                throw fail(entity, name, "has no destination")
            }
            let cardinalityText = json["cardinality"] as? String ?? ""
            guard let cardinality = RelationshipDescription.Cardinality(rawValue: cardinalityText) else {
                throw fail(entity, name, "has cardinality \"\(cardinalityText)\"; expected toOne or toMany")
            }
            let ruleText = json["deleteRule"] as? String ?? DeleteRule.nullify.rawValue
            guard let deleteRule = DeleteRule(rawValue: ruleText) else {
                throw fail(
                    entity, name,
                    "has deleteRule \"\(ruleText)\"; expected one of "
                        + DeleteRule.allCases.map(\.rawValue).joined(separator: ", ")
                )
            }
            return SchemaFile.Relationship(
                name: name, destination: destination, inverse: json["inverse"] as? String, cardinality: cardinality,
                isOrdered: json["isOrdered"] as? Bool ?? false, deleteRule: deleteRule,
                isRequired: json["isRequired"] as? Bool ?? false,
                minCount: json["minCount"] as? Int, maxCount: json["maxCount"] as? Int,
                renamedFrom: json["renamedFrom"] as? String)
        }
    }
}
