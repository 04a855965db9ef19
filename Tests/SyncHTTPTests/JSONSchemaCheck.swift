import Foundation

/// A JSON value read with Foundation's decoder, booleans kept apart from numbers.
indirect enum JSONValue: Decodable, Equatable {
    case null, bool(Bool), integer(Int64), number(Double), string(String), array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let flag = try? single.decode(Bool.self) {
            self = .bool(flag)
        } else if let integer = try? single.decode(Int64.self) {
            self = .integer(integer)
        } else if let number = try? single.decode(Double.self) {
            self = .number(number)
        } else if let text = try? single.decode(String.self) {
            self = .string(text)
        } else if let elements = try? single.decode([JSONValue].self) {
            self = .array(elements)
        } else {
            self = .object(try single.decode([String: JSONValue].self))
        }
    }

    static func parse(_ bytes: [UInt8]) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
    }

    subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    var text: String? {
        if case .string(let text) = self { return text }
        return nil
    }
}

/// The part of JSON Schema 2020-12 the OpenAPI document uses: `$ref`, `anyOf`, `type`, `const`,
/// `enum`, `properties`, `required`, `additionalProperties`, `minProperties`/`maxProperties`,
/// `items`, `prefixItems`, `minItems`/`maxItems`, `minimum`, `minLength`, `pattern`. Any other
/// keyword in the document fails the check, so the checker never silently ignores a rule.
struct JSONSchemaCheck {
    let document: JSONValue
    static let known: Set<String> = [
        "$ref", "anyOf", "type", "const", "enum", "properties", "required", "additionalProperties", "minProperties",
        "maxProperties", "items", "prefixItems", "minItems", "maxItems", "minimum", "minLength", "pattern",
        "description",
    ]

    /// Why `value` does not match `schema` (empty when it does).
    func problems(_ value: JSONValue, _ schema: JSONValue, at path: String = "$") -> [String] {
        if case .bool(let allowed) = schema { return allowed ? [] : ["\(path): nothing is allowed here"] }
        guard case .object(let rules) = schema else { return ["\(path): a schema that is not an object"] }
        var found: [String] = rules.keys.filter { !Self.known.contains($0) }.map { "\(path): unknown keyword \($0)" }
        if let reference = rules["$ref"]?.text {
            guard let target = resolve(reference) else { return ["\(path): unresolved \(reference)"] }
            found += problems(value, target, at: path)
        }
        if case .array(let options)? = rules["anyOf"],
            !options.contains(where: { problems(value, $0, at: path).isEmpty })
        {
            found.append(
                "\(path): matches none of anyOf (\(options.map { problems(value, $0, at: path).first ?? "" }))")
        }
        if let type = rules["type"], !matches(value, type) { found.append("\(path): not of type \(type)") }
        if let constant = rules["const"], constant != value { found.append("\(path): not \(constant)") }
        if case .array(let allowed)? = rules["enum"], !allowed.contains(value) { found.append("\(path): not in enum") }
        found += objectProblems(value, rules, path)
        found += arrayProblems(value, rules, path)
        found += scalarProblems(value, rules, path)
        return found
    }

    private func objectProblems(_ value: JSONValue, _ rules: [String: JSONValue], _ path: String) -> [String] {
        guard case .object(let members) = value else { return [] }
        var found: [String] = []
        if case .array(let required)? = rules["required"] {
            for case .string(let name) in required where members[name] == nil { found.append("\(path): no `\(name)`") }
        }
        let properties: [String: JSONValue]
        if case .object(let declared)? = rules["properties"] { properties = declared } else { properties = [:] }
        for (name, member) in members {
            if let rule = properties[name] {
                found += problems(member, rule, at: "\(path).\(name)")
            } else if let extra = rules["additionalProperties"] {
                found += problems(member, extra, at: "\(path).\(name)")
            }
        }
        if case .integer(let least)? = rules["minProperties"], members.count < least {
            found.append("\(path): too few")
        }
        if case .integer(let most)? = rules["maxProperties"], members.count > most { found.append("\(path): too many") }
        return found
    }

    private func arrayProblems(_ value: JSONValue, _ rules: [String: JSONValue], _ path: String) -> [String] {
        guard case .array(let elements) = value else { return [] }
        var found: [String] = []
        var prefix: [JSONValue] = []
        if case .array(let declared)? = rules["prefixItems"] { prefix = declared }
        for (index, element) in elements.enumerated() {
            if index < prefix.count {
                found += problems(element, prefix[index], at: "\(path)[\(index)]")
            } else if let items = rules["items"] {
                found += problems(element, items, at: "\(path)[\(index)]")
            }
        }
        if case .integer(let least)? = rules["minItems"], elements.count < least { found.append("\(path): too short") }
        if case .integer(let most)? = rules["maxItems"], elements.count > most { found.append("\(path): too long") }
        return found
    }

    private func scalarProblems(_ value: JSONValue, _ rules: [String: JSONValue], _ path: String) -> [String] {
        var found: [String] = []
        if case .integer(let least)? = rules["minimum"] {
            switch value {
            case .integer(let number) where number < least: found.append("\(path): below \(least)")
            case .number(let number) where number < Double(least): found.append("\(path): below \(least)")
            default: break
            }
        }
        if case .string(let text) = value {
            if case .integer(let least)? = rules["minLength"], text.count < least { found.append("\(path): too short") }
            if let pattern = rules["pattern"]?.text {
                if let regex = try? Regex(pattern) {
                    if (try? regex.firstMatch(in: text)) == nil { found.append("\(path): `\(text)` not /\(pattern)/") }
                } else {
                    found.append("\(path): a pattern Swift cannot read: \(pattern)")
                }
            }
        }
        return found
    }

    private func matches(_ value: JSONValue, _ type: JSONValue) -> Bool {
        switch type {
        case .array(let types): return types.contains { matches(value, $0) }
        case .string(let name):
            switch (name, value) {
            case ("null", .null), ("boolean", .bool), ("integer", .integer), ("number", .integer), ("number", .number),
                ("string", .string), ("array", .array), ("object", .object):
                return true
            case ("integer", .number(let number)): return number == number.rounded()
            default: return false
            }
        default: return false
        }
    }

    func resolve(_ reference: String) -> JSONValue? {
        guard reference.hasPrefix("#/") else { return nil }
        var node: JSONValue? = document
        for part in reference.dropFirst(2).split(separator: "/") { node = node?[String(part)] }
        return node
    }
}
