/// An array, set or dictionary attribute that filters can look into: `Member` is what
/// `Filter.contains(_:element:)` looks for (an element; a dictionary's key).
public protocol QueryableCollection: AttributeConvertible {
    /// What contains-tests look for.
    associatedtype Member: AttributeConvertible
}

extension Array: QueryableCollection where Element: AttributeConvertible {
    public typealias Member = Element
}
extension Set: QueryableCollection where Element: AttributeConvertible {
    public typealias Member = Element
}
extension Dictionary: QueryableCollection where Key == String, Value: AttributeConvertible {
    public typealias Member = String
}

/// Filters over arrays, sets and dictionaries, evaluated identically on every backend (pushed down
/// to SQLite's JSON functions and element index, and to PostgreSQL's `jsonb` and GIN index):
///
/// ```swift
/// Filter<Article>.contains(\.tags, element: "swift")
/// Filter<Article>.containsAny(\.tags, of: ["swift", "linux"])
/// Filter<Article>.count(\.tags, .greaterOrEqual, 3)
/// ```
///
/// A nil collection matches none of them.
extension Filter {
    /// Some element equals `element` (numbers numerically); for a dictionary, some key is `element`.
    public static func contains<C: QueryableCollection>(_ keyPath: KeyPath<Model, C>, element: C.Member) -> Filter {
        on(keyPath) { .elements($0, .contains(element.attributeValue)) }
    }
    /// Some element of the optional collection equals `element`.
    public static func contains<C: QueryableCollection>(_ keyPath: KeyPath<Model, C?>, element: C.Member) -> Filter {
        on(keyPath) { .elements($0, .contains(element.attributeValue)) }
    }
    /// Some element equals one of `elements` (an empty list matches nothing).
    public static func containsAny<C: QueryableCollection>(_ keyPath: KeyPath<Model, C>, of elements: [C.Member])
        -> Filter
    {
        on(keyPath) { .elements($0, .containsAny(elements.map(\.attributeValue))) }
    }
    /// Some element of the optional collection equals one of `elements`.
    public static func containsAny<C: QueryableCollection>(_ keyPath: KeyPath<Model, C?>, of elements: [C.Member])
        -> Filter
    {
        on(keyPath) { .elements($0, .containsAny(elements.map(\.attributeValue))) }
    }
    /// The number of elements (a dictionary's entries) compared with `count`.
    public static func count<C: QueryableCollection>(
        _ keyPath: KeyPath<Model, C>, _ op: ComparisonOperator, _ count: Int
    ) -> Filter {
        on(keyPath) { .elements($0, .count(op, count)) }
    }
    /// The number of elements of the optional collection compared with `count` (nil never matches).
    public static func count<C: QueryableCollection>(
        _ keyPath: KeyPath<Model, C?>, _ op: ComparisonOperator, _ count: Int
    ) -> Filter {
        on(keyPath) { .elements($0, .count(op, count)) }
    }
}
