import Strata
import StrataTools

/// The changes of rules between two schema files that touch no stored record: delete rules,
/// requirements, bounds, defaults, allowed values, validation (what `strata migrate` lists apart
/// from the changes of shape).
enum BehaviourChanges {
    static func between(_ old: SchemaFile, _ new: SchemaFile) -> [String] {
        var found: [String] = []
        let oldEntities = Dictionary(old.entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        for entity in new.entities {
            guard let before = oldEntities[entity.name] ?? entity.renamedFrom.flatMap({ oldEntities[$0] }) else {
                continue
            }
            func note(_ property: String?, _ text: String) {
                found.append("\(entity.name)\(property.map { "." + $0 } ?? ""): \(text)")
            }
            if before.recordChecks != entity.recordChecks {
                note(nil, "record checks \(list(before.recordChecks)) → \(list(entity.recordChecks))")
            }
            let attributes = Dictionary(before.attributes.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
            for attribute in entity.attributes {
                guard let was = attributes[attribute.name] ?? attribute.renamedFrom.flatMap({ attributes[$0] }) else {
                    continue
                }
                if was.defaultValue != attribute.defaultValue {
                    note(attribute.name, "default \(text(was.defaultValue)) → \(text(attribute.defaultValue))")
                }
                if was.allowedValues != attribute.allowedValues {
                    note(
                        attribute.name,
                        "allowed values \(values(was.allowedValues)) → \(values(attribute.allowedValues))")
                }
                if was.rules != attribute.rules || was.customRules != attribute.customRules {
                    note(attribute.name, "validation \(rules(was)) → \(rules(attribute))")
                }
            }
            let relationships = Dictionary(before.relationships.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
            for relationship in entity.relationships {
                guard
                    let was = relationships[relationship.name]
                        ?? relationship.renamedFrom.flatMap({ relationships[$0] })
                else { continue }
                if was.deleteRule != relationship.deleteRule {
                    note(
                        relationship.name,
                        "delete rule \(was.deleteRule.rawValue) → \(relationship.deleteRule.rawValue)")
                }
                if was.isRequired != relationship.isRequired {
                    note(relationship.name, relationship.isRequired ? "now required" : "no longer required")
                }
                if was.minCount != relationship.minCount || was.maxCount != relationship.maxCount {
                    let now = bounds(relationship.minCount, relationship.maxCount)
                    note(relationship.name, "count bounds \(bounds(was.minCount, was.maxCount)) → \(now)")
                }
            }
        }
        return found
    }

    private static func list(_ names: [String]) -> String { names.isEmpty ? "none" : names.joined(separator: ", ") }
    private static func text(_ value: Value?) -> String { value.map(RecordJSON.text) ?? "none" }
    private static func values(_ values: [Value]?) -> String {
        values.map { "[" + $0.map(RecordJSON.text).joined(separator: ", ") + "]" } ?? "any"
    }
    private static func bounds(_ min: Int?, _ max: Int?) -> String {
        "\(min.map(String.init) ?? "")...\(max.map(String.init) ?? "")"
    }

    private static func rules(_ attribute: SchemaFile.Attribute) -> String {
        let described =
            attribute.rules.map { rule in
                switch rule {
                case .range(let min, let max):
                    "range(\(min.map(RecordJSON.text) ?? "")...\(max.map(RecordJSON.text) ?? ""))"
                case .length(let min, let max): "length(\(min.map(String.init) ?? "")...\(max.map(String.init) ?? ""))"
                case .pattern(let regex, let name): "pattern(\(regex))\(name.map { " named \($0)" } ?? "")"
                }
            } + attribute.customRules
        return described.isEmpty ? "none" : described.joined(separator: ", ")
    }
}
