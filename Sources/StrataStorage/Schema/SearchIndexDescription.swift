/// A full-text index over one or more text attributes of an entity, each with a weight.
///
/// The engine keeps it in the same transaction as the records on every backend and every write
/// path, cuts text with ``SearchTokenizer`` and ranks matches by ``SearchScoring``. A search names
/// it in ``FilterExpression/search(index:_:)`` and ``SortKey/init(relevanceOf:ascending:)``.
public struct SearchIndexDescription: Sendable, Hashable, Codable {
    /// One indexed attribute and how much its words count in the relevance score.
    public struct Field: Sendable, Hashable, Codable {
        /// The text attribute (a composite field as `outer.inner`).
        public var attribute: String
        /// A positive multiplier of the attribute's word counts (1 for equal weight).
        public var weight: Double

        /// An indexed attribute with a weight.
        public init(_ attribute: String, weight: Double = 1) {
            self.attribute = attribute
            self.weight = weight
        }
    }

    /// The index's name, unique within its entity.
    public var name: String
    /// The attributes indexed, in the order their weights are listed.
    public var fields: [Field]

    /// An index over `fields`.
    public init(name: String, fields: [Field]) {
        self.name = name
        self.fields = fields
    }

    /// The stored form, as ``Schema/fingerprint`` and migrations compare it: `name(a^w,b^w)`.
    public var summary: String {
        "\(name)(" + fields.map { "\($0.attribute)^\(Self.format($0.weight))" }.joined(separator: ",") + ")"
    }

    private static func format(_ weight: Double) -> String {
        weight == weight.rounded() && abs(weight) < 1e15 ? String(Int64(weight)) : String(weight)
    }
}
