import Foundation

/// Attributes the engine computes (see `Derivation`): declared like an attribute, kept by every save.
extension EntityMember where Model: PersistentModel {
    /// How many records the to-many `relationship` holds, kept by every save that changes its
    /// membership from either side (Core Data's `count` derived attribute, "to avoid a join").
    ///
    /// ```swift
    /// .derived(\.stopCount, count: Trip.stops, indexed: true)
    /// ```
    public static func derived<Destination>(
        _ keyPath: any KeyPath<Model, Int> & Sendable, count relationship: ToMany<Model, Destination>,
        name: String? = nil, indexed: Bool = false
    ) -> EntityMember {
        attribute(keyPath, name: name, indexed: indexed).deriving(.success(.count(relationship.name)))
    }

    /// The text attribute `source`, case- and diacritic-folded as the engine folds
    /// (`"Évora"` → `"evora"`): an equality on it is an index lookup where a `.caseInsensitive`
    /// filter on the source is a scan.
    ///
    /// ```swift
    /// .derived(\.searchKey, folding: \.name, indexed: true)
    /// ```
    public static func derived(
        _ keyPath: any KeyPath<Model, String> & Sendable, folding source: any KeyPath<Model, String> & Sendable,
        name: String? = nil, indexed: Bool = false
    ) -> EntityMember {
        attribute(keyPath, name: name, indexed: indexed).deriving(
            KeyPathName.resolve(source as PartialKeyPath<Model>).map(Derivation.folded))
    }

    /// An optional folded form of an optional text attribute: nil when the source is nil.
    public static func derived(
        _ keyPath: any KeyPath<Model, String?> & Sendable, folding source: any KeyPath<Model, String?> & Sendable,
        name: String? = nil, indexed: Bool = false
    ) -> EntityMember {
        attribute(keyPath, name: name, indexed: indexed).deriving(
            KeyPathName.resolve(source as PartialKeyPath<Model>).map(Derivation.folded))
    }

    /// A function of the record's own values, computed by every save that writes the record.
    /// `function` names it in the store's recorded schema (renaming it is a migration that
    /// recomputes every record); the closure gets the model as the save will write it.
    ///
    /// ```swift
    /// .derived(\.label, function: "label") { (stop: Stop) in "\(stop.city): \(stop.name)" }
    /// ```
    public static func derived<V: AttributeConvertible>(
        _ keyPath: any KeyPath<Model, V> & Sendable, function: String, name: String? = nil, indexed: Bool = false,
        _ compute: @escaping @Sendable (Model) throws -> V
    ) -> EntityMember {
        let derivation = Derivation.function(function) { record in
            try compute(try Model(record: record)).attributeValue
        }
        return attribute(keyPath, name: name, indexed: indexed).deriving(.success(derivation))
    }

    private func deriving(_ derivation: Result<Derivation, StrataError>) -> EntityMember {
        switch derivation {
        case .success(let derivation): return mappingAttributes { $0.derivation = derivation }
        case .failure(let error):
            var member = self
            member.part = .attributes(.failure(error))
            return member
        }
    }
}
