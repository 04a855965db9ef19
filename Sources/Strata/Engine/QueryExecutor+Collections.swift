import Foundation
import StrataStorage

/// Queries over arrays, sets, dictionaries and documents: how the engine reads them before any
/// backend sees the plan, and what it refuses.
extension QueryExecutor {
    /// The expression with a document's fields named as paths (`address.city` on a document
    /// attribute `address` becomes ``FilterExpression/documentPath(_:_:_:_:)``) and collection
    /// constants in their attribute's canonical form (a set's elements sorted), so every backend
    /// compares the same values.
    static func rewritingCollections(_ expression: FilterExpression, _ entity: EntityDescription) -> FilterExpression {
        func document(_ property: String) -> (String, [String])? {
            guard entity.attribute(property) == nil, let dot = property.firstIndex(of: ".") else { return nil }
            let name = String(property[..<dot])
            guard entity.attribute(name)?.type == .document else { return nil }
            return (name, property[property.index(after: dot)...].split(separator: ".").map(String.init))
        }
        func canonical(_ property: String, _ value: Value) -> Value {
            guard let attribute = entity.attribute(property), !attribute.type.isScalar else { return value }
            return ValueRules.canonical(value, type: attribute.type, element: attribute.element) ?? value
        }
        // A document holds JSON: a UUID, bytes or decimal constant is compared with the JSON form
        // `JSONEncoder` gives it (text, base64 text, a number), a date with its seconds since 2001.
        func json(_ value: Value) -> Value {
            switch value {
            case .uuid(let uuid): .string(uuid.uuidString)
            case .data(let bytes): .string(bytes.base64EncodedString())
            case .date(let date): .double(date.timeIntervalSinceReferenceDate)
            case .decimal(let number): .double(NSDecimalNumber(decimal: number).doubleValue)
            default: value
            }
        }
        switch expression {
        case .documentPath(let name, let path, let op, let constant):
            return .documentPath(name, path, op, json(constant))
        case .compare(let property, let op, let constant, let options):
            if let (name, path) = document(property) { return .documentPath(name, path, op, json(constant)) }
            return .compare(property, op, canonical(property, constant), options)
        case .inList(let property, let constants, let options):
            if let (name, path) = document(property) {
                return .or(constants.map { .documentPath(name, path, .equal, json($0)) })
            }
            return .inList(property, constants.map { canonical(property, $0) }, options)
        case .isNil(let property):
            if let (name, path) = document(property) { return .documentPath(name, path, .equal, .null) }
            return expression
        case .and(let parts): return .and(parts.map { rewritingCollections($0, entity) })
        case .or(let parts): return .or(parts.map { rewritingCollections($0, entity) })
        case .not(let inner): return .not(rewritingCollections(inner, entity))
        default: return expression
        }
    }

    /// Checks the parts of an expression that concern collections and documents; `false` when
    /// `expression` is some other kind, left to the caller.
    static func validateCollections(_ expression: FilterExpression, _ entity: EntityDescription) throws -> Bool {
        func fail(_ code: StrataError.Code, _ property: String, _ message: String) -> StrataError {
            StrataError(code, entity: entity.name, property: property, message)
        }
        func attribute(_ property: String, _ types: Set<AttributeType>, _ what: String) throws -> AttributeDescription {
            guard let attribute = entity.attribute(property) else {
                throw fail(.unknownProperty, property, "\(property) is not an attribute of \(entity.name)")
            }
            guard types.contains(attribute.type) else {
                throw fail(
                    .typeMismatch, property,
                    "\(what) needs \(property) to be a \(types.map(\.rawValue).sorted().joined(separator: " or ")), "
                        + "not a \(attribute.type.rawValue)"
                )
            }
            return attribute
        }
        func element(_ value: Value, of attribute: AttributeDescription) throws {
            let type = attribute.type == .dictionary ? AttributeType.string : attribute.element
            guard let type, !value.isNull, type.accepts(value) else {
                throw fail(
                    .typeMismatch, attribute.name,
                    "cannot look for \(value) in \(attribute.name), whose "
                        + (attribute.type == .dictionary ? "keys are string" : "elements are \(type?.rawValue ?? "?")")
                )
            }
            if let reason = ValueRules.violation(of: value) {
                throw fail(.validationFailed, attribute.name, "cannot look for \(value): \(reason)")
            }
        }
        switch expression {
        case .elements(let property, let test):
            let found = try attribute(property, [.array, .set, .dictionary], "a contains or count test")
            switch test {
            case .contains(let value): try element(value, of: found)
            case .containsAny(let values): for value in values { try element(value, of: found) }
            case .count: break
            }
            return true
        case .documentPath(let property, let path, let op, let constant):
            _ = try attribute(property, [.document], "a path")
            guard op == .equal || op == .notEqual else {
                throw fail(
                    .invalidQuery, property, "a document's fields compare with == and != only, not \(op.rawValue)")
            }
            guard !path.isEmpty, constant.isScalar else {
                throw fail(.invalidQuery, property, "a document path compares one field with a scalar")
            }
            if let reason = ValueRules.violation(of: constant) {
                throw fail(.validationFailed, property, "cannot compare \(property) with \(constant): \(reason)")
            }
            return true
        case .compare(let property, let op, _, _):
            guard let found = entity.attribute(property), !found.type.isScalar else { return false }
            guard op == .equal || op == .notEqual else {
                throw fail(
                    .invalidQuery, property,
                    "\(property) is a \(found.type.rawValue): it compares with == and != only (it has no order)")
            }
            return false
        case .between(let property, _, _), .text(let property, _, _, _):
            guard let found = entity.attribute(property), !found.type.isScalar else { return false }
            throw fail(.invalidQuery, property, "\(property) is a \(found.type.rawValue), which has no order or text")
        default:
            return false
        }
    }
}
