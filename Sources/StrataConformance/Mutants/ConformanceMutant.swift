/// One planted bug: a storage mistake a real backend could make, applied to the in-memory backend.
/// ``MutationTesting`` runs the suite against each and counts how many it catches (kills).
///
/// Left out because no engine behaviour can observe them (equivalent mutants): a delete that
/// keeps the deleted record's own link lists (the engine empties them in the same save), and
/// dropping empty metadata values (the engine never writes one). The in-memory backend does not
/// declare `aggregating`, so no mutant of `aggregate` can run on it; the Aggregates checks compare
/// the backends that do (SQLite, PostgreSQL) with the same aggregates computed in Swift.
public enum ConformanceMutant: String, CaseIterable, Sendable {
    // Queries: sorting, paging, counting, predicate logic, text options.
    /// Sorts ascending whatever the plan asks.
    case sortIgnoresDirection
    /// Pages from the start, ignoring the offset.
    case offsetIgnored
    /// Returns one record more than the limit.
    case limitPlusOne
    /// Sorts nulls after values instead of before them.
    case nullsSortLast
    /// Drops the first record of a result of more than three.
    case dropsFirstOfALargeResult
    /// Counts one more than there are (when there are any).
    case countOffByOne
    /// Evaluates `not(p)` as `p`.
    case notIgnored
    /// Evaluates `or` as `and`.
    case orAsAnd
    /// Excludes both bounds of `between`.
    case betweenExcludesBounds
    /// Compares case-sensitively whatever the options say.
    case caseInsensitiveIgnored
    /// Matches only the first value of an `in` list.
    case inListFirstOnly
    /// Finds no record whose string ID is not ASCII.
    case unicodeIDsNotFound
    /// Compares text needles diacritic-sensitively whatever the options say.
    case diacriticInsensitiveIgnored

    // Relationships: referrer and link-owner lookups, link order and writes.
    /// Leaves the last referrer out of a lookup of more than one.
    case referrersDropLast
    /// Finds no owner of any link.
    case linkOwnersEmpty
    /// Reads link lists in reverse order.
    case linksReadReversed
    /// Drops the last member when writing a list of more than two.
    case setLinksDropsLast

    // Values: versions and value fidelity.
    /// Stores every record at version 1.
    case putResetsVersion
    /// Stores doubles with a float's precision.
    case doublesAsFloat
    /// Truncates dates to milliseconds.
    case datesToMilliseconds
    /// Stores the empty string as null.
    case emptyStringAsNull
    /// Stores empty bytes as null.
    case emptyDataAsNull
    /// Stores `Int64.min` as `Int64.min + 1`.
    case intMinShifted

    // Metadata (history, outbox, sync state): paging, and removing a key.
    /// Lists metadata from the start of the prefix, ignoring `after`.
    case metadataIgnoresAfter
    /// Lists every metadata key of the prefix, ignoring `limit`.
    case metadataIgnoresLimit
    /// Ignores removing a metadata key.
    case metadataRemovalIgnored

    // Transactions: atomicity in this process, on "disk" (found only by a reopen), deletes.
    /// Commits what a failed transaction wrote before it failed.
    case writesNotAtomic
    /// Rolls a failed transaction back in this process but keeps, for the next open, every write it made before
    /// failing.
    case writeThroughBeforeCommit
    /// Ignores deletes of records with integer IDs.
    case deleteIgnoredForIntegerIDs

    // Reads.
    /// Answers lookups by ID from a cache that writes never invalidate.
    case staleRecordCache
    /// Answers the duplicate-ID check as if no ID existed.
    case existingIDsMissesAll
    /// Reports every version one lower in a batched lookup of versions.
    case versionsOneLower

    // Batched forms of the SPI.
    /// Leaves the highest ID out of a batched lookup of more than two.
    case recordsByManyDropLast
    /// Leaves one target out of a batched referrer lookup of more than one.
    case referrersOfManyDropOneTarget
    /// Leaves one owner out of a batched link-list read of more than one.
    case linksOfManyDropOneOwner
    /// Drops the last record of a batched put of more than one.
    case putManyDropsLast
    /// Skips the last ID of a batched delete of more than one.
    case deleteSetSkipsLast
}
