import Strata

/// What a set of subscriptions covers, entity by entity, as one filter each: the same on the
/// server (which intersects it with the caller's read scope) and on the client (which evicts what
/// it no longer covers).
package struct SubscriptionCoverage: Sendable {
    /// The filter of each covered entity; an entity not here is not covered.
    package private(set) var filters: [String: FilterExpression] = [:]
    /// Entities whose coverage depends on other records (a path was followed to them, or their
    /// filter reads a relationship): their records can leave coverage without changing.
    package private(set) var dependent: Set<String> = []
    /// The entities records are followed from, with the paths followed (for the initial sync of
    /// a record that newly entered coverage).
    package private(set) var followed: [String: [String]] = [:]
    /// The subscriptions that follow paths, by entity: each one's filter text (`nil`: every
    /// record) and paths — a record that arrives brings what the subscriptions matching it follow,
    /// not what another subscription of its entity follows from other records.
    package private(set) var followers: [String: [(filter: String?, paths: [String])]] = [:]

    /// The most subscriptions one request may carry, and the longest filter text.
    package static let maximumCount = 64
    package static let maximumFilterLength = 4_096

    /// The coverage of `subscriptions` under `schema`; a subscription naming an unknown entity or
    /// relationship, a path without inverses, or a malformed filter is `StrataError.Code.invalidQuery`
    /// naming the subscription.
    package init(_ subscriptions: [SyncSubscription], schema: Schema) throws {
        guard subscriptions.count <= Self.maximumCount else {
            throw StrataError(.invalidQuery, "at most \(Self.maximumCount) subscriptions may be given")
        }
        var parts: [String: [FilterExpression]] = [:]
        for subscription in subscriptions {
            let base = try Self.filter(of: subscription, schema: schema)
            parts[subscription.entity, default: []].append(base)
            if base.readsRelationships { dependent.insert(subscription.entity) }
            for path in subscription.including {
                var filter = base
                let steps = try schema.inversePath(
                    path, from: subscription.entity, subject: "subscription \(subscription.name)")
                for (relationship, inverse) in steps {
                    filter =
                        inverse.isToOne
                        ? .relatedOne(relationship: inverse.name, filter)
                        : .anyRelated(relationship: inverse.name, filter)
                    parts[relationship.destination, default: []].append(filter)
                    dependent.insert(relationship.destination)
                }
                followed[subscription.entity, default: []].append(path)
            }
            if !subscription.including.isEmpty {
                let text = subscription.filter.flatMap { $0.allSatisfy(\.isWhitespace) ? nil : $0 }
                followers[subscription.entity, default: []].append((text, subscription.including))
            }
        }
        for (entity, list) in parts { filters[entity] = list.count == 1 ? list[0] : .or(list) }
        // The shares naming the client are its sync state, not data a subscription chooses.
        if schema.entity(SyncShare.entityName) != nil { filters[SyncShare.entityName] = .constant(true) }
    }

    /// The filter of one subscription's own entity.
    static func filter(of subscription: SyncSubscription, schema: Schema) throws -> FilterExpression {
        guard schema.entity(subscription.entity) != nil else {
            throw StrataError(
                .invalidQuery, entity: subscription.entity,
                "subscription \(subscription.name): \(subscription.entity) is not an entity of this store")
        }
        guard let text = subscription.filter, !text.allSatisfy(\.isWhitespace) else { return .constant(true) }
        guard text.count <= maximumFilterLength else {
            throw StrataError(
                .invalidQuery, entity: subscription.entity,
                "subscription \(subscription.name): the filter is longer than \(maximumFilterLength) characters")
        }
        do {
            return try FilterText.parse(text, entity: subscription.entity, schema: schema)
        } catch let error as StrataError {
            throw StrataError(
                .invalidQuery, entity: subscription.entity, "subscription \(subscription.name): \(error.message)")
        }
    }
}

extension FilterExpression {
    /// Whether the expression reads another record through a relationship.
    var readsRelationships: Bool {
        switch self {
        case .relatedOne, .anyRelated, .noneRelated: true
        case .and(let parts), .or(let parts): parts.contains { $0.readsRelationships }
        case .not(let inner): inner.readsRelationships
        default: false
        }
    }
}
