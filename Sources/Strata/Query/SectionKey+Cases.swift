/// An enum value ordered by its declaration: the key of ``SectionKey/cases(_:)`` sections, so that
/// "by status" sections follow the order the enum lists its cases in (Swift gives an enum with raw
/// values no `<`, and a `String` one's raw values would sort alphabetically).
public struct DeclarationOrder<Value: CaseIterable & Hashable & Sendable>: Hashable, Comparable, Sendable {
    /// The enum value.
    public let value: Value
    /// Its position in `Value.allCases`.
    public let position: Int

    /// `value`, placed by its position in `Value.allCases`.
    public init(_ value: Value) {
        self.value = value
        position =
            Value.allCases.firstIndex(of: value).map {
                Value.allCases.distance(from: Value.allCases.startIndex, to: $0)
            } ?? Int.max
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.position < rhs.position }
}

extension SectionKey {
    /// Sections by an enum attribute, in the order the enum declares its cases (each section's key
    /// is a ``DeclarationOrder``; `key.value` is the case). A `Comparable` enum can use
    /// `attribute(_:)` instead, in its own `<` order.
    ///
    /// ```swift
    /// let byStatus = try await people.fetch(Query<Person>.all, sectionedBy: .cases(\.status))
    /// for section in byStatus.sections { print(section.key?.value as Any, section.count) }
    /// ```
    public static func cases<E>(_ keyPath: any KeyPath<Model, E> & Sendable) -> SectionKey
    where Key == DeclarationOrder<E> {
        SectionKey { DeclarationOrder($0[keyPath: keyPath]) }
    }

    /// Sections by an optional enum attribute, in declaration order (models holding nil first).
    public static func cases<E>(_ keyPath: any KeyPath<Model, E?> & Sendable) -> SectionKey
    where Key == DeclarationOrder<E> {
        SectionKey { $0[keyPath: keyPath].map(DeclarationOrder.init) }
    }
}
