/// Validation of every record the save changes, to-many counts, and uniqueness.
extension SaveSession {
    func validate() throws {
        // One pass over the staged records finds what to validate and which references to
        // resolve; the entity description is looked up once per run of records of one entity.
        var changed: [(record: Record, original: Record?, entity: EntityDescription)] = []
        var wanted: [String: Set<RecordID>] = [:]
        var current: EntityDescription?
        for entry in workingSet.staged {
            guard let record = entry.current, entry.original != record else { continue }
            if current?.name != record.entity { current = try schema.requireEntity(record.entity) }
            guard let entity = current else { continue }
            changed.append((record, entry.original, entity))
            var slot = entity.attributes.count
            for relationship in entity.relationships where relationship.isToOne {
                defer { slot += 1 }
                let value = record.value(at: slot, of: entity.layout, named: relationship.name)
                let before = entry.original?.value(at: slot, of: entity.layout, named: relationship.name)
                guard !value.isNull, before != value, let target = RecordID(value),
                    target.kind == schema.entity(relationship.destination)?.idKind
                else { continue }
                wanted[relationship.destination, default: []].insert(target)
            }
        }
        // The server's state mirrored is not resolved (see `validate`): nothing to read.
        let existing = mirrorsRemoteState ? [] : try resolved(wanted)
        for item in changed {
            try validate(item.record, original: item.original, entity: item.entity, existing: existing)
        }
        try validateMemberships()
        try validateUniqueness()
    }

    /// Which of the records a save's references point at exist now: one batched read per
    /// destination entity (ten thousand children of one parent read the parent once). References
    /// that are not IDs of the right kind are left to `validate(_:original:entity:existing:)`,
    /// which reports them in save order.
    private func resolved(_ wanted: [String: Set<RecordID>]) throws -> Set<RecordKey> {
        var existing = Set<RecordKey>()
        for (destination, ids) in wanted {
            for id in try workingSet.records(destination, ids: Array(ids)).keys {
                existing.insert(RecordKey(entity: destination, id: id))
            }
        }
        return existing
    }

    private func validate(_ record: Record, original: Record?, entity: EntityDescription, existing: Set<RecordKey>)
        throws
    {
        func failure(
            _ code: StrataError.Code, _ property: String?, _ message: String, _ violation: RuleViolation? = nil
        ) -> StrataError {
            var error = StrataError(code, entity: entity.name, recordID: record.id, property: property, message)
            error.violation = violation
            return error
        }
        // Unknown property names never get this far: `normalize` rejects them on the way in, and
        // leaves the record in its entity's layout (attribute `i` in slot `i`, to-ones after).
        let layout = entity.layout
        let record = record.inLayout(layout)
        for (slot, attribute) in entity.attributes.enumerated() {
            let value = record.slots[slot]
            if value.isNull {
                if !attribute.isOptional {
                    throw failure(.missingValue, attribute.name, "\(attribute.name) is required")
                }
                continue
            }
            guard attribute.type.accepts(value) else {
                throw failure(.typeMismatch, attribute.name, "expected \(attribute.type), got \(value)")
            }
            // U+0000 ends a C string: SQLite (through GRDB) would silently cut the text there, so no
            // backend accepts it.
            if case .string(let text) = value, text.utf8.contains(0) {
                throw failure(
                    .validationFailed, attribute.name, "text may not contain U+0000", RuleViolation(.forbiddenCharacter)
                )
            }
            if let allowed = attribute.allowedValues, !allowed.contains(value) {
                throw failure(
                    .validationFailed, attribute.name, "\(value) is not one of the allowed values",
                    RuleViolation(.notAllowed))
            }
            for rule in attribute.rules {
                if let violation = rule.violation(for: value) {
                    throw failure(
                        .validationFailed, attribute.name, "\(rule): \(rule.failure(for: value) ?? "")", violation)
                }
            }
        }
        var slot = entity.attributes.count
        for relationship in entity.relationships where relationship.isToOne {
            defer { slot += 1 }
            let value = record.slots[slot]
            if value.isNull {
                if relationship.isRequired {
                    throw failure(.missingValue, relationship.name, "\(relationship.name) is a required relationship")
                }
                continue
            }
            let destination = try schema.requireEntity(relationship.destination)
            guard let target = RecordID(value), target.kind == destination.idKind else {
                throw failure(
                    .typeMismatch, relationship.name,
                    "expected a \(destination.idKind) ID of \(destination.name), got \(value)")
            }
            // Unchanged references may dangle (noAction); a reference set in this save must resolve,
            // except in the server's state mirrored: the server resolved it, and a client holds what
            // its scope, subscriptions and shares let it read, not always what its records refer to.
            let before = original?.value(at: slot, of: layout, named: relationship.name)
            if before != value, !loading, !mirrorsRemoteState,
                !existing.contains(RecordKey(entity: destination.name, id: target))
            {
                throw failure(.invalidReference, relationship.name, "\(destination.name)(\(target)) does not exist")
            }
        }
        for check in entity.recordChecks {
            if let reason = check.check(record) { throw failure(.validationFailed, check.property, reason) }
        }
    }

