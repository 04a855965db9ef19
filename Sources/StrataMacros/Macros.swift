@_exported import Strata

/// Declares a `PersistentModel` from the struct itself, as SwiftData's `@Model` does: every stored
/// property other than `id` becomes an attribute (its initial value, when a literal, the default a
/// migration fills in), a property marked
/// ``Relationship(to:inverse:ordered:deleteRule:minCount:maxCount:renamedFrom:)`` a to-one, a
/// `static var` of type `ToMany` marked `@Relationship` a to-many, a property marked `@Derived` an
/// attribute the engine computes, and ``Transient()`` properties are not stored. The macro writes
/// the `static let entity` the explicit form spells out — the two forms build identical schemas —
/// and the `PersistentModel` conformance.
///
/// ```swift
/// @Model
/// struct Trip {
///     var id = UUID()
///     @Attribute(rules: [.length(1...100)]) var name: String
///     @Attribute(.indexed) var start: Date
///     @Relationship(inverse: Person.trips) var traveller: Person.ID?
///     @Relationship(inverse: \Stop.trip, ordered: true, deleteRule: .cascade) static var stops: ToMany<Trip, Stop>
/// }
/// ```
///
/// Entity-level members the properties cannot say — compound indexes and unique constraints,
/// record checks — go in a `static let constraints: [EntityMember<Self>]`, which the entity
/// includes: `static let constraints: [EntityMember<Note>] = [.index(\.owner, \.updated)]`.
///
/// What the explicit form finds only at the first save is a compile-time error here: a stored
/// property of a type Strata cannot store (a tuple, a closure, a collection of optionals or of
/// collections, a dictionary not keyed by `String`; collections of scalars are attributes), a
/// `@Transient` property without an initial value, a to-one whose destination cannot be read from
/// its type, a to-many without an inverse, a model without an `id`. An inverse of the wrong type
/// does not type-check; an inverse that names another property of the right type is refused when
/// the `Schema` is built.
@attached(member, names: named(entity), named(CodingKeys))
@attached(memberAttribute)
@attached(extension, conformances: PersistentModel)
public macro Model(_ name: String? = nil, renamedFrom: String? = nil) =
    #externalMacro(module: "StrataMacrosPlugin", type: "ModelMacro")

/// What an ``Attribute(_:name:rules:renamedFrom:)`` is besides stored.
public enum AttributeOption: Sendable {
    /// Kept in an index: filters and sorts on it are answered without a scan.
    case indexed
    /// No two records may hold the same non-null value.
    case unique
    /// A `CompositeAttribute` (an address), stored and queried as its fields.
    case composite
}

/// How a stored property of a ``Model(_:renamedFrom:)`` is stored: indexed, unique, validated, under
/// another name, renamed from the previous version's name.
@attached(peer)
public macro Attribute(
    _ options: AttributeOption..., name: String? = nil, rules: [ValidationRule] = [], renamedFrom: String? = nil
) = #externalMacro(module: "StrataMacrosPlugin", type: "MarkerMacro")

/// An attribute with the value a migration fills in for records written before it existed, when
/// the property has no literal initial value to take it from.
@attached(peer)
public macro Attribute<V>(
    _ options: AttributeOption..., name: String? = nil, default: V, rules: [ValidationRule] = [],
    renamedFrom: String? = nil
) = #externalMacro(module: "StrataMacrosPlugin", type: "MarkerMacro")

/// A date the engine keeps (see `AutomaticTimestamp`): `@Timestamp(.creation) var created: Date`.
@attached(peer)
public macro Timestamp(_ kind: AutomaticTimestamp, name: String? = nil, indexed: Bool = false) =
    #externalMacro(module: "StrataMacrosPlugin", type: "MarkerMacro")

/// An attribute the engine computes (see `Derivation`): how many records a to-many holds,
/// `@Derived(count: Album.songs) var songCount = 0`.
@attached(peer)
public macro Derived(count relationship: Any, name: String? = nil, indexed: Bool = false) =
    #externalMacro(module: "StrataMacrosPlugin", type: "MarkerMacro")

/// A derived attribute holding another text attribute case- and diacritic-folded:
/// `@Derived(folding: \Album.title, indexed: true) var titleKey = ""`.
@attached(peer)
public macro Derived(folding source: AnyKeyPath, name: String? = nil, indexed: Bool = false) =
    #externalMacro(module: "StrataMacrosPlugin", type: "MarkerMacro")

/// A derived attribute computed by a named function of the model:
/// `@Derived(function: "label", { (album: Album) in album.title }) var label = ""`.
@attached(peer)
public macro Derived(function: String, name: String? = nil, indexed: Bool = false, _ compute: Any) =
    #externalMacro(module: "StrataMacrosPlugin", type: "MarkerMacro")

/// A property of the struct that is not stored (a cache, a derived value); it needs an initial value.
@attached(peer)
public macro Transient() = #externalMacro(module: "StrataMacrosPlugin", type: "MarkerMacro")

/// A relationship. On a stored `Destination.ID?` (or `Destination.ID`, required) property, a to-one
/// (the destination is read from the type, or given with `to:`); on a `static var name:
/// ToMany<Self, Destination>`, a to-many named after the property (the macro writes its getter).
/// The inverse is a `ToMany` of the destination, or a key path to the destination's to-one; its
/// type is checked where the macro writes it into the entity. `renamedFrom:` is its name in the
/// previous schema version (a migration renames it).
@attached(peer)
public macro Relationship(
    to destination: Any.Type? = nil, inverse: Any? = nil, ordered: Bool = false, deleteRule: DeleteRule = .nullify,
    minCount: Int? = nil, maxCount: Int? = nil, renamedFrom: String? = nil
) = #externalMacro(module: "StrataMacrosPlugin", type: "MarkerMacro")

/// Written by ``Model(_:renamedFrom:)`` on a `static var name: ToMany<…>` without a value: its getter,
/// `ToMany("name")`. Not for use by hand.
@attached(accessor)
public macro _ToManyName() = #externalMacro(module: "StrataMacrosPlugin", type: "ToManyNameMacro")
