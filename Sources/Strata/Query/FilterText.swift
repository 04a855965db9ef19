import Foundation

/// The filter language in text form, for tools (`strata query --where`): the same filters as the
/// typed DSL, parsed against an entity of a schema.
///
/// ```
/// name == "Ana" && (age >= 30 || age == nil)
/// address.city in ["Lisbon", "Porto"] && email hasSuffix "@example.com" [c]
/// traveller.name contains "an" [cd] && !isFavorite == true
/// ```
///
/// - Comparisons `==` `!=` `<` `<=` `>` `>=` against a literal; `in [a, b]`; `contains`,
///   `hasPrefix`, `hasSuffix` with optional `[c]` (case-insensitive), `[d]` (diacritic-insensitive)
///   or `[cd]`; `== nil` / `!= nil`; `&&`, `||`, `!`, parentheses.
/// - A property is an attribute (composite parts dotted: `address.city`), `id`, or a to-one
///   followed by a property of its destination (`traveller.name`).
/// - Literals: `"text"` (with `\"` and `\\`), numbers, `true`, `false`, `nil`; a text literal is
///   read as the attribute's type where that is a UUID, a date (ISO 8601) or data (base64); a
///   number compared with a date is seconds since 1 January 2001 (exact to the bit).
///
/// A mistake is `StrataError.Code.invalidQuery` whose message starts with `column N:`.
///
/// A filter nests at most ``maximumDepth`` levels — each `!`, each pair of parentheses and each
/// to-one step (`traveller.name`) is one — checked while it is parsed, so a filter from outside (a
/// sync subscription, a tool's argument) can never make parsing, evaluation or SQL translation
/// recurse deeper than that.
public enum FilterText {
    /// How deep a filter may nest (`!`, parentheses, to-one steps): as deep as the sync wire's
    /// JSON may nest. Deeper is `StrataError.Code.invalidQuery` naming the limit.
    public static let maximumDepth = 64

    /// Parses a filter written as text (`budget > 100 and name hasPrefix "Lis"`) for `entity`; a mistake is
    /// `StrataError.Code.invalidQuery` naming the column.
    public static func parse(_ text: String, entity: String, schema: Schema) throws -> FilterExpression {
        var parser = Parser(characters: Array(text), schema: schema)
        guard let description = schema.entity(entity) else {
            throw StrataError(.unknownEntity, entity: entity, "\(entity) is not an entity of the store")
        }
        let expression = try parser.or(description)
        parser.skipSpaces()
        guard parser.position == parser.characters.count else { throw parser.error("expected && or || or the end") }
        return expression
    }

    struct Parser {
        let characters: [Character]
        let schema: Schema
        var position = 0
        /// How many `!`, parentheses and to-one steps enclose the position.
        var depth = 0

        init(characters: [Character], schema: Schema) {
            self.characters = characters
            self.schema = schema
        }

        func error(_ message: String, at column: Int? = nil) -> StrataError {
            StrataError(.invalidQuery, "column \((column ?? position) + 1): \(message)")
        }

        mutating func skipSpaces() {
            while position < characters.count, characters[position].isWhitespace { position += 1 }
        }

        mutating func take(_ token: String) -> Bool {
            skipSpaces()
            let symbols = Array(token)
            guard position + symbols.count <= characters.count,
                Array(characters[position..<position + symbols.count]) == symbols
            else { return false }
            // A word must not run on into a longer one (`in` is not `index`).
            if let last = symbols.last, last.isLetter, position + symbols.count < characters.count {
                let next = characters[position + symbols.count]
                if next.isLetter || next.isNumber || next == "_" { return false }
            }
            position += symbols.count
            return true
        }

        mutating func or(_ entity: EntityDescription) throws -> FilterExpression {
            var parts = [try and(entity)]
            while take("||") { parts.append(try and(entity)) }
            return parts.count == 1 ? parts[0] : .or(parts)
        }

        mutating func and(_ entity: EntityDescription) throws -> FilterExpression {
            var parts = [try unary(entity)]
            while take("&&") { parts.append(try unary(entity)) }
            return parts.count == 1 ? parts[0] : .and(parts)
        }

        /// One level deeper, or the limit's error.
        mutating func enter() throws {
            guard depth < FilterText.maximumDepth else {
                throw error(
                    "the filter nests deeper than \(FilterText.maximumDepth) levels "
                        + "(each !, pair of parentheses and to-one step is one)")
            }
            depth += 1
        }

        mutating func unary(_ entity: EntityDescription) throws -> FilterExpression {
            if take("!") {
                try enter()
                defer { depth -= 1 }
                return .not(try unary(entity))
            }
            if take("(") {
                try enter()
                defer { depth -= 1 }
                let inner = try or(entity)
                guard take(")") else { throw error("expected )") }
                return inner
            }
            return try comparison(entity)
        }

        mutating func identifier() throws -> String {
            skipSpaces()
            let start = position
            while position < characters.count,
                characters[position].isLetter || characters[position].isNumber || characters[position] == "_"
                    || characters[position] == "."
            {
                position += 1
            }
            guard position > start else { throw error("expected a property name") }
            return String(characters[start..<position])
        }

