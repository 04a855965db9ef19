import Foundation
import GRDB
import Strata
import StrataConformance
import Testing

@testable import StrataSQLite

/// Every indexable operator is answered from an index, proved by SQLite's own query plan (not by
/// timing): no plan may `SCAN` the queried table.
@Suite("SQLite: query plans")
struct SQLiteQueryPlanTests {
    static let person = Value.uuid(UUID())
    static let trip = Value.uuid(UUID())

    /// The plan SQLite chooses for the statement the backend would run, one line per step.
    static func queryPlan(_ plan: FetchPlan, count: Bool = false) throws -> [String] {
        let layout = SQLiteLayout(schema: try TravelDomain.schema())
        var query = SQLiteQuery(layout: layout)
        let sql = count ? try query.count(plan) : try query.select(plan)
        return try queryPlan(sql, query.arguments, layout)
    }

    static func queryPlan(_ sql: String, _ arguments: [DatabaseValue], _ layout: SQLiteLayout) throws -> [String] {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            db.add(function: SQLiteFunctions.fold())
            db.add(function: SQLiteFunctions.text())
            db.add(function: SQLiteFunctions.sum())
            db.add(function: SQLiteFunctions.average())
        }
        let database = try DatabaseQueue(configuration: configuration)
        try database.write { db in
            for statement in layout.creationStatements() { try db.execute(sql: statement) }
        }
        return try database.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: StatementArguments(arguments)).map {
                $0["detail"] as String
            }
        }
    }

    /// Aggregates are pushed down as one `GROUP BY`: a filter an index answers is searched, not
    /// scanned, and grouping by an indexed property walks that index instead of sorting.
    @Test func aggregatesUseIndexesForTheirFilterAndTheirGroups() throws {
        let layout = SQLiteLayout(schema: try TravelDomain.schema())
        let filtered = AggregatePlan(
            entity: "Trip", predicate: .compare("start", .greaterOrEqual, .date(Date()), []),
            functions: [.count, .sum("budget"), .min("start")])
        let grouped = AggregatePlan(
            entity: "Stop", groupBy: "city", functions: [.count, .sum("nights"), .average("nights")])
        let both = AggregatePlan(
            entity: "Trip", predicate: .compare("traveller", .equal, Self.person, []), groupBy: "traveller",
            functions: [.count])
        for (name, plan) in [("filtered", filtered), ("grouped by an index", grouped), ("filtered and grouped", both)] {
            for exact in [false, true] {
                var query = SQLiteQuery(layout: layout)
                let steps = try Self.queryPlan(try query.aggregate(plan, exact: exact), query.arguments, layout)
                #expect(!steps.contains { $0.hasPrefix("SCAN t0") && !$0.contains("USING") }, "\(name): \(steps)")
                #expect(!steps.contains { $0.contains("TEMP B-TREE") }, "\(name) sorts no groups: \(steps)")
                #expect(steps.contains { $0.contains("INDEX") }, "\(name): \(steps)")
            }
        }
    }

    static let indexable: [(String, FetchPlan)] = [
        ("== on an indexed attribute", FetchPlan(entity: "Trip", predicate: .compare("budget", .equal, 100.0, []))),
        ("== on a unique attribute", FetchPlan(entity: "Person", predicate: .compare("email", .equal, "a@x.io", []))),
        ("in on an indexed attribute", FetchPlan(entity: "Stop", predicate: .inList("city", ["Lisbon", "Porto"], []))),
        ("< on an indexed attribute", FetchPlan(entity: "Trip", predicate: .compare("budget", .less, 100.0, []))),
        (
            ">= on an indexed date",
            FetchPlan(entity: "Trip", predicate: .compare("start", .greaterOrEqual, .date(Date()), []))
        ),
        ("between on an indexed attribute", FetchPlan(entity: "Trip", predicate: .between("budget", 10.0, 100.0))),
        (
            "to-one equality (referrers)",
            FetchPlan(entity: "Trip", predicate: .compare("traveller", .equal, person, []))
        ),
        (
            "to-one in (batched referrers)",
            FetchPlan(entity: "Stop", predicate: .inList("trip", [trip, .uuid(UUID())], []))
        ),
        ("ID lookup", FetchPlan(entity: "Trip", predicate: .compare("id", .equal, trip, []))),
        (
            "ID in (batched lookups, duplicate-ID check)",
            FetchPlan(entity: "Trip", predicate: .inList("id", [trip, .uuid(UUID())], []))
        ),
        (
            "unique check over two properties",
            FetchPlan(
                entity: "Trip",
                predicate: .and([.compare("name", .equal, "x", []), .compare("start", .equal, .date(Date()), [])]))
        ),
        (
            "an indexed conjunct beside a non-indexed one",
            FetchPlan(
                entity: "Trip",
                predicate: .and([.compare("budget", .greater, 5.0, []), .text("name", .contains, "a", [])]))
        ),
        (
            "an indexed equality with sort and limit",
            FetchPlan(
                entity: "Stop", predicate: .compare("city", .equal, "Porto", []), sort: [SortKey("nights")], limit: 100)
        ),
        (
            "a to-one condition",
            FetchPlan(
                entity: "Trip",
                predicate: .and([
                    .compare("traveller", .equal, person, []),
                    .relatedOne(relationship: "traveller", .compare("name", .equal, "Ana", [])),
                ]))
        ),
        (
            "a decimal range (sortable keys: the index answers it)",
            FetchPlan(entity: "Sample", predicate: .between("price", .decimal(Decimal(1)), .decimal(Decimal(2))))
        ),
        ("a decimal equality", FetchPlan(entity: "Sample", predicate: .compare("price", .equal, .decimal(0.5), []))),
        ("contains on an indexed array", FetchPlan(entity: "Sample", predicate: .elements("tags", .contains("swift")))),
        (
            "contains any on an indexed array",
            FetchPlan(entity: "Sample", predicate: .elements("tags", .containsAny(["swift", "linux"])))
        ),
    ]

    /// `contains` on an indexed array reads its owners from the element table's (value, owner)
    /// index: the element table is searched, never scanned, and the records are found by ID.
    @Test func containsOnAnIndexedArraySearchesItsElementIndex() throws {
        for test in [ElementTest.contains("swift"), .containsAny(["swift", "linux"])] {
            let steps = try Self.queryPlan(FetchPlan(entity: "Sample", predicate: .elements("tags", test)))
            #expect(
                steps.contains { $0.hasPrefix("SEARCH e USING COVERING INDEX Sample.tags.elements.value") }, "\(steps)")
            #expect(!steps.contains { $0.hasPrefix("SCAN e") || $0.hasPrefix("SCAN t0") }, "\(steps)")
        }
    }

    @Test("indexable operators use an index", arguments: indexable.indices)
    func usesAnIndex(_ index: Int) throws {
        let (name, plan) = Self.indexable[index]
        for count in [false, true] {
            let steps = try Self.queryPlan(plan, count: count)
            #expect(!steps.contains { $0.hasPrefix("SCAN t0") }, "\(name)\(count ? " (count)" : ""): \(steps)")
            #expect(steps.contains { $0.hasPrefix("SEARCH t0") }, "\(name)\(count ? " (count)" : ""): \(steps)")
        }
    }

    /// The duplicate-ID check of every insert runs its own statement (IDs only).
    @Test func theDuplicateIDCheckSearchesThePrimaryKey() throws {
        let layout = SQLiteLayout(schema: try TravelDomain.schema())
        let sql = try layout.table("Trip").existingIDsSQL(count: 3)
        let database = try DatabaseQueue()
        let steps = try database.write { db in
            for statement in layout.creationStatements() { try db.execute(sql: statement) }
            return try Row.fetchAll(
                db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: [Data(count: 16), Data(count: 16), Data(count: 16)]
            )
            .map { $0["detail"] as String }
        }
        #expect(!steps.contains { $0.hasPrefix("SCAN") }, "\(steps)")
        #expect(steps.contains { $0.hasPrefix("SEARCH") }, "\(steps)")
    }

    @Test func relatedSubqueriesSearchTheirIndexes() throws {
        // any/none over a derived to-many, a link list and its other side: the subquery searches.
        for plan in [
            FetchPlan(
                entity: "Person", predicate: .anyRelated(relationship: "trips", .compare("budget", .greater, 1.0, []))),
            FetchPlan(
                entity: "Trip", predicate: .noneRelated(relationship: "tags", .compare("label", .equal, "Beach", []))),
            FetchPlan(entity: "Tag", predicate: .anyRelated(relationship: "trips", .constant(true))),
        ] {
            let steps = try Self.queryPlan(plan)
            let inner = steps.filter {
                !$0.hasPrefix("SCAN t0") && !$0.contains("SUBQUERY") && !$0.contains("TEMP B-TREE")
            }
            #expect(inner.allSatisfy { $0.hasPrefix("SEARCH") }, "\(plan.predicate.map { "\($0)" } ?? ""): \(steps)")
        }
    }

    @Test func negationStaysTwoValuedOverNulls() async throws {
        // Plain comparisons outside NOT, IFNULL inside it: the answers still follow the contract.
        let store = Store(backend: try await SQLiteBackend.open(path: ":memory:", schema: try TravelDomain.schema()))
        try await store.transaction { tx in
            try tx.insert(Trip(name: "a", start: TravelDomain.day(1), budget: 5))
            try tx.insert(Trip(name: "b", start: TravelDomain.day(2)))
        }
        let trips = store.repository(Trip.self)
        #expect(try await trips.count(where: \.budget < 10) == 1)
        #expect(try await trips.count(where: !(\Trip.budget < 10)) == 1, "not(nil < 10) is true")
        #expect(try await trips.count(where: !(\Trip.budget < 10 || \Trip.name == "a")) == 1)
        #expect(try await trips.count(where: !(!(\Trip.budget < 10))) == 1)
        #expect(try await trips.count(where: .not(.between(\Trip.budget, 1, 10))) == 1)
    }

    static let ordered: [(String, FetchPlan)] = [
        (
            "== with limit, ID order",
            FetchPlan(entity: "Trip", predicate: .compare("budget", .equal, 100.0, []), limit: 100)
        ),
        (
            "to-one == (referrers in ID order)",
            FetchPlan(entity: "Trip", predicate: .compare("traveller", .equal, person, []))
        ),
        (
            "range sorted by its column, with limit",
            FetchPlan(
                entity: "Trip",
                predicate: .and([.compare("budget", .greaterOrEqual, 5.0, []), .compare("budget", .less, 9.0, [])]),
                sort: [SortKey("budget")], limit: 100)
        ),
        (
            "between sorted by its column",
            FetchPlan(entity: "Trip", predicate: .between("budget", 10.0, 100.0), sort: [SortKey("budget")], limit: 10)
        ),
    ]

    /// The index yields the rows in the requested order, so a limit stops the walk early: no sort
    /// of every match (a cost that would grow with the store).
    @Test("ordered reads need no sort", arguments: ordered.indices)
    func orderedReadsNeedNoSort(_ index: Int) throws {
        let (name, plan) = Self.ordered[index]
        let steps = try Self.queryPlan(plan)
        #expect(steps.contains { $0.hasPrefix("SEARCH t0") }, "\(name): \(steps)")
        #expect(!steps.contains { $0.contains("TEMP B-TREE") }, "\(name): \(steps)")
    }

    /// A keyset page seeks to its cursor in the sort's index and walks on in order: no scan, no
    /// sort, whatever page it is.
    @Test func keysetPagesSeekTheSortIndex() async throws {
        let store = Store(backend: try await SQLiteBackend.open(path: ":memory:", schema: try TravelDomain.schema()))
        let data = try await TravelData.seed(store)
        _ = data
        let query = Query<Trip>.all.sorted(by: \.budget).limit(2)
        let cursor = try #require(try await store.repository(Trip.self).fetch(query, after: nil).next)
        let steps = try Self.queryPlan(
            FetchPlan(entity: "Trip", predicate: cursor.predicate, sort: [SortKey("budget")], limit: 2))
        #expect(steps.contains { $0.hasPrefix("SEARCH t0") }, "\(steps)")
        #expect(!steps.contains { $0.hasPrefix("SCAN t0") }, "\(steps)")
        #expect(!steps.contains { $0.contains("TEMP B-TREE") }, "\(steps)")
    }

    /// A stream's batches without sort keys are keyset pages in ID order: each seeks the ID index
    /// to the last ID read and walks on, so a batch costs its size wherever it starts.
    @Test func idOrderedKeysetPagesSeekTheIDIndex() async throws {
        let store = Store(backend: try await SQLiteBackend.open(path: ":memory:", schema: try TravelDomain.schema()))
        _ = try await TravelData.seed(store)
        let query = Query<Trip>.all.limit(2)
        let cursor = try #require(try await store.repository(Trip.self).fetch(query, after: nil).next)
        let plan = FetchPlan(entity: "Trip", predicate: cursor.predicate, limit: 2)
        let steps = try Self.queryPlan(plan)
        #expect(steps.contains { $0.hasPrefix("SEARCH t0") }, "\(steps)")
        #expect(!steps.contains { $0.contains("TEMP B-TREE") }, "\(steps)")
    }
}
