/// How the engine computes a derived attribute (Core Data's `NSDerivedAttributeDescription`).
///
/// A derived attribute is stored like any other — queryable, indexable, sortable — but only the
/// engine writes it: every save recomputes it for every record whose inputs the save changed, in the
/// same transaction, on every write path (repositories, transactions, contexts, cascades, batch
/// deletes, a sync server's apply and a client's pull, migrations). A value a caller puts there is
/// replaced; a patch that names it is refused.
///
/// - ``count(_:)``: how many records a to-many relationship of the record holds (an `int`), kept
///   when members join or leave from either side, are deleted, cascaded or moved.
/// - ``folded(_:)``: another text attribute folded as the engine folds for case- and
///   diacritic-insensitive comparison (Core Data's `canonical:`), so an equality on it is an index
///   lookup.
/// - ``function(_:_:)``: any function of the record's own stored values, named. The name is what a
///   store records; the function lives in the app's code, so a process that opened the store
///   without it (a tool reading the stored schema) cannot write records of that entity.
public struct Derivation: Sendable, Hashable, CustomStringConvertible {
    /// What the value is computed from.
    public enum Source: Sendable, Hashable {
        /// The number of records a to-many relationship holds.
        case count(relationship: String)
        /// A text attribute, case- and diacritic-folded.
        case folded(attribute: String)
        /// A named function of the record's own values.
        case function(name: String)
    }

    /// What the value is computed from.
    public let source: Source
    /// The function of a ``Source/function(name:)`` derivation; `nil` when it was read from a
    /// store's recorded schema rather than declared by the app.
    public let compute: (@Sendable (Record) throws -> Value)?

    private init(_ source: Source, compute: (@Sendable (Record) throws -> Value)? = nil) {
        self.source = source
        self.compute = compute
    }

    /// How many records the to-many `relationship` of the record holds.
    public static func count(_ relationship: String) -> Derivation { Derivation(.count(relationship: relationship)) }

    /// The text attribute `attribute`, case- and diacritic-folded (nil when it is nil).
    public static func folded(_ attribute: String) -> Derivation { Derivation(.folded(attribute: attribute)) }

    /// A function of the record's own values, recorded under `name`. It receives the record as the
    /// save will write it (its other derived attributes as they were) and returns the value, which
    /// must have the attribute's type; a thrown error refuses the save.
    public static func function(_ name: String, _ compute: @escaping @Sendable (Record) throws -> Value) -> Derivation {
        Derivation(.function(name: name), compute: compute)
    }

    /// `text` as a ``folded(_:)`` derivation stores it: case- and diacritic-folded, in NFC. Fold a
    /// query's constant with it to look the folded attribute up (`\.titleKey == Derivation.fold(input)`).
    public static func fold(_ text: String) -> String {
        PredicateEvaluator.fold(text, [.caseInsensitive, .diacriticInsensitive])
    }

    /// The recorded form: `count(stops)`, `folded(name)` or `function(label)`.
    public var description: String {
        switch source {
        case .count(let relationship): "count(\(relationship))"
        case .folded(let attribute): "folded(\(attribute))"
        case .function(let name): "function(\(name))"
        }
    }

    /// A derivation from its recorded form; a function's body is not recorded, so it has none.
    public init?(recorded text: String) {
        guard text.hasSuffix(")"), let open = text.firstIndex(of: "(") else { return nil }
        let argument = String(text[text.index(after: open)..<text.index(before: text.endIndex)])
        guard !argument.isEmpty else { return nil }
        switch text[..<open] {
        case "count": self.init(.count(relationship: argument))
        case "folded": self.init(.folded(attribute: argument))
        case "function": self.init(.function(name: argument))
        default: return nil
        }
    }

    /// The same derivation with the app's function for a recorded one of the same name.
    package func adopting(_ declared: Derivation?) -> Derivation {
        guard compute == nil, let declared, declared.source == source else { return self }
        return declared
    }

    public static func == (lhs: Derivation, rhs: Derivation) -> Bool { lhs.source == rhs.source }

    public func hash(into hasher: inout Hasher) { hasher.combine(source) }
}
