extension FilterExpression {
    /// The expression with its constant parts folded away, so no backend is ever sent a plan whose
    /// predicate is only a constant: inside `and` a `true` part is dropped and a `false` one makes
    /// the whole `false`; inside `or` the reverse; `not` of a constant is the other constant; an
    /// empty `and` is `true`, an empty `or` and an empty `in` list are `false`. A constant under a
    /// relationship operator stays (`relatedOne(r, true)` still asks that the destination exists).
    /// The result is a constant only when the whole expression is one.
    package func foldingConstants() -> FilterExpression {
        switch self {
        case .and(let parts):
            var kept: [FilterExpression] = []
            for part in parts.map({ $0.foldingConstants() }) {
                if case .constant(let value) = part {
                    if value { continue } else { return .constant(false) }
                }
                kept.append(part)
            }
            return kept.isEmpty ? .constant(true) : kept.count == 1 ? kept[0] : .and(kept)
        case .or(let parts):
            var kept: [FilterExpression] = []
            for part in parts.map({ $0.foldingConstants() }) {
                if case .constant(let value) = part {
                    if value { return .constant(true) } else { continue }
                }
                kept.append(part)
            }
            return kept.isEmpty ? .constant(false) : kept.count == 1 ? kept[0] : .or(kept)
        case .not(let inner):
            let folded = inner.foldingConstants()
            if case .constant(let value) = folded { return .constant(!value) }
            return .not(folded)
        case .inList(_, let constants, _) where constants.isEmpty:
            return .constant(false)
        case .relatedOne(let name, let inner):
            return .relatedOne(relationship: name, inner.foldingConstants())
        case .anyRelated(let name, let inner):
            return .anyRelated(relationship: name, inner.foldingConstants())
        case .noneRelated(let name, let inner):
            return .noneRelated(relationship: name, inner.foldingConstants())
        case .elements(_, .containsAny(let constants)) where constants.isEmpty:
            return .constant(false)
        case .constant, .compare, .inList, .between, .text, .isNil, .elements, .documentPath, .search:
            return self
        }
    }

    /// Whether the expression, folded, matches no record at all.
    package var matchesNothing: Bool { self == .constant(false) }
}
