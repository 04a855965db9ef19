import Foundation
import Strata

/// The policies the matrix runs, each with what it must produce.
enum PolicyUnderTest: String, CaseIterable, Sendable {
    case error, objectTrumpByProperty, storeTrumpByProperty, overwrite, rollback, custom

    var policy: MergePolicy {
        switch self {
        case .error: .error
        case .objectTrumpByProperty: .objectTrumpByProperty
        case .storeTrumpByProperty: .storeTrumpByProperty
        case .overwrite: .overwrite
        case .rollback: .rollback
        case .custom: .custom(Self.customResolution)
        }
    }

    /// The custom policy of the suite, a realistic domain rule: on an update in both places keep
    /// the store's record with this context's changes, and where both changed the same text
    /// property, keep both as `store|context`; bring back a record the store deleted; keep a
    /// record the store changed rather than delete it; and on a uniqueness clash keep the
    /// stored values, filling what they lack.
    @Sendable static func customResolution(_ conflict: MergeConflict) throws -> MergeResolution {
        switch conflict.kind {
        case .updatedInBoth:
            guard var merged = conflict.stored, let mine = conflict.context else { return .fail }
            for name in conflict.contextChanges where merged.values[name] != nil || mine.values[name] != nil {
                if conflict.storeChanges.contains(name), case .string(let theirs) = merged[name],
                    case .string(let ours) = mine[name]
                {
                    merged[name] = .string("\(theirs)|\(ours)")
                } else {
                    merged[name] = mine[name]
                }
            }
            return .use(merged)
        case .deletedInStore: return .overwrite
        case .deletedInContext: return .rollback
        case .uniqueness, .insertedInStore: return .storeTrumpByProperty
        }
    }
}

enum MergePolicyChecks {
    static var all: [ConformanceCheck] {
        matrix("updateUpdateSameProperty", updateUpdateSameProperty)
            + matrix("updateUpdateDifferentProperties", updateUpdateDifferentProperties)
            + matrix("updatedHereDeletedInStore", updatedHereDeletedInStore)
            + matrix("deletedHereUpdatedInStore", deletedHereUpdatedInStore)
            + matrix("uniquenessClash", uniquenessClash)
            + matrix("relationshipChangedOnBothSides", relationshipChangedOnBothSides)
            + matrix("threeContextsRacing", threeContextsRacing)
            + membershipConflicts
            + others + inserts
    }

    static func matrix(
        _ scenario: String, _ body: @escaping @Sendable (ConformanceContext, PolicyUnderTest) async throws -> Void
    ) -> [ConformanceCheck] {
        PolicyUnderTest.allCases.map { policy in
            ConformanceCheck(.mergePolicies, "\(scenario)_\(policy.rawValue)") { c in try await body(c, policy) }
        }
    }

    /// Saves `context`, expecting a `mergeConflict` that leaves the store untouched under
    /// ``PolicyUnderTest/error`` and a resolved save otherwise. Returns the conflicts.
    @discardableResult
    static func saveExpectingConflicts(
        _ context: ModelContext, _ store: Store, _ policy: PolicyUnderTest, count: Int = 1,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line
    ) async throws -> [MergeConflict] {
        if policy == .error {
            let error = try await expectRejected(store, .mergeConflict, fileID: fileID, filePath: filePath, line: line)
            {
                try await context.save()
            }
            try expectEqual(
                error.conflicts.count, count, "conflicts listed", fileID: fileID, filePath: filePath, line: line)
            try expect(
                await context.hasChanges, "a failed save keeps the context's changes", fileID: fileID,
                filePath: filePath, line: line)
            return error.conflicts
        }
        let result = try await context.save()
        try expectEqual(
            result.conflicts.count, count, "conflicts resolved", fileID: fileID, filePath: filePath, line: line)
        try expect(
            !(await context.hasChanges), "a saved context has nothing pending", fileID: fileID, filePath: filePath,
            line: line)
        return result.conflicts
    }
}
