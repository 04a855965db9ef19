import Foundation

/// The canonical JSON text of arrays, sets, dictionaries and documents — what SQLite stores as
/// `TEXT`, PostgreSQL as `jsonb`, the JSON file, exports and schema files embed — and reading it
/// back by the attribute's types.
///
/// - Elements use each scalar type's JSON form (``JSONValueForm``): strings, numbers, booleans,
///   dates as seconds since 2001-01-01, UUIDs as text, bytes as base64, decimals as exact text.
/// - Dictionaries and documents have their object keys sorted by Unicode scalar value and no
///   insignificant space, so equal values are equal text.
/// - A document's numbers are written as integers when they are whole and within ±2^53 (so `1.0`
///   and `1` are the same document), otherwise in Swift's shortest round-trip form.
package enum CollectionForm {
    /// The canonical JSON text of an array, dictionary or document value; `nil` for a scalar.
    package static func text(_ value: Value) -> String? {
        var out = ""
        switch value {
        case .array(let elements):
            out.append("[")
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(",") }
                scalar(element, into: &out)
            }
            out.append("]")
        case .dictionary(let entries):
            out.append("{")
            for (index, key) in entries.keys.sorted(by: { Value.compareStrings($0, $1) == .ascending }).enumerated() {
                if index > 0 { out.append(",") }
                string(key, into: &out)
                out.append(":")
                scalar(entries[key] ?? .null, into: &out)
            }
            out.append("}")
        case .document(let text):
            return text
        default:
            return nil
        }
        return out
    }

    /// The value `text` holds as an attribute of `type` (with `element` for collections), or `nil`
    /// when it is not JSON of that shape.
    package static func value(json text: String, type: AttributeType, element: AttributeType?) -> Value? {
        guard let parsed = try? ExactJSON.parse(text) else { return nil }
        return value(parsed: parsed, type: type, element: element)
    }

    /// The value an already parsed JSON tree holds (see ``ExactJSON``), or `nil`.
    package static func value(parsed: Any, type: AttributeType, element: AttributeType?) -> Value? {
        switch type {
        case .array, .set:
            guard let items = parsed as? [Any], let element else { return nil }
            var elements: [Value] = []
            elements.reserveCapacity(items.count)
            for item in items {
                guard let value = JSONValueForm.value(item, type: element), !value.isNull else { return nil }
                elements.append(value)
            }
            return .array(elements)
        case .dictionary:
            guard let object = parsed as? [String: Any], let element else { return nil }
            var entries: [String: Value] = [:]
            for (key, item) in object {
                guard let value = JSONValueForm.value(item, type: element), !value.isNull else { return nil }
                entries[key] = value
            }
            return .dictionary(entries)
        case .document:
            var out = ""
            canonical(parsed, into: &out)
            return .document(out)
        default:
            return nil
        }
    }

    /// A JSON text in canonical form (text in NFC, keys sorted, numbers as above), or `nil` when it
    /// is not JSON.
    package static func canonicalDocument(_ text: String) -> String? {
        guard let parsed = try? ExactJSON.parse(text) else { return nil }
        var out = ""
        canonical(parsed, into: &out)
        return out
    }

    /// The document's value at `path` (object keys, outermost first) as a scalar: a string,
    /// boolean or number (an integer when whole and within ±2^53); null when the path is missing
    /// or holds null; an object or array as a `.document` of its canonical text (never equal to a
    /// scalar).
    package static func value(at path: [String], in document: String) -> Value {
        guard var current = try? ExactJSON.parse(document) else { return .null }
        for key in path {
            guard let object = current as? [String: Any], let next = object[key] else { return .null }
            current = next
        }
        return scalar(parsed: current)
    }

    package static func scalar(parsed: Any) -> Value {
        if parsed is NSNull { return .null }
        if type(of: parsed) == Bool.self, let flag = parsed as? Bool { return .bool(flag) }
        if let text = parsed as? String { return .string(ValueRules.nfc(text)) }
        if let number = parsed as? NSNumber {
            if String(cString: number.objCType) == "c" { return .bool(number.boolValue) }
            if let integer = wholeNumber(number) { return .int(integer) }
            return .double(number.doubleValue)
        }
        var out = ""
        canonical(parsed, into: &out)
        return .document(out)
    }

    /// A number as an integer when it is one: exact 64-bit integers, and whole doubles within ±2^53.
    private static func wholeNumber(_ number: NSNumber) -> Int64? {
        let type = String(cString: number.objCType)
        if type != "d" && type != "f" { return number.int64Value }
        let double = number.doubleValue
        guard double.rounded() == double, abs(double) <= 9_007_199_254_740_992 else { return nil }
        return Int64(double)
    }

    private static func canonical(_ parsed: Any, into out: inout String) {
        if let object = parsed as? [String: Any] {
            var entries: [(String, Any)] = object.map { (ValueRules.nfc($0.key), $0.value) }
            entries.sort { Value.compareStrings($0.0, $1.0) == .ascending }
            out.append("{")
            for (index, entry) in entries.enumerated() {
                if index > 0 { out.append(",") }
                string(entry.0, into: &out)
                out.append(":")
                canonical(entry.1, into: &out)
            }
            out.append("}")
        } else if let items = parsed as? [Any] {
            out.append("[")
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(",") }
                canonical(item, into: &out)
            }
            out.append("]")
        } else {
            switch scalar(parsed: parsed) {
            case .null: out.append("null")
            case .bool(let flag): out.append(flag ? "true" : "false")
            case .int(let number): out.append(String(number))
            case .double(let number): out.append(String(number))
            case .string(let text): string(text, into: &out)
            default: out.append("null")
            }
        }
    }

    /// One scalar element in its type's JSON form.
    package static func scalar(_ value: Value, into out: inout String) {
        switch value {
        case .null: out.append("null")
        case .bool(let flag): out.append(flag ? "true" : "false")
        case .int(let number): out.append(String(number))
        case .double(let number) where number.isNaN: string("NaN", into: &out)
        case .double(let number) where number.isInfinite: string(number > 0 ? "Infinity" : "-Infinity", into: &out)
        case .double(let number): out.append(String(number))
        case .string(let text): string(text, into: &out)
        case .date(let date): out.append(String(date.timeIntervalSinceReferenceDate))
        case .uuid(let uuid): string(uuid.uuidString, into: &out)
        case .data(let bytes): string(bytes.base64EncodedString(), into: &out)
        case .decimal(let number): string(DecimalForm.text(number), into: &out)
        case .array, .dictionary, .document: out.append(text(value) ?? "null")
        }
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped, the rest as is.
    package static func string(_ text: String, into out: inout String) {
        out.append("\"")
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out.append("\\\"")
            case "\\": out.append("\\\\")
            case "\n": out.append("\\n")
            case "\r": out.append("\\r")
            case "\t": out.append("\\t")
            case _ where scalar.value < 0x20:
                out.append("\\u00")
                out.append(scalar.value < 0x10 ? "0" : "1")
                out.append(String(scalar.value & 0xF, radix: 16))
            default: out.unicodeScalars.append(scalar)
            }
        }
        out.append("\"")
    }
}
