import Foundation

/// Turns a Foundation `#Predicate` into the filter tree, so a predicate written for SwiftData
/// runs on every backend (and in SQL where the backend evaluates filters).
///
/// Supported: `==`, `!=`, `<`, `<=`, `>`, `>=` between a stored property (an attribute, a
/// composite's field, a to-one's ID) and a constant or captured value; `&&`, `||`, `!`; a Bool
/// property on its own; `== nil` / `!= nil`; `property ?? constant` compared with a constant;
/// `property!`; `array.contains($0.property)`; `(a...b).contains($0.property)` and `a..<b`;
/// `$0.text.contains("x")` and `$0.text.starts(with: "x")`. Anything else — arithmetic, two
/// properties compared, optional chaining through a relationship, conditionals — is
/// `StrataError.Code.invalidQuery` naming the expression, when the query runs.
enum PredicateTranslation {
    static func filter<Model: PersistentModel>(_ predicate: Predicate<Model>) -> Filter<Model> {
        do {
            let translator = PredicateTranslator<Model>()
            return Filter(try translator.condition(try translator.node(predicate.expression)))
        } catch let error as StrataError {
            return Filter(.constant(false), failure: error)
        } catch {
            return Filter(
                .constant(false), failure: StrataError(.invalidQuery, entity: Model.entityName, "#Predicate: \(error)"))
        }
    }
}

/// What one sub-expression of a predicate stands for.
enum PredicateNode {
    /// The predicate's argument (`$0`).
    case variable
    /// A key path from the argument.
    case property(AnyKeyPath)
    /// A constant or captured value.
    case constant(Any)
    /// `property ?? constant`.
    case coalesce(AnyKeyPath, Any)
    /// `lower...upper` (`closed`) or `lower..<upper`.
    case range(Any, Any, closed: Bool)
    /// A condition already translated.
    case condition(FilterExpression)
}

/// Every `PredicateExpressions` type Strata understands translates itself.
protocol PredicateTranslatable {
    func node<Model: PersistentModel>(_ translator: PredicateTranslator<Model>) throws -> PredicateNode
}

struct PredicateTranslator<Model: PersistentModel> {
    func node(_ expression: Any) throws -> PredicateNode {
        guard let translatable = expression as? any PredicateTranslatable else { throw unsupported(expression) }
        return try translatable.node(self)
    }

    func unsupported(_ expression: Any, _ why: String = "not supported") -> StrataError {
        let name = String(describing: type(of: expression)).split(separator: "<").first.map(String.init) ?? "expression"
        return StrataError(
            .invalidQuery, entity: Model.entityName,
            "#Predicate: \(name) is \(why) (Strata translates comparisons of stored properties with constants, &&, ||, !, contains, starts(with:), ranges, ?? and nil checks)"
        )
    }

    /// The stored property a key path names.
    func name(_ keyPath: AnyKeyPath) throws -> String {
        guard let partial = keyPath as? PartialKeyPath<Model> else {
            throw StrataError(
                .invalidQuery, entity: Model.entityName, "#Predicate: \(keyPath) does not start at \(Model.self)")
        }
        return try Model.entity.propertyName(partial).get()
    }

    func value(_ constant: Any, for expression: Any) throws -> Value {
        if let value = constant as? Value { return value }
        guard let convertible = constant as? any AttributeConvertible else {
            throw unsupported(expression, "comparing with a \(type(of: constant)), which is not a stored value type")
        }
        return convertible.attributeValue
    }

    /// A node that must be a condition: a Bool property stands for `property == true`.
    func condition(_ node: PredicateNode) throws -> FilterExpression {
        switch node {
        case .condition(let expression): return expression
        case .property(let keyPath): return .compare(try name(keyPath), .equal, .bool(true), [])
        case .constant(let flag as Bool): return .constant(flag)
        default:
            throw StrataError(
                .invalidQuery, entity: Model.entityName, "#Predicate: a part of the predicate is not a condition")
        }
    }

