import Foundation

/// The one ordering and equality every backend must reproduce.
///
/// - Numbers compare numerically across `int` and `double`.
/// - Sorting is total: `null` first (ascending), then values of one kind in their natural order;
///   values of different kinds order by kind (bool < number < string < date < uuid < data).
/// - Strings compare by Unicode scalar values (the order of SQLite's `BINARY` collation on UTF-8);
///   text is NFC everywhere (``ValueRules``), so this agrees with Swift's `==`.
/// - Arrays, dictionaries and documents are equal element by element (numbers numerically) but
///   have no order: `<` and friends are false for them, and sorting by one is refused.
/// - Doubles are never NaN (refused on the way in); ±infinity order as numbers.
extension Value {
    /// Equality as predicates see it: numeric across `int`/`double`, otherwise structural.
    public static func predicateEquals(_ lhs: Value, _ rhs: Value) -> Bool {
        if let exact = compareDecimals(lhs, rhs) { return exact == .same }
        switch (lhs, rhs) {
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { predicateEquals($0, $1) }
        case (.dictionary(let a), .dictionary(let b)):
            return a.count == b.count
                && a.allSatisfy { key, value in b[key].map { predicateEquals(value, $0) } ?? false }
        default: break
        }
        if let l = lhs.numericValue, let r = rhs.numericValue {
            if case .int(let a) = lhs, case .int(let b) = rhs { return a == b }
            return l == r
        }
        return lhs == rhs
    }

    /// Compares two non-null values of a comparable kind; `nil` when they do not compare
    /// (different kinds, or either is null).
    public static func compare(_ lhs: Value, _ rhs: Value) -> ComparisonOrder? {
        switch (lhs, rhs) {
        case (.int(let a), .int(let b)): return order(a, b)
        case (.bool(let a), .bool(let b)): return order(a ? 1 : 0, b ? 1 : 0)
        case (.string(let a), .string(let b)): return compareStrings(a, b)
        case (.date(let a), .date(let b)): return order(a, b)
        case (.uuid(let a), .uuid(let b)): return compareUUIDs(a, b)
        case (.data(let a), .data(let b)): return compareBytes(a, b)
        case (.decimal, _), (_, .decimal): return compareDecimals(lhs, rhs)
        default:
            if let a = lhs.numericValue, let b = rhs.numericValue { return order(a, b) }
            return nil
        }
    }

    /// The total order used for sorting (`null` first).
    public static func sortOrder(_ lhs: Value, _ rhs: Value) -> ComparisonOrder {
        if let result = compare(lhs, rhs) { return result }
        return order(lhs.kindRank, rhs.kindRank)
    }

    private var kindRank: Int {
        switch self {
        case .null: 0
        case .bool: 1
        case .int, .double, .decimal: 2
        case .string: 3
        case .date: 4
        case .uuid: 5
        case .data: 6
        case .array: 7
        case .dictionary: 8
        case .document: 9
        }
    }

    /// Compares a decimal with a decimal, an integer (exactly) or a double (through `Decimal`'s
    /// conversion of it); `nil` when neither side is a decimal or the other is not a number.
    static func compareDecimals(_ lhs: Value, _ rhs: Value) -> ComparisonOrder? {
        func exact(_ value: Value) -> Decimal? {
            switch value {
            case .decimal(let number): number
            case .int(let number): Decimal(number)
            case .double(let number) where number.isFinite: Decimal(number)
            default: nil
            }
        }
        guard case .decimal = lhs else {
            guard case .decimal = rhs, let a = exact(lhs), let b = exact(rhs) else { return nil }
            if case .double(let number) = lhs, number.isInfinite { return number < 0 ? .ascending : .descending }
            return order(a, b)
        }
        if case .double(let number) = rhs, number.isInfinite { return number < 0 ? .descending : .ascending }
        guard let a = exact(lhs), let b = exact(rhs) else { return nil }
        return order(a, b)
    }

    @inline(__always)
    static func order<T: Comparable>(_ a: T, _ b: T) -> ComparisonOrder {
        a < b ? .ascending : (a == b ? .same : .descending)
    }

    /// Unicode scalar order, which is UTF-8 byte order (what SQLite's BINARY collation, LMDB's
    /// memcmp keys and every other backend sort by). Stored text and query constants are NFC (see
    /// ``ValueRules``), so this order agrees with Swift's `==` and is the same on every run.
    static func compareStrings(_ a: String, _ b: String) -> ComparisonOrder {
        var left = a.utf8.makeIterator()
        var right = b.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return .same
            case (nil, _): return .ascending
            case (_, nil): return .descending
            case (let l?, let r?):
                if l != r { return l < r ? .ascending : .descending }
            }
        }
    }

    static func compareUUIDs(_ a: UUID, _ b: UUID) -> ComparisonOrder {
        // Two big-endian 64-bit halves compare like the 16 bytes in order.
        let (l, r) = (a.uuid, b.uuid)
        let leftHigh =
            UInt64(l.0) << 56 | UInt64(l.1) << 48 | UInt64(l.2) << 40 | UInt64(l.3) << 32 | UInt64(l.4) << 24 | UInt64(
                l.5) << 16 | UInt64(l.6) << 8 | UInt64(l.7)
        let rightHigh =
            UInt64(r.0) << 56 | UInt64(r.1) << 48 | UInt64(r.2) << 40 | UInt64(r.3) << 32 | UInt64(r.4) << 24 | UInt64(
                r.5) << 16 | UInt64(r.6) << 8 | UInt64(r.7)
        if leftHigh != rightHigh { return leftHigh < rightHigh ? .ascending : .descending }
        let leftLow =
            UInt64(l.8) << 56 | UInt64(l.9) << 48 | UInt64(l.10) << 40 | UInt64(l.11) << 32 | UInt64(l.12) << 24
            | UInt64(l.13) << 16 | UInt64(l.14) << 8 | UInt64(l.15)
        let rightLow =
            UInt64(r.8) << 56 | UInt64(r.9) << 48 | UInt64(r.10) << 40 | UInt64(r.11) << 32 | UInt64(r.12) << 24
            | UInt64(r.13) << 16 | UInt64(r.14) << 8 | UInt64(r.15)
        return order(leftLow, rightLow)
    }

    static func compareBytes(_ a: Data, _ b: Data) -> ComparisonOrder {
        for (l, r) in zip(a, b) where l != r { return l < r ? .ascending : .descending }
        return order(a.count, b.count)
    }
}

/// The result of comparing two values (Foundation's `ComparisonResult` without the Objective-C baggage).
public enum ComparisonOrder: Sendable {
    /// The first sorts before the second.
    case ascending
    /// They sort together.
    case same
    /// The first sorts after the second.
    case descending
}