        mutating func comparison(_ entity: EntityDescription) throws -> FilterExpression {
            skipSpaces()
            let column = position
            let path = try identifier()
            // A to-one first, then a property of its destination.
            if let dot = path.firstIndex(of: "."), let relationship = entity.relationship(String(path[..<dot])),
                relationship.isToOne,
                let destination = schema.entity(relationship.destination)
            {
                var inner = self
                inner.position = column + path.distance(from: path.startIndex, to: dot) + 1
                try inner.enter()
                let expression = try inner.comparison(destination)
                inner.depth -= 1
                self.position = inner.position
                return .relatedOne(relationship: relationship.name, expression)
            }
            let type: AttributeType?
            if path == "id" {
                type = nil
            } else if let attribute = entity.attribute(path) {
                type = attribute.type
            } else if let relationship = entity.relationship(path), relationship.isToOne {
                type = nil
            } else {
                throw error("\(path) is not a property of \(entity.name)", at: column)
            }
            let idKind: RecordID.Kind? =
                path == "id"
                ? entity.idKind : entity.relationship(path).flatMap { schema.entity($0.destination)?.idKind }
            for op in [TextOperator.contains, .hasPrefix, .hasSuffix] where take(op.rawValue) {
                guard type == .string else {
                    throw error("\(op.rawValue) needs a text attribute; \(path) is not one", at: column)
                }
                guard case .string(let needle) = try literal(type: .string, idKind: nil) else {
                    throw error("expected a text literal")
                }
                return .text(path, op, needle, try options())
            }
            if take("in") {
                guard take("[") else { throw error("expected [ after in") }
                var values: [Value] = []
                if !take("]") {
                    repeat { values.append(try literal(type: type, idKind: idKind)) } while take(",")
                    guard take("]") else { throw error("expected , or ]") }
                }
                return .inList(path, values, try options())
            }
            for op in [ComparisonOperator.lessOrEqual, .greaterOrEqual, .equal, .notEqual, .less, .greater]
            where take(op.rawValue) {
                skipSpaces()
                let valueColumn = position
                let value = try literal(type: type, idKind: idKind)
                if value.isNull {
                    switch op {
                    case .equal: return .isNil(path)
                    case .notEqual: return .not(.isNil(path))
                    default: throw error("nil compares only with == and !=", at: valueColumn)
                    }
                }
                return .compare(path, op, value, try options())
            }
            throw error("expected an operator (== != < <= > >= in contains hasPrefix hasSuffix)")
        }

        mutating func options() throws -> TextOptions {
            skipSpaces()
            guard position < characters.count, characters[position] == "[" else { return [] }
            // `[c]`, `[d]`, `[cd]` — but not the start of an `in` list.
            var lookahead = position + 1
            var found: TextOptions = []
            while lookahead < characters.count, characters[lookahead] == "c" || characters[lookahead] == "d" {
                found.insert(characters[lookahead] == "c" ? .caseInsensitive : .diacriticInsensitive)
                lookahead += 1
            }
            guard lookahead < characters.count, characters[lookahead] == "]", !found.isEmpty else { return [] }
            position = lookahead + 1
            return found
        }

        mutating func literal(type: AttributeType?, idKind: RecordID.Kind?) throws -> Value {
            skipSpaces()
            let column = position
            if take("nil") { return .null }
            if take("true") { return .bool(true) }
            if take("false") { return .bool(false) }
            guard position < characters.count else { throw error("expected a value") }
            if characters[position] == "\"" {
                position += 1
                var text = ""
                while position < characters.count, characters[position] != "\"" {
                    if characters[position] == "\\", position + 1 < characters.count { position += 1 }
                    text.append(characters[position])
                    position += 1
                }
                guard position < characters.count else { throw error("the text has no closing quote", at: column) }
                position += 1
                switch (type, idKind) {
                case (.uuid?, _), (nil, .uuid?):
                    guard let uuid = UUID(uuidString: text) else {
                        throw error("\"\(text)\" is not a UUID", at: column)
                    }
                    return .uuid(uuid)
                case (.date?, _):
                    guard let date = ISO8601DateFormatter().date(from: text) ?? Self.day(text) else {
                        throw error("\"\(text)\" is not an ISO 8601 date", at: column)
                    }
                    return .date(date)
                case (.data?, _):
                    guard let data = Data(base64Encoded: text) else {
                        throw error("\"\(text)\" is not base64", at: column)
                    }
                    return .data(data)
                default:
                    return .string(text)
                }
            }
            let start = position
            while position < characters.count, characters[position].isNumber || "+-.eE".contains(characters[position]) {
                position += 1
            }
            let number = String(characters[start..<position])
            // A number for a date is seconds since 2001 (as wire format 2 writes dates): exact.
            if type == .date, let seconds = Double(number), !number.isEmpty {
                return .date(Date(timeIntervalSinceReferenceDate: seconds))
            }
            if let integer = Int64(number), type != .double { return .int(integer) }
            if let double = Double(number), !number.isEmpty { return .double(double) }
            position = start
            throw error("expected a value (\"text\", a number, true, false or nil)", at: column)
        }

        static func day(_ text: String) -> Date? {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withFullDate]
            return formatter.date(from: text)
        }
    }
}
