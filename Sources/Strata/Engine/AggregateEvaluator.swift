import Foundation

/// Checks `AggregatePlan`s against the schema and evaluates them over records: the engine's
/// answer wherever a backend does not declare `FetchCapabilities.aggregating`, and the
/// reference the SQL backends' `GROUP BY` reproduces.
enum AggregateEvaluator {
    /// Throws the typed error a plan deserves: an unknown property, a function over a type it
    /// does not apply to, a grouping by something that is not an attribute or to-one.
    static func validate(_ plan: AggregatePlan, _ entity: EntityDescription) throws {
        guard !plan.functions.isEmpty else {
            throw StrataError(.invalidQuery, entity: entity.name, "an aggregate needs at least one function")
        }
        if let group = plan.groupBy, !entity.isStoredProperty(group) {
            throw StrataError(
                .unknownProperty, entity: entity.name, property: group,
                "cannot group by \(group): not an attribute or to-one of \(entity.name)")
        }
        if let group = plan.groupBy, let attribute = entity.attribute(group), !attribute.type.isScalar {
            throw StrataError(
                .invalidQuery, entity: entity.name, property: group,
                "cannot group by \(group): a \(attribute.type.rawValue) is not a scalar")
        }
        for function in plan.functions {
            guard let name = function.property else { continue }
            guard let attribute = entity.attribute(name) else {
                throw StrataError(
                    .unknownProperty, entity: entity.name, property: name,
                    "cannot compute \(function): \(name) is not an attribute of \(entity.name)")
            }
            let allowed: Set<AttributeType>
            switch function {
            case .sum, .average: allowed = [.int, .double, .decimal]
            default: allowed = [.int, .double, .string, .date, .decimal]
            }
            guard allowed.contains(attribute.type) else {
                let types = allowed.map(\.rawValue).sorted().joined(separator: ", ")
                throw StrataError(
                    .typeMismatch, entity: entity.name, property: name,
                    "cannot compute \(function) of \(entity.name).\(name): it is \(attribute.type), and "
                        + "\(function.name) applies to \(types) attributes")
            }
        }
    }

    /// The plan's rows over `records` (already filtered by its predicate).
    static func evaluate(_ plan: AggregatePlan, _ records: [Record], _ entity: EntityDescription) throws
        -> [AggregateRow]
    {
        var groups: [Value: [Record]] = [:]
        var order: [Value] = []
        if let property = plan.groupBy {
            let type = entity.attribute(property)?.type
            for record in records {
                let key = normalized(record[property], type)
                if groups[key] == nil { order.append(key) }
                groups[key, default: []].append(record)
            }
            order.sort { Value.sortOrder($0, $1) == .ascending }
        } else {
            groups[.null] = records
            order = [.null]
        }
        return try order.map { key in
            let members = groups[key] ?? []
            return AggregateRow(group: key, values: try plan.functions.map { try value(of: $0, over: members, entity) })
        }
    }

    /// The exact sum of decimals, or their average to 38 significant digits (nil for none); a sum
    /// beyond `Decimal`'s range or past 38 significant digits is `invalidQuery`, never a rounded
    /// result. The numbers are added in order of value, so every backend (whatever order it reads
    /// them in) reaches the same answer or the same refusal.
    private static func decimal(_ function: AggregateFunction, _ numbers: [Decimal], entity: String, property: String)
        throws -> Value
    {
        let inexact = StrataError(
            .invalidQuery, entity: entity, property: property,
            "the sum of \(entity).\(property) is not exact in a decimal's 38 significant digits")
        var total = Decimal(0)
        for number in numbers.sorted() {
            var (left, right, sum) = (total, number, Decimal())
            guard NSDecimalAdd(&sum, &left, &right, .plain) == .noError else { throw inexact }
            // Foundation may round a sum past its mantissa and say nothing: taking the number off
            // again must give the total back.
            var (back, probe, added) = (Decimal(), sum, number)
            guard NSDecimalSubtract(&back, &probe, &added, .plain) == .noError, back == total else { throw inexact }
            total = sum
        }
        guard DecimalForm.significantDigitCount(total) <= 38 else { throw inexact }
        guard case .average = function else { return .decimal(DecimalForm.canonical(total)) }
        guard !numbers.isEmpty else { return .null }
        var (sum, count, average) = (total, Decimal(numbers.count), Decimal())
        _ = NSDecimalDivide(&average, &sum, &count, .plain)
        return .decimal(DecimalForm.canonical(average))
    }

    /// A `double` attribute may hold an `int` (it accepts one); it aggregates and groups as the
    /// double every SQL backend reads back.
    private static func normalized(_ value: Value, _ type: AttributeType?) -> Value {
        if type == .double, case .int(let number) = value { return .double(Double(number)) }
        return value
    }

    private static func value(of function: AggregateFunction, over records: [Record], _ entity: EntityDescription)
        throws -> Value
    {
        guard let property = function.property, let attribute = entity.attribute(property) else {
            return .int(Int64(records.count))
        }
        let values = records.lazy.map { normalized($0[property], attribute.type) }.filter { !$0.isNull }
        switch function {
        case .count:
            return .int(Int64(records.count))
        case .sum, .average:
            if attribute.type == .decimal {
                return try decimal(
                    function, values.compactMap { if case .decimal(let n) = $0 { n } else { nil } },
                    entity: entity.name, property: property)
            }
            if attribute.type == .int {
                var total: Int128 = 0
                var count = 0
                for case .int(let number) in values {
                    total += Int128(number)
                    count += 1
                }
                if case .average = function { return count == 0 ? .null : .double(Double(total) / Double(count)) }
                guard let sum = Int64(exactly: total) else {
                    throw StrataError.sumOverflow(entity: entity.name, property: property)
                }
                return .int(sum)
            }
            var total = 0.0
            var count = 0
            for case .double(let number) in values {
                total += number
                count += 1
            }
            if case .average = function { return count == 0 ? .null : .double(total / Double(count)) }
            return .double(total)
        case .min, .max:
            let wanted: ComparisonOrder = if case .min = function { .ascending } else { .descending }
            var best: Value = .null
            for value in values where best.isNull || Value.sortOrder(value, best) == wanted { best = value }
            return best
        }
    }
}