    /// `left op right` where one side is a property (perhaps `?? default`) and the other a constant.
    func compare(_ left: PredicateNode, _ op: ComparisonOperator, _ right: PredicateNode, _ expression: Any) throws
        -> PredicateNode
    {
        switch (left, right) {
        case (.property(let keyPath), .constant(let constant)):
            let property = try name(keyPath)
            let value = try self.value(constant, for: expression)
            if value.isNull {
                switch op {
                case .equal: return .condition(.isNil(property))
                case .notEqual: return .condition(.not(.isNil(property)))
                default: throw unsupported(expression, "an ordering comparison with nil")
                }
            }
            return .condition(.compare(property, op, value, []))
        case (.coalesce(let keyPath, let fallback), .constant(let constant)):
            let property = try name(keyPath)
            let value = try self.value(constant, for: expression)
            let fallbackValue = try self.value(fallback, for: expression)
            let comparison = FilterExpression.compare(property, op, value, [])
            // `x ?? d op c`: x's comparison, or — where x is nil — whether `d op c` holds.
            return .condition(
                PredicateEvaluator.compare(fallbackValue, op, value) ? .or([comparison, .isNil(property)]) : comparison)
        case (.constant, .property), (.constant, .coalesce):
            return try compare(right, op.flipped, left, expression)
        default:
            throw unsupported(expression, "not a comparison of a stored property with a constant")
        }
    }
}

extension ComparisonOperator {
    /// The operator with its operands swapped: `c < x` is `x > c`.
    var flipped: ComparisonOperator {
        switch self {
        case .equal: .equal
        case .notEqual: .notEqual
        case .less: .greater
        case .lessOrEqual: .greaterOrEqual
        case .greater: .less
        case .greaterOrEqual: .lessOrEqual
        }
    }
}

extension PredicateExpressions.Variable: PredicateTranslatable {
    func node<Model: PersistentModel>(_ translator: PredicateTranslator<Model>) throws -> PredicateNode { .variable }
}

extension PredicateExpressions.KeyPath: PredicateTranslatable {
    func node<Model: PersistentModel>(_ translator: PredicateTranslator<Model>) throws -> PredicateNode {
        switch try translator.node(root) {
        case .variable: return .property(keyPath)
        case .property(let base):
            guard let joined = base.appending(path: keyPath) else {
                throw translator.unsupported(self, "a key path that cannot be joined")
            }
            return .property(joined)
        default: throw translator.unsupported(self, "a key path on something other than the model")
        }
    }
}

extension PredicateExpressions.Value: PredicateTranslatable {
    func node<Model: PersistentModel>(_ translator: PredicateTranslator<Model>) throws -> PredicateNode {
        .constant(value)
    }
}

extension PredicateExpressions.NilLiteral: PredicateTranslatable {
    func node<Model: PersistentModel>(_ translator: PredicateTranslator<Model>) throws -> PredicateNode {
        .constant(Value.null)
    }
}

extension PredicateExpressions.ForcedUnwrap: PredicateTranslatable {
    /// `x!` compares as `x` (a nil never compares true), rather than trapping.
    func node<Model: PersistentModel>(_ translator: PredicateTranslator<Model>) throws -> PredicateNode {
        try translator.node(inner)
    }
}

extension PredicateExpressions.NilCoalesce: PredicateTranslatable {
    func node<Model: PersistentModel>(_ translator: PredicateTranslator<Model>) throws -> PredicateNode {
        guard case .property(let keyPath) = try translator.node(lhs),
            case .constant(let fallback) = try translator.node(rhs)
        else {
            throw translator.unsupported(self, "supported only as `property ?? constant`")
        }
        return .coalesce(keyPath, fallback)
    }
}

extension PredicateExpressions.Equal: PredicateTranslatable {
    func node<Model: PersistentModel>(_ translator: PredicateTranslator<Model>) throws -> PredicateNode {
        try translator.compare(try translator.node(lhs), .equal, try translator.node(rhs), self)
    }
}

extension PredicateExpressions.NotEqual: PredicateTranslatable {
    func node<Model: PersistentModel>(_ translator: PredicateTranslator<Model>) throws -> PredicateNode {
        try translator.compare(try translator.node(lhs), .notEqual, try translator.node(rhs), self)
    }
}

extension PredicateExpressions.Comparison: PredicateTranslatable {
    func node<Model: PersistentModel>(_ translator: PredicateTranslator<Model>) throws -> PredicateNode {
        let mapped: ComparisonOperator =
            switch op {
            case .lessThan: .less
            case .lessThanOrEqual: .lessOrEqual
            case .greaterThan: .greater
            case .greaterThanOrEqual: .greaterOrEqual
            @unknown default: throw translator.unsupported(self, "an unknown comparison")
            }
        return try translator.compare(try translator.node(lhs), mapped, try translator.node(rhs), self)
    }
}

