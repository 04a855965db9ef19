/// The range a predicate's top-level conjuncts confine one property to: what a backend needs to
/// seek an ordered index instead of walking all of it. Written once here so every backend derives
/// the same bounds from the same predicate.
extension FilterExpression {
    /// The tightest inclusive bounds the top-level conjuncts (`==`, `<`, `<=`, `>`, `>=`,
    /// `between`, without text options) put on `property`, in the contract's order.
    ///
    /// Exclusive comparisons are returned as inclusive bounds — an index key may round a value, so
    /// a backend walks the bound and leaves exactness to the evaluator. Constants that cannot
    /// compare with an attribute of `type` (a string against a number, null) bound nothing. A
    /// property with any bound excludes nulls, which never satisfy a comparison.
    public func bounds(of property: String, type: AttributeType) -> (lower: Value?, upper: Value?) {
        func usable(_ value: Value) -> Value? {
            let comparable = type == .int || type == .double ? AttributeType.double.accepts(value) : type.accepts(value)
            return comparable ? value : nil
        }
        var lower: Value?
        var upper: Value?
        func tighten(lower new: Value) {
            guard let new = usable(new) else { return }
            if lower.map({ Value.sortOrder($0, new) == .ascending }) ?? true { lower = new }
        }
        func tighten(upper new: Value) {
            guard let new = usable(new) else { return }
            if upper.map({ Value.sortOrder(new, $0) == .ascending }) ?? true { upper = new }
        }
        let conjuncts: [FilterExpression]
        if case .and(let parts) = self { conjuncts = parts } else { conjuncts = [self] }
        for conjunct in conjuncts {
            switch conjunct {
            case .compare(property, .equal, let value, []):
                tighten(lower: value)
                tighten(upper: value)
            case .compare(property, .greater, let value, []), .compare(property, .greaterOrEqual, let value, []):
                tighten(lower: value)
            case .compare(property, .less, let value, []), .compare(property, .lessOrEqual, let value, []):
                tighten(upper: value)
            case .between(property, let low, let high):
                tighten(lower: low)
                tighten(upper: high)
            default:
                break
            }
        }
        return (lower, upper)
    }
}
