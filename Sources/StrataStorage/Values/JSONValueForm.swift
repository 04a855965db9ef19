import Foundation

/// The JSON form of each attribute type, read back from what `JSONSerialization` hands over:
/// strings, integers, booleans; doubles as numbers (`"NaN"`, `"Infinity"`, `"-Infinity"` as
/// strings); dates as seconds since 2001-01-01; UUIDs as strings; data as base64; decimals as their
/// exact text ("12.5", a string: a JSON number would pass through a double); null as null.
/// Schema files' default values and `RecordJSON` lines share it.
package enum JSONValueForm {
    /// `raw` as a value of `type`, or `nil` when it is not that type's JSON form.
    package static func value(_ raw: Any, type: AttributeType) -> Value? {
        if raw is NSNull { return .null }
        switch type {
        case .bool:
            return boolean(raw).map(Value.bool)
        case .int:
            guard boolean(raw) == nil, let number = raw as? NSNumber, number.stringValue == String(number.int64Value)
            else { return nil }
            return .int(number.int64Value)
        case .double: return double(raw).map(Value.double)
        case .date: return double(raw).map { .date(Date(timeIntervalSinceReferenceDate: $0)) }
        case .string: return (raw as? String).map(Value.string)
        case .uuid: return (raw as? String).flatMap(UUID.init(uuidString:)).map(Value.uuid)
        case .data: return (raw as? String).flatMap { Data(base64Encoded: $0) }.map(Value.data)
        case .decimal: return (raw as? String).flatMap(DecimalForm.parse).map(Value.decimal)
        case .file: return (raw as? String).flatMap { FileReference.isCanonical($0) ? Value.string($0) : nil }
        case .array, .set, .dictionary, .document: return nil  // see CollectionForm: they need an element type
        }
    }

    /// `raw` as a value of `attribute` — a scalar's form above, or an array's, set's, dictionary's
    /// or document's JSON (``CollectionForm``) — or `nil` when it is not one.
    package static func value(_ raw: Any, attribute: AttributeDescription) -> Value? {
        if attribute.type.isScalar { return value(raw, type: attribute.type) }
        if raw is NSNull { return .null }
        return CollectionForm.value(parsed: raw, type: attribute.type, element: attribute.element)
    }

    /// A JSON `true`/`false` as JSONSerialization hands it over (a `Bool`, or an `NSNumber`
    /// whose type is a boolean's), never a number 0 or 1.
    private static func boolean(_ raw: Any) -> Bool? {
        if type(of: raw) == Bool.self { return raw as? Bool }
        guard let number = raw as? NSNumber, String(cString: number.objCType) == "c" else { return nil }
        return number.boolValue
    }

    private static func double(_ raw: Any) -> Double? {
        if let text = raw as? String {
            switch text {
            case "NaN": return .nan
            case "Infinity": return .infinity
            case "-Infinity": return -.infinity
            default: return nil
            }
        }
        guard boolean(raw) == nil, let number = raw as? NSNumber else { return nil }
        return number.doubleValue
    }

    package static func recordID(_ raw: Any, kind: RecordID.Kind) -> RecordID? {
        switch kind {
        case .uuid: return (raw as? String).flatMap(UUID.init(uuidString:)).map(RecordID.uuid)
        case .string: return (raw as? String).map(RecordID.string)
        case .int:
            guard boolean(raw) == nil, let number = raw as? NSNumber, number.stringValue == String(number.int64Value)
            else { return nil }
            return .int(number.int64Value)
        }
    }
}
