extension ConformanceMutant {
    /// The check known to catch this mutant. ``MutationTesting`` runs it first and goes through
    /// the rest of the suite only when it passes; the suite's tests require every mutant caught by
    /// its known check, so this list stays true. For a backend author: the check to read first
    /// when a backend has this bug.
    public var knownCatcher: String {
        switch self {
        case .sortIgnoresDirection: "Queries/sortDescendingPutsNilLast"
        case .offsetIgnored, .limitPlusOne: "Queries/sortedPagesOverAnIndexedAttributeWithNulls"
        case .nullsSortLast: "Queries/sortAscendingPutsNilFirst"
        case .dropsFirstOfALargeResult: "CRUD/textIsStoredVerbatim"
        case .countOffByOne: "CRUD/upsertInsertsThenReplaces"
        case .notIgnored: "Queries/textOperatorsNeverMatchNil"
        case .orAsAnd: "Queries/andOrNot"
        case .betweenExcludesBounds: "Queries/betweenIsInclusive"
        case .caseInsensitiveIgnored: "Queries/hasPrefixCaseInsensitive"
        case .inListFirstOnly: "Queries/inList"
        case .unicodeIDsNotFound: "CRUD/stringAndInt64IDsRoundTrip"
        case .diacriticInsensitiveIgnored: "Queries/diacriticInsensitive"
        case .referrersDropLast: "DeleteRules/denyAllowsOnceDestinationsMovedAway"
        case .linkOwnersEmpty: "Queries/everyDeclaredPredicateFeatureIsAnsweredByTheBackendItself"
        case .linksReadReversed, .setLinksDropsLast: "Queries/aQueryIsSortedByItsPositionInAnOrderedToMany"
        case .putResetsVersion: "CRUD/versionStartsAtOneAndBumpsOnChange"
        case .doublesAsFloat: "CRUD/numericExtremesRoundTrip"
        case .datesToMilliseconds: "CRUD/datesAndBytesRoundTripExactly"
        case .emptyStringAsNull, .emptyDataAsNull: "Values/emptyTextAndEmptyBytesAreValuesNotNil"
        case .intMinShifted: "Values/integerExtremesRoundTripAndOrder"
        case .metadataIgnoresAfter, .versionsOneLower: "DeleteRules/cascadeRecordsEachChildsLastVersion"
        case .metadataIgnoresLimit: "History/historyAfterATokenReturnsOnlyLaterSaves"
        case .metadataRemovalIgnored: "History/purgeRemovesOlderTransactionsOnly"
        case .writesNotAtomic, .writeThroughBeforeCommit: "Atomicity/aSaveThatFailedAtAnyWriteIsAbsentAfterAReopen"
        case .deleteIgnoredForIntegerIDs: "DeleteRules/denyAllowsWhenThereAreNoDestinations"
        case .staleRecordCache: "CRUD/updateReplacesValues"
        case .existingIDsMissesAll: "CRUD/insertExistingIDIsDuplicateID"
        case .recordsByManyDropLast: "Queries/aLiveQuerySortedByPositionFollowsReorders"
        case .referrersOfManyDropOneTarget: "Storage/batchedLookupsAnswerAsSingleOnes"
        case .linksOfManyDropOneOwner: "Storage/batchedLinkReadsAnswerAsSingleOnes"
        case .putManyDropsLast: "CRUD/deleteWhereDeletesMatchesAndCounts"
        case .deleteSetSkipsLast: "DeleteRules/cascadeIsRecursive"
        }
    }
}
