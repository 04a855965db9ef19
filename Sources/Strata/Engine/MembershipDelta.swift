/// Changes to a to-many's membership as additions and removals, so that concurrent edits of one
/// membership (a context against the store, a client against the server) merge element by element.
package struct MembershipDelta: Equatable {
    package var added: [RecordID]
    package var removed: [RecordID]

    /// The additions and removals that turn `before` into `after` (additions in `after`'s order).
    package init(from before: [RecordID], to after: [RecordID]) {
        let beforeSet = Set(before)
        let afterSet = Set(after)
        added = after.filter { !beforeSet.contains($0) }
        removed = before.filter { !afterSet.contains($0) }
    }

    package init(added: [RecordID], removed: [RecordID]) {
        self.added = added
        self.removed = removed
    }

    /// `list` with the removals taken out and the additions it lacks appended: the list keeps its
    /// order, additions follow in theirs.
    package func applied(to list: [RecordID]) -> [RecordID] {
        let removedSet = Set(removed)
        var result = list.filter { !removedSet.contains($0) }
        var present = Set(result)
        for target in added where present.insert(target).inserted { result.append(target) }
        return result
    }
}
