import Foundation

/// The forms of an exact decimal (``Value/decimal(_:)``, Foundation's `Decimal`: up to 38
/// significant digits) that every backend shares:
///
/// - **canonical**: trailing zeros of the significand dropped (1.10 is stored as 1.1), so equal
///   numbers are the same value everywhere — equality, hashing, unique constraints and index keys
///   agree;
/// - **text**: `Decimal`'s own POSIX text ("-12.5"), what exports, schema files and the sync wire
///   carry;
/// - **sortable key**: ASCII whose byte order is the numeric order, what SQLite stores and LMDB keys
///   hold, so a plain text or `memcmp` comparison, an index and a range are numeric. A number
///   0.d₁d₂…dₙ × 10ᴱ (d₁ and dₙ not zero) is `3`, E + 500 in three digits, the digits and `!`;
///   zero is `2`; a negative number is `1`, 499 − E in three digits, each digit's complement (9 − d)
///   and `~`. The terminators make every key prefix-free, so a key followed by another still sorts
///   by the first.
public enum DecimalForm {
    /// `value` with its significand's trailing zeros dropped.
    public static func canonical(_ value: Decimal) -> Decimal {
        guard !value.isNaN, !value.isZero else { return value.isZero ? 0 : value }
        let (digits, exponent) = parts(value)
        if digits.count == value.significand.description.count { return value }
        return make(value.sign, digits, exponent)
    }

    /// Whether `value` is already canonical (the common case, which costs no allocation beyond the
    /// significand's text).
    public static func isCanonical(_ value: Decimal) -> Bool {
        value.isNaN || (value.isZero ? value.exponent == 0 : value.significand.description.last != "0")
    }

    /// How many significant digits `value` has (its significand without trailing zeros): a value
    /// of more than 38 cannot be stored.
    package static func significantDigitCount(_ value: Decimal) -> Int {
        value.isZero || value.isNaN ? 0 : parts(value).digits.count
    }

    /// The significand's digits without trailing zeros, and the exponent that goes with them.
    static func parts(_ value: Decimal) -> (digits: Substring, exponent: Int) {
        let text = value.significand.description
        var digits = Substring(text)
        var exponent = value.exponent
        while digits.count > 1, digits.last == "0" {
            digits.removeLast()
            exponent += 1
        }
        return (digits, exponent)
    }

    static func make(_ sign: FloatingPointSign, _ digits: Substring, _ exponent: Int) -> Decimal {
        let significand = Decimal(string: String(digits), locale: Locale(identifier: "en_US_POSIX")) ?? 0
        return Decimal(sign: sign, exponent: exponent, significand: significand)
    }

    /// The POSIX text of `value` ("-12.5").
    public static func text(_ value: Decimal) -> String {
        NSDecimalNumber(decimal: value).description(withLocale: Locale(identifier: "en_US_POSIX"))
    }

    /// The decimal a POSIX text holds, or `nil` when it is not one entirely.
    public static func parse(_ text: String) -> Decimal? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard isNumeral(trimmed), significantDigits(trimmed) <= 38,
            let value = Decimal(string: trimmed, locale: Locale(identifier: "en_US_POSIX")), !value.isNaN
        else { return nil }
        return canonical(value)
    }

    /// The significant digits of a numeral's mantissa: more than 38 would be rounded by `Decimal`,
    /// so such text is refused rather than read as another number.
    static func significantDigits(_ numeral: String) -> Int {
        let mantissa = numeral.prefix { $0 != "e" && $0 != "E" }.filter(\.isNumber)
        return mantissa.drop { $0 == "0" }.reversed().drop { $0 == "0" }.count
    }

    /// Whether `text` is a whole numeral: a sign, digits with at most one point (a digit on one
    /// side of it), and an exponent with digits — `Decimal(string:)` alone reads "1.2.3" as 1.2.
    static func isNumeral(_ text: String) -> Bool {
        var bytes = Array(text.utf8)[...]
        func digits() -> Int {
            let count = bytes.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }.count
            bytes = bytes.dropFirst(count)
            return count
        }
        if bytes.first == UInt8(ascii: "+") || bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        var mantissa = digits()
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            mantissa += digits()
        }
        guard mantissa > 0 else { return false }
        if bytes.first == UInt8(ascii: "e") || bytes.first == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if bytes.first == UInt8(ascii: "+") || bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
            guard digits() > 0 else { return false }
        }
        return bytes.isEmpty
    }

    /// The sortable key of a non-NaN `value`.
    public static func sortableKey(_ value: Decimal) -> String {
        if value.isZero { return "2" }
        let (digits, exponent) = parts(value)
        let magnitude = exponent + digits.count  // value = 0.digits × 10^magnitude
        if value.sign == .plus {
            return "3" + threeDigits(magnitude + 500) + digits + "!"
        }
        let complemented = String(digits.map { Character(String(9 - ($0.wholeNumberValue ?? 0))) })
        return "1" + threeDigits(499 - magnitude) + complemented + "~"
    }

    /// The decimal a sortable key holds, or `nil` when the text is not one.
    public static func fromSortableKey(_ key: String) -> Decimal? {
        let bytes = Array(key.utf8)
        if bytes == [UInt8(ascii: "2")] { return 0 }
        guard bytes.count >= 6, let first = bytes.first, first == UInt8(ascii: "1") || first == UInt8(ascii: "3"),
            let field = Int(String(decoding: bytes[1..<4], as: UTF8.self))
        else { return nil }
        let negative = first == UInt8(ascii: "1")
        guard bytes.last == UInt8(ascii: negative ? "~" : "!") else { return nil }
        let body = bytes[4..<(bytes.count - 1)]
        guard !body.isEmpty, body.count <= 40, body.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        let digits = Substring(
            String(
                decoding: negative ? body.map { UInt8(ascii: "9") - ($0 - UInt8(ascii: "0")) } : Array(body),
                as: UTF8.self))
        guard digits.first != "0", digits.last != "0" else { return nil }
        let magnitude = negative ? 499 - field : field - 500
        return make(negative ? .minus : .plus, digits, magnitude - digits.count)
    }

    private static func threeDigits(_ number: Int) -> String {
        let text = String(number)
        return String(repeating: "0", count: max(0, 3 - text.count)) + text
    }
}
