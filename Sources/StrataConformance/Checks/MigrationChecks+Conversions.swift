import Foundation
import Strata

/// Type-changing lightweight migrations, by Core Data's rules: lossless changes inferred (values
/// converted, indexes answering for them), lossy ones refused without a conversion, converted with
/// one, and a value that does not convert failing the migration naming it, the store untouched.
extension MigrationChecks {
    /// The fixture schema with each `(entity, attribute)` given a new type.
    static func schema(retyping changes: [(String, String, AttributeType)]) throws -> Schema {
        var entities = try TravelDomain.schema().entities
        for (entity, attribute, type) in changes {
            guard let owner = entities.firstIndex(where: { $0.name == entity }),
                let index = entities[owner].attributes.firstIndex(where: { $0.name == attribute })
            else { throw StrataError(.unknownProperty, entity: entity, property: attribute, "not in the fixture") }
            entities[owner].attributes[index].type = type
            entities[owner].attributes[index].defaultValue = nil  // the old type's default
            entities[owner].attributes[index].rules = []  // and its rules (a range is for numbers)
        }
        return try Schema(entities: entities)
    }

    static let conversions: [ConformanceCheck] = [
        ConformanceCheck(.migration, "losslessTypeChangesAreInferredAndTheirValuesConverted", requires: [.migrate]) {
            c in
            let (store, data) = try await c.seeded()
            try await store.repository(Sample.self).insert(contentsOf: [
                Sample(id: "s1", number: 2.5, count: 3), Sample(id: "s2", number: -0.125, count: nil),
                Sample(id: "s3", number: nil, count: -9_007_199_254_740_992),
            ])
            let changed = try schema(retyping: [
                ("Sample", "count", .double), ("Sample", "number", .string), ("Person", "isVerified", .int),
                ("Stop", "nights", .string), ("Trip", "isFavorite", .string),
            ])
            let steps = try LightweightMigration.steps(from: SchemaDescription(try TravelDomain.schema()), to: changed)
            try expect(
                steps.contains(
                    .changeType(entity: "Sample", attribute: "count", from: .int, to: .double, explicit: false)),
                "the change is an inferred step: \(steps)")
            let migrated = try await Self.migrated(c, store, to: changed, untouched: ["Tag"])
            let samples = try await records(migrated, "Sample")
            try expectEqual(samples[.string("s1")]?["count"], .double(3), "an integer made a double")
            try expectEqual(samples[.string("s2")]?["count"], .null, "null stays null")
            try expectEqual(samples[.string("s3")]?["count"], .double(-9_007_199_254_740_992), "exact at -2^53")
            try expectEqual(samples[.string("s1")]?["number"], .string("2.5"), "a double made text")
            try expectEqual(samples[.string("s2")]?["number"], .string("-0.125"))
            try expectEqual(
                try await records(migrated, "Person")[data.ana.id.recordID]?["isVerified"], .int(1),
                "a bool made 0 or 1")
            try expectEqual(
                try await records(migrated, "Stop")[data.ribeira.id.recordID]?["nights"], .string("3"),
                "an integer made text")
            try expectEqual(
                try await records(migrated, "Trip")[data.azoresHike.id.recordID]?["isFavorite"], .string("true"),
                "a bool made text")
            try expectEqual(
                try await ids(migrated, "Sample", where: "count", is: .double(3)), [RecordID.string("s1")],
                "the index answers the new type")
        },
        ConformanceCheck(
            .migration, "aLossyTypeChangeNeedsAConversionAndAValueThatDoesNotConvertChangesNothing",
            requires: [.migrate]
        ) {
            c in
            let (store, _) = try await c.seeded()
            try await store.repository(Sample.self).insert(contentsOf: [
                Sample(id: "s1", key: "2026-11-26T10:00:00Z", text: "12", number: 2.7, amount: 19.99),
                Sample(id: "s2", key: "2026-11-26T10:00:00.250Z", text: "-4", number: -2.7),
            ])
            let changed = try schema(retyping: [
                ("Sample", "text", .int), ("Sample", "number", .int), ("Sample", "key", .date),
                ("Sample", "amount", .int),
            ])
            let v1 = try TravelDomain.schema()
            func plan(_ conversions: [AttributeConversion]) -> MigrationPlan {
                MigrationPlan(
                    versions: [SchemaVersion("1", v1), SchemaVersion("2", changed)],
                    stages: [.lightweight(from: "1", to: "2", converting: conversions)])
            }
            let (refusal, reopened) = try await expectMigrationRefused(c, store, .migrationRequired, entity: "Sample") {
                _ = try await c.migrate(store, to: changed, plan: plan([]))
            }
            try expect(refusal.message.contains("conversion"), "the error says a conversion is needed: \(refusal)")
            let conversions: [AttributeConversion] = [
                .parsing("Sample", "text"), .rounding("Sample", "number"), .parsing("Sample", "key"),
                .custom("Sample", "amount") { value in  // euros to cents
                    if case .double(let euros) = value { return .int(Int64((euros * 100).rounded())) }
                    return nil
                },
            ]
            try await reopened.repository(Sample.self).insert(Sample(id: "s3", text: "twelve"))
            let (error, again) = try await expectMigrationRefused(
                c, reopened, .typeMismatch, entity: "Sample", property: "text"
            ) {
                _ = try await c.migrate(reopened, to: changed, plan: plan(conversions))
            }
            try expectEqual(error.recordID, RecordID.string("s3"), "the record whose value does not convert")
            try expect(error.message.contains("twelve"), "and its value: \(error)")
            try await again.repository(Sample.self).delete("s3")
            let migrated = try await c.migrate(again, to: changed, plan: plan(conversions))
            let samples = try await records(migrated, "Sample")
            try expectEqual(samples[.string("s1")]?["text"], .int(12), "text parsed")
            try expectEqual(samples[.string("s2")]?["text"], .int(-4))
            try expectEqual(samples[.string("s1")]?["amount"], .int(1_999), "a custom conversion")
            try expectEqual(samples[.string("s1")]?["number"], .int(2), "rounded toward zero")
            try expectEqual(samples[.string("s2")]?["number"], .int(-2))
            try expectEqual(
                samples[.string("s1")]?["key"], .date(Date(timeIntervalSince1970: 1_795_687_200)), "ISO 8601")
            try expectEqual(
                samples[.string("s2")]?["key"], .date(Date(timeIntervalSince1970: 1_795_687_200.25)), "with fractions")
        },
        ConformanceCheck(
            .migration, "integersBecomeDecimalsByThemselvesAndMoneyByACustomConversion", requires: [.migrate]
        ) {
            c in
            let (store, _) = try await c.seeded()
            try await store.repository(Sample.self).insert(contentsOf: [
                Sample(id: "s1", amount: 19.99, count: 3),
                Sample(id: "s2", amount: 0.1, count: -9_223_372_036_854_775_808),
            ])
            let changed = try schema(retyping: [("Sample", "count", .decimal), ("Sample", "amount", .decimal)])
            let plan = MigrationPlan(
                versions: [SchemaVersion("1", try TravelDomain.schema()), SchemaVersion("2", changed)],
                stages: [
                    .lightweight(
                        from: "1", to: "2",
                        converting: [
                            .custom("Sample", "amount") { value in  // the double's shortest text: what was written
                                guard case .double(let amount) = value else { return nil }
                                return DecimalForm.parse(String(amount)).map(Value.decimal)
                            }
                        ])
                ])
            let migrated = try await c.migrate(store, to: changed, plan: plan)
            let samples = try await records(migrated, "Sample")
            try expectEqual(samples[.string("s1")]?["amount"], .decimal(ValueChecks.decimal("19.99")), "19.99 exactly")
            try expectEqual(samples[.string("s2")]?["amount"], .decimal(ValueChecks.decimal("0.1")))
            try expectEqual(samples[.string("s1")]?["count"], .decimal(3), "an integer made a decimal, inferred")
            try expectEqual(
                samples[.string("s2")]?["count"], .decimal(ValueChecks.decimal("-9223372036854775808")),
                "exact at -2^63")
            try expectEqual(
                try await ids(migrated, "Sample", where: "count", is: .decimal(3)), [RecordID.string("s1")],
                "the index answers the decimal")
        },
        ConformanceCheck(
            .migration, "anIntegerThatADoubleCannotHoldExactlyFailsTheMigrationNamingIt", requires: [.migrate]
        ) { c in
            let (store, _) = try await c.seeded()
            try await store.repository(Sample.self).insert(contentsOf: [
                Sample(id: "ok", count: 7), Sample(id: "big", count: 9_007_199_254_740_993),
            ])
            let changed = try schema(retyping: [("Sample", "count", .double)])
            let (error, _) = try await expectMigrationRefused(
                c, store, .typeMismatch, entity: "Sample", property: "count"
            ) {
                _ = try await c.migrate(store, to: changed, plan: try plan(to: changed))
            }
            try expectEqual(error.recordID, RecordID.string("big"), "the record that would lose precision")
        },
    ]
}