extension PredicateExpressions.Conjunction: PredicateTranslatable {
    func node<Model: PersistentModel>(_ translator: PredicateTranslator<Model>) throws -> PredicateNode {
        .condition(
            .and([
                try translator.condition(try translator.node(lhs)), try translator.condition(try translator.node(rhs)),
            ]))
    }
}

extension PredicateExpressions.Disjunction: PredicateTranslatable {
    func node<Model: PersistentModel>(_ translator: PredicateTranslator<Model>) throws -> PredicateNode {
        .condition(
            .or([
                try translator.condition(try translator.node(lhs)), try translator.condition(try translator.node(rhs)),
            ]))
    }
}

extension PredicateExpressions.Negation: PredicateTranslatable {
    func node<Model: PersistentModel>(_ translator: PredicateTranslator<Model>) throws -> PredicateNode {
        .condition(.not(try translator.condition(try translator.node(wrapped))))
    }
}

extension PredicateExpressions.SequenceContains: PredicateTranslatable {
    /// `[a, b].contains($0.property)`: the property is one of the values.
    func node<Model: PersistentModel>(_ translator: PredicateTranslator<Model>) throws -> PredicateNode {
        guard case .constant(let list) = try translator.node(sequence), let values = list as? any Sequence,
            case .property(let keyPath) = try translator.node(element)
        else { throw translator.unsupported(self, "supported only as `constants.contains($0.property)`") }
        var constants: [Value] = []
        for item in values { constants.append(try translator.value(item, for: self)) }
        return .condition(.inList(try translator.name(keyPath), constants, []))
    }
}

extension PredicateExpressions.ClosedRange: PredicateTranslatable {
    func node<Model: PersistentModel>(_ translator: PredicateTranslator<Model>) throws -> PredicateNode {
        guard case .constant(let low) = try translator.node(lower),
            case .constant(let high) = try translator.node(upper)
        else {
            throw translator.unsupported(self, "supported only between constants")
        }
        return .range(low, high, closed: true)
    }
}

extension PredicateExpressions.Range: PredicateTranslatable {
    func node<Model: PersistentModel>(_ translator: PredicateTranslator<Model>) throws -> PredicateNode {
        guard case .constant(let low) = try translator.node(lower),
            case .constant(let high) = try translator.node(upper)
        else {
            throw translator.unsupported(self, "supported only between constants")
        }
        return .range(low, high, closed: false)
    }
}

extension PredicateExpressions.RangeExpressionContains: PredicateTranslatable {
    func node<Model: PersistentModel>(_ translator: PredicateTranslator<Model>) throws -> PredicateNode {
        guard case .range(let low, let high, let closed) = try translator.node(range),
            case .property(let keyPath) = try translator.node(element)
        else {
            throw translator.unsupported(self, "supported only as `(a...b).contains($0.property)`")
        }
        let property = try translator.name(keyPath)
        let lower = try translator.value(low, for: self)
        let upper = try translator.value(high, for: self)
        return .condition(
            closed
                ? .between(property, lower, upper)
                : .and([.compare(property, .greaterOrEqual, lower, []), .compare(property, .less, upper, [])]))
    }
}

extension PredicateExpressions.CollectionContainsCollection: PredicateTranslatable {
    /// `$0.text.contains("x")`.
    func node<Model: PersistentModel>(_ translator: PredicateTranslator<Model>) throws -> PredicateNode {
        guard case .property(let keyPath) = try translator.node(base),
            case .constant(let needle as String) = try translator.node(other)
        else {
            throw translator.unsupported(self, "supported only as `$0.text.contains(\"constant\")`")
        }
        return .condition(.text(try translator.name(keyPath), .contains, needle, []))
    }
}

extension PredicateExpressions.SequenceStartsWith: PredicateTranslatable {
    /// `$0.text.starts(with: "x")`.
    func node<Model: PersistentModel>(_ translator: PredicateTranslator<Model>) throws -> PredicateNode {
        guard case .property(let keyPath) = try translator.node(base),
            case .constant(let prefix as String) = try translator.node(self.prefix)
        else {
            throw translator.unsupported(self, "supported only as `$0.text.starts(with: \"constant\")`")
        }
        return .condition(.text(try translator.name(keyPath), .hasPrefix, prefix, []))
    }
}
