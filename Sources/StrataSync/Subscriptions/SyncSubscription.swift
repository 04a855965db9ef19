import Foundation
import Strata

/// A named query a sync client subscribes to: the records of one entity that match a filter, and
/// optionally the records its relationships lead to. The server sends a client only what its
/// subscriptions cover, intersected with what the client's identity may read.
///
/// ```swift
/// let mine = try SyncSubscription(
///     "my-trips", Person.self, where: "email == $email", parameters: ["email": .string(me)],
///     including: ["trips"], timeToLive: .seconds(7 * 24 * 3600))
/// try await engine.subscribe(mine)
/// ```
///
/// - The filter is the filter language in text (`FilterText`), checked against the client's schema
///   when the subscription is made and against the server's when it is served. `$name` stands for
///   a parameter, written into the text as a literal of its value (text quoted and escaped, dates as
///   exact seconds since 2001), so no parameter can change the filter's shape.
/// - `including` follows relationships from the matched records: `"trips"` covers the trips of the
///   matched people, `"trips.stops"` their stops too. Every step needs an inverse.
/// - `timeToLive`: the subscription ends that long after it was last subscribed to; subscribing
///   again renews it.
public struct SyncSubscription: Sendable, Hashable, Codable {
    /// The subscription's name: subscribing again under a name replaces what it covers.
    public var name: String
    /// The entity whose records it covers.
    public var entity: String
    /// The filter, in text, with parameters written in; `nil` covers every record.
    public var filter: String?
    /// Relationship paths followed from the matched records (`"tasks"`, `"tasks.comments"`).
    public var including: [String]
    /// How long after it is subscribed the subscription ends (`nil`: until it is removed). Kept by
    /// the client; the server never sees it.
    public var timeToLive: Duration?

    /// A subscription to the records of `entity` matching `filter`, with `$name` parameters.
    /// A parameter the text names but `parameters` lacks, or a value the filter language cannot
    /// write, is `StrataError.Code.invalidQuery`.
    public init(
        _ name: String, entity: String, where filter: String? = nil, parameters: [String: Value] = [:],
        including: [String] = [], timeToLive: Duration? = nil
    ) throws {
        guard !name.isEmpty, !name.hasPrefix("#") else {
            throw StrataError(.invalidQuery, entity: entity, "a subscription needs a name that does not start with #")
        }
        self.name = name
        self.entity = entity
        self.filter = try filter.map { try Self.substitute(parameters, into: $0) }
        self.including = including
        self.timeToLive = timeToLive
    }

    /// A subscription to the records of a model's entity matching `filter`.
    public init<Model: PersistentModel>(
        _ name: String, _ type: Model.Type, where filter: String? = nil, parameters: [String: Value] = [:],
        including: [String] = [], timeToLive: Duration? = nil
    ) throws {
        try self.init(
            name, entity: Model.entityName, where: filter, parameters: parameters, including: including,
            timeToLive: timeToLive)
    }

    /// The same subscription as the server sees it: no time to live.
    var served: SyncSubscription {
        var copy = self
        copy.timeToLive = nil
        return copy
    }

    /// Whether two subscriptions cover the same records (their times to live may differ).
    func covers(sameAs other: SyncSubscription) -> Bool { served == other.served }

    private enum CodingKeys: String, CodingKey {
        case name, entity, filter = "where", including = "include", timeToLive = "ttl"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        entity = try container.decode(String.self, forKey: .entity)
        filter = try container.decodeIfPresent(String.self, forKey: .filter)
        including = try container.decodeIfPresent([String].self, forKey: .including) ?? []
        timeToLive = try container.decodeIfPresent(Double.self, forKey: .timeToLive).map { .seconds($0) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(entity, forKey: .entity)
        try container.encodeIfPresent(filter, forKey: .filter)
        if !including.isEmpty { try container.encode(including, forKey: .including) }
        if let timeToLive {
            let parts = timeToLive.components
            try container.encode(Double(parts.seconds) + Double(parts.attoseconds) / 1e18, forKey: .timeToLive)
        }
    }
}
