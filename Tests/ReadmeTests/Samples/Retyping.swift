// swift-format-ignore-file
// (DocC blocks are held here verbatim: ReadmeSampleTests compares them.)
// Migrations article, "Changing an attribute's type".
import Foundation
import Strata

func retypingPlan(v1: Schema, v2: Schema) -> MigrationPlan {
    MigrationPlan(
        versions: [SchemaVersion("1", v1), SchemaVersion("2", v2)],
        stages: [
            .lightweight(from: "1", to: "2", converting: [
                .parsing("Stop", "nights"),                  // was text: "3" → 3
                .rounding("Trip", "budget", .toNearestOrEven),  // was a double
                .custom("Trip", "name") { value in           // anything else, by hand
                    if case .int(let number) = value { return .string("Trip \(number)") }
                    return nil                               // does not convert: the migration fails
                },
            ])
        ])
}

func pricesToDecimals(v1: Schema, v2: Schema) -> MigrationPlan {
    MigrationPlan(
        versions: [SchemaVersion("1", v1), SchemaVersion("2", v2)],
        stages: [
            .lightweight(from: "1", to: "2", converting: [
                .custom("Invoice", "total") { value in      // a Double of money, now a Decimal
                    guard case .double(let amount) = value else { return nil }
                    return DecimalForm.parse(String(amount)).map(Value.decimal)   // 19.99, exactly
                },
            ])
        ])
}
