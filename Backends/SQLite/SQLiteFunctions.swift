import Foundation
import GRDB
import Strata

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
}
