import GRDB
import Strata

/// SQL functions registered on every connection, so text matching inside SQLite is the engine's own.
enum SQLiteFunctions {
    /// `strata_fold(text, options)`: the text folded for case/diacritic-insensitive comparison.
    static func fold() -> DatabaseFunction {
        DatabaseFunction("strata_fold", argumentCount: 2, pure: true) { arguments in
            guard let text = String.fromDatabaseValue(arguments[0]), let options = Int.fromDatabaseValue(arguments[1]) else { return nil }
            return PredicateEvaluator.fold(text, TextOptions(rawValue: options))
        }
    }

    /// `strata_text(haystack, needle, operator, options)`: 1 when the text operator matches
    /// (0 contains, 1 hasPrefix, 2 hasSuffix).
    static func text() -> DatabaseFunction {
        DatabaseFunction("strata_text", argumentCount: 4, pure: true) { arguments in
            guard let haystack = String.fromDatabaseValue(arguments[0]), let needle = String.fromDatabaseValue(arguments[1]),
                let code = Int.fromDatabaseValue(arguments[2]), let options = Int.fromDatabaseValue(arguments[3])
            else { return nil }
            let op: TextOperator = code == 0 ? .contains : code == 1 ? .hasPrefix : .hasSuffix
            return PredicateEvaluator.textMatches(haystack, op, needle, TextOptions(rawValue: options)) ? 1 : 0
        }
    }
}
