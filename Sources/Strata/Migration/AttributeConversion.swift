import Foundation

/// How a lightweight stage turns an attribute's stored values into its new type, as Core Data's
/// inferred mapping does: conversions that cannot lose information are inferred (an integer to a
/// double while it is exact, an integer, a bool, a double or a UUID to text, a bool to an
/// integer); a lossy or parsing one — text to a number, a date or a UUID, a double to an integer —
/// is given to the stage explicitly:
///
/// ```swift
/// MigrationStage.lightweight(from: "1", to: "2", converting: [
///     .parsing("Stop", "nights"),            // "3" → 3; text that is not a number fails the migration
///     .rounding("Trip", "budget"),            // 1200.5 → 1200 (toward zero)
/// ])
/// ```
///
/// A value that does not convert fails the migration with `StrataError.Code.typeMismatch` naming
/// the entity, the record, the property and the value; the store stays as it was. Nulls stay null.
public struct AttributeConversion: Sendable {
    /// The entity, by its name in the stage's target version.
    public let entity: String
    /// The attribute, by its name in the stage's target version.
    public let attribute: String
    let convert: @Sendable (Value, AttributeType) throws -> Value?

    /// A conversion `convert` makes: it receives each stored non-null value and returns the new one
    /// (of the new type), or nil when the value does not convert.
    public static func custom(
        _ entity: String, _ attribute: String, _ convert: @escaping @Sendable (Value) throws -> Value?
    ) -> AttributeConversion {
        AttributeConversion(entity: entity, attribute: attribute) { value, _ in try convert(value) }
    }

    /// Text read as the new type, strictly: an integer or a double in Swift's own notation, `true`
    /// or `false`, a UUID, an ISO 8601 date with or without fractional seconds. Anything else
    /// (surrounding spaces included) does not convert.
    public static func parsing(_ entity: String, _ attribute: String) -> AttributeConversion {
        AttributeConversion(entity: entity, attribute: attribute) { value, type in
            guard case .string(let text) = value else { return TypeConversion.lossless(value, to: type) }
            return TypeConversion.parse(text, as: type)
        }
    }

    /// A double made an integer by `rule` (toward zero by default); one that is not finite or out
    /// of the 64-bit range does not convert.
    public static func rounding(
        _ entity: String, _ attribute: String, _ rule: FloatingPointRoundingRule = .towardZero
    ) -> AttributeConversion {
        AttributeConversion(entity: entity, attribute: attribute) { value, type in
            guard case .double(let number) = value, type == .int else {
                return TypeConversion.lossless(value, to: type)
            }
            return Int64(exactly: number.rounded(rule)).map(Value.int)
        }
    }
}

/// The conversions a lightweight stage infers, and the parsing `AttributeConversion.parsing` does.
enum TypeConversion {
    /// Whether a stage converts `from` to `to` without being told how.
    static func isLossless(from: AttributeType, to: AttributeType) -> Bool {
        switch (from, to) {
        case (.int, .double), (.int, .string), (.bool, .int), (.bool, .string), (.double, .string), (.uuid, .string),
            (.int, .decimal), (.decimal, .string):
            true
        default: false
        }
    }

    /// `value` as `type` by a lossless rule; nil when it has none or the value would lose
    /// information (an integer beyond 2^53 made a double).
    static func lossless(_ value: Value, to type: AttributeType) -> Value? {
        switch (value, type) {
        case (.int(let number), .double):
            let double = Double(number)
            return Int64(exactly: double) == number ? .double(double) : nil
        case (.int(let number), .string): return .string(String(number))
        case (.bool(let flag), .int): return .int(flag ? 1 : 0)
        case (.bool(let flag), .string): return .string(flag ? "true" : "false")
        case (.double(let number), .string): return .string(String(number))
        case (.uuid(let uuid), .string): return .string(uuid.uuidString)
        case (.int(let number), .decimal): return .decimal(Decimal(number))
        case (.decimal(let number), .string): return .string(DecimalForm.text(number))
        default: return nil
        }
    }

    /// `text` read as `type`, strictly; nil when it is not one.
    static func parse(_ text: String, as type: AttributeType) -> Value? {
        switch type {
        case .string: return .string(text)
        case .int: return Int64(text).map(Value.int)
        case .double: return Double(text).flatMap { $0.isNaN ? nil : .double($0) }
        case .bool: return text == "true" ? .bool(true) : text == "false" ? .bool(false) : nil
        case .uuid: return UUID(uuidString: text).map(Value.uuid)
        case .date:
            let plain = ISO8601DateFormatter()
            let fractional = ISO8601DateFormatter()
            fractional.formatOptions.insert(.withFractionalSeconds)
            return (fractional.date(from: text) ?? plain.date(from: text)).map(Value.date)
        case .decimal: return DecimalForm.parse(text).map(Value.decimal)
        case .file: return FileReference.isCanonical(text) ? .string(text) : nil
        // Text is not parsed into collections or documents: a custom stage says how.
        case .data, .array, .set, .dictionary, .document: return nil
        }
    }
}
