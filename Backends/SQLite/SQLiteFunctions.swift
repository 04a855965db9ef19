import Foundation
import GRDB
import StrataStorage

/// SQL functions registered on every connection, so text matching inside SQLite is the engine's own.
///
/// Text crosses into these functions as BLOBs (`CAST(x AS BLOB)`): SQLite hands text to functions as
/// NUL-terminated C strings, which would cut a value containing U+0000 short. `strata_fold` returns
/// a BLOB; BLOBs compare with memcmp, the same order as BINARY text.
enum SQLiteFunctions {
    static func text(_ value: DatabaseValue) -> String? {
        switch value.storage {
        case .blob(let bytes): String(decoding: bytes, as: UTF8.self)
        case .string(let text): text
        default: nil
        }
    }

    /// `strata_fold(CAST(text AS BLOB), options)`: the UTF-8 of the text folded for case- and
    /// diacritic-insensitive comparison.
    static func fold() -> DatabaseFunction {
        DatabaseFunction("strata_fold", argumentCount: 2, pure: true) { arguments in
            guard let text = text(arguments[0]), let options = Int.fromDatabaseValue(arguments[1]) else { return nil }
            return Data(PredicateEvaluator.fold(text, TextOptions(rawValue: options)).utf8)
        }
    }

    /// `strata_text(CAST(haystack AS BLOB), CAST(needle AS BLOB), operator, options)`: 1 when the
    /// text operator matches (0 contains, 1 hasPrefix, 2 hasSuffix).
    static func text() -> DatabaseFunction {
        DatabaseFunction("strata_text", argumentCount: 4, pure: true) { arguments in
            guard let haystack = text(arguments[0]), let needle = text(arguments[1]),
                let code = Int.fromDatabaseValue(arguments[2]), let options = Int.fromDatabaseValue(arguments[3])
            else { return nil }
            let op: TextOperator = code == 0 ? .contains : code == 1 ? .hasPrefix : .hasSuffix
            return PredicateEvaluator.textMatches(haystack, op, needle, TextOptions(rawValue: options)) ? 1 : 0
        }
    }

    /// `strata_path(document, path, constant)`: 1 when the document's value at `path` (a JSON
    /// array of object keys) equals `constant` (one JSON scalar, or `null` for nil) as the engine's
    /// ``PredicateEvaluator`` compares them, else 0 — never NULL, so `NOT` needs no guard.
    static func path() -> DatabaseFunction {
        DatabaseFunction("strata_path", argumentCount: 3, pure: true) { arguments in
            guard let pathText = text(arguments[1]), let keys = try? ExactJSON.parse(pathText) as? [String],
                let constantText = text(arguments[2]), let parsed = try? ExactJSON.parse(constantText)
            else { return 0 }
            let constant = CollectionForm.scalar(parsed: parsed)
            let found = text(arguments[0]).map { CollectionForm.value(at: keys, in: $0) } ?? .null
            return PredicateEvaluator.compare(found, .equal, constant) ? 1 : 0
        }
    }

    /// `strata_sum(int)`: the exact sum of an integer column, as the engine computes it — over
    /// 128 bits, so only a total outside `Int64` fails (SQLite's `sum` fails on any intermediate
    /// overflow, which depends on the scan order). Returns the text `overflow` for such a total.
    static func sum() -> DatabaseFunction {
        DatabaseFunction("strata_sum", argumentCount: 1, pure: true, aggregate: IntegerTotal.Sum.self)
    }

    /// `strata_average(int)`: `Double(sum) / Double(count)` of an integer column's non-null
    /// values over an exact sum, or NULL over none.
    static func average() -> DatabaseFunction {
        DatabaseFunction("strata_average", argumentCount: 1, pure: true, aggregate: IntegerTotal.Average.self)
    }
}

/// The running exact total behind `strata_sum` and `strata_average`.
struct IntegerTotal {
    var total: Int128 = 0
    var count = 0

    mutating func add(_ value: DatabaseValue) {
        guard case .int64(let number) = value.storage else { return }
        total += Int128(number)
        count += 1
    }

    struct Sum: DatabaseAggregate {
        var running = IntegerTotal()
        mutating func step(_ dbValues: [DatabaseValue]) { running.add(dbValues[0]) }
        func finalize() -> (any DatabaseValueConvertible)? { Int64(exactly: running.total).map { $0 } ?? "overflow" }
    }

    struct Average: DatabaseAggregate {
        var running = IntegerTotal()
        mutating func step(_ dbValues: [DatabaseValue]) { running.add(dbValues[0]) }
        func finalize() -> (any DatabaseValueConvertible)? {
            running.count == 0 ? nil : Double(running.total) / Double(running.count)
        }
    }
}
