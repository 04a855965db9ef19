/// A typed model: a `Codable`, `Sendable` value with a client-generated ID and a static declaration
/// of its entity.
///
/// ```swift
/// struct Trip: PersistentModel {
///     var id = UUID()
///     var name: String
///     var start: Date
///     var traveller: Person.ID?
///
///     static let stops = ToMany<Trip, Stop>("stops")
///     static let entity = Entity<Trip>("Trip", [
///         .attribute(\.name, rules: [.length(1...100)]),
///         .attribute(\.start, indexed: true),
///         .toOne(\.traveller, Person.self, inverse: Person.trips),
///         .toMany(stops, inverse: \.trip, ordered: true, deleteRule: .cascade),
///     ])
/// }
/// ```
/// A to-one relationship is a stored `Destination.ID?` (or `Destination.ID` when required).
/// To-many relationships are declared with a ``ToMany`` handle and read through the repository.
/// Every stored property other than `id` must be declared as an attribute or a to-one.
public protocol PersistentModel: Codable, Sendable, Identifiable where ID: RecordIdentifier {
    /// The entity declaration: name, attributes, relationships, indexes, constraints, checks.
    static var entity: Entity<Self> { get }
}

extension PersistentModel {
    /// The entity name.
    public static var entityName: String { entity.name }

    /// The untyped description the schema is built from.
    public static func entityDescription() throws -> EntityDescription {
        try entity.description()
    }

    /// This model's untyped form.
    public func record() throws -> Record {
        try KeyPathCodec.record(self)
    }

    /// Decodes a model from its untyped form.
    public init(record: Record) throws {
        self = try KeyPathDecoding.decode(Self.self, from: record)
    }
}

/// A typed handle for a to-many relationship, declared once as a static on the source model and
/// used in declarations, predicates (`.any(Trip.stops, ...)`) and repository calls.
public struct ToMany<Source: PersistentModel, Destination: PersistentModel>: Sendable, Hashable {
    /// The relationship's name.
    public let name: String
    /// Names a to-many of `Source`; declare it in the entity with `.toMany(_:inverse:…)`.
    public init(_ name: String) { self.name = name }
}
