import Foundation

/// The relevance score a search ranks records by: Okapi BM25 over the index's own statistics,
/// with each attribute's word counts multiplied by its weight. The same function, in the same
/// order of operations, computes it on every backend, so equal inputs give equal scores and
/// the same order everywhere.
///
/// For each word, prefix or phrase of the search that a record matches (parts under `not` do
/// not count):
///
/// ```text
/// idf   = ln(1 + (N − n + 0.5) / (n + 0.5))
/// tf    = Σ weight(a) × occurrences in attribute a
/// len   = Σ weight(a) × words in attribute a
/// avg   = Σ weight(a) × words in attribute a over all records / N
/// score = idf × tf × (k1 + 1) / (tf + k1 × (1 − b + b × len / avg))
/// ```
///
/// where N is the number of records of the entity and n the number of records the part
/// matches. A record's score is the sum over the parts it matches; records with equal scores
/// are ordered by ID ascending. A prefix counts every word it matches as occurrences of one
/// part; a phrase counts its occurrences.
public enum SearchScoring {
    /// How quickly repeated occurrences stop adding to the score.
    public static let k1 = 1.2
    /// How much a long text's occurrences are discounted against the average length.
    public static let b = 0.75

    /// The inverse document frequency of a part matched by `matching` of `documents` records.
    public static func idf(documents: Int, matching: Int) -> Double {
        let n = Double(matching)
        return log(1 + (Double(documents) - n + 0.5) / (n + 0.5))
    }

    /// One part's score for one record: `idf` from ``idf(documents:matching:)``, `frequency`
    /// and `length` already weighted, `averageLength` the weighted mean over the entity.
    public static func score(idf: Double, frequency: Double, length: Double, averageLength: Double) -> Double {
        let norm = averageLength > 0 ? length / averageLength : 0
        return idf * frequency * (k1 + 1) / (frequency + k1 * (1 - b + b * norm))
    }
}