    private func validateMemberships() throws {
        for membership in touchedMemberships.sorted(by: {
            ($0.entity, $0.relationship, $0.owner) < ($1.entity, $1.relationship, $1.owner)
        }) {
            guard let owner = try workingSet.record(membership.entity, id: membership.owner),
                let relationship = schema.entity(membership.entity)?.relationship(membership.relationship)
            else { continue }
            let count = try workingSet.relatedRecords(of: owner, relationship).count
            if let min = relationship.minCount, count < min {
                throw StrataError(
                    .relationshipCount, entity: owner.entity, recordID: owner.id, property: relationship.name,
                    count: count, "\(relationship.name) has \(count) record(s), at least \(min) required")
            }
            if let max = relationship.maxCount, count > max {
                throw StrataError(
                    .relationshipCount, entity: owner.entity, recordID: owner.id, property: relationship.name,
                    count: count, "\(relationship.name) has \(count) record(s), at most \(max) allowed")
            }
        }
    }

    /// Within the save through a dictionary; against the store through an equality query the
    /// backend answers from its index. A tuple containing a null never clashes.
    private func validateUniqueness() throws {
        for entity in schema.entities
        where !entity.uniqueConstraints.isEmpty && workingSet.touchedEntities.contains(entity.name) {
            for constraint in entity.uniqueConstraints {
                var claimed: [[Value]: RecordID] = [:]
                for entry in workingSet.staged where entry.key.entity == entity.name {
                    guard let record = entry.current else { continue }
                    let tuple = constraint.map { record[$0] }
                    if tuple.contains(where: \.isNull) { continue }
                    if let other = claimed[tuple], other != record.id {
                        throw uniqueViolation(entity, record, constraint, other)
                    }
                    claimed[tuple] = record.id
                    if let original = entry.original, constraint.map({ original[$0] }) == tuple { continue }
                    for match in try committedRecords(entity.name, holding: tuple, in: constraint)
                    where match.id != record.id && !workingSet.hasEntry(match.key) {
                        throw uniqueViolation(entity, record, constraint, match.id)
                    }
                }
            }
        }
    }

    /// Committed records whose `constraint` properties hold `tuple`: an equality query the
    /// backend answers from its index.
    func committedRecords(_ entity: String, holding tuple: [Value], in constraint: [String]) throws -> [Record] {
        let predicate = FilterExpression.and(zip(constraint, tuple).map { .compare($0, .equal, $1, []) })
        return try workingSet.executor.fetch(FetchPlan(entity: entity, predicate: predicate), in: workingSet.base)
    }

    private func uniqueViolation(
        _ entity: EntityDescription, _ record: Record, _ constraint: [String], _ other: RecordID
    ) -> StrataError {
        let values = constraint.map { "\($0)=\(record[$0])" }.joined(separator: ", ")
        return StrataError(
            .uniqueViolation, entity: entity.name, recordID: record.id, property: constraint.joined(separator: ","),
            "\(values) is already used by \(entity.name)(\(other))")
    }
}
