extension FilterExpression {
    /// How much a relationship step adds to ``nesting``: a translation nests a subquery for it,
    /// which costs a parser several times what a `!` or a parenthesis does.
    public static let relationshipNesting = 4

    /// How deeply a translation of the expression nests, measured along its deepest path: each
    /// `&&`, `||` and `!` counts one, each relationship step (to-one, `any`, `none`) and each
    /// element test ``relationshipNesting``, any other comparison nothing. A backend whose translator has a fixed stack
    /// declares the deepest it takes as ``FetchCapabilities/maximumNesting``.
    ///
    /// Recursive, and bounded by the expression's depth: filters from outside are limited while
    /// they are parsed (the filter text's `maximumDepth`).
    public var nesting: Int {
        switch self {
        case .and(let parts), .or(let parts): 1 + (parts.map(\.nesting).max() ?? 0)
        case .not(let inner): 1 + inner.nesting
        case .relatedOne(_, let inner), .anyRelated(_, let inner), .noneRelated(_, let inner):
            Self.relationshipNesting + inner.nesting
        case .elements: Self.relationshipNesting
        case .constant, .compare, .inList, .between, .text, .isNil, .documentPath, .search: 0
        }
    }
}
