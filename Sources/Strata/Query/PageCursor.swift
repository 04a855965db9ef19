import Foundation

/// Where a page of results ended: the sort-key values and the ID of its last record, opaque to
/// callers (`description` is a URL-safe token to hand a client; `init(token:)` reads it back).
///
/// The next page is every record that sorts after that position — a keyset, not an offset — so
/// records inserted or deleted before it do not shift or repeat what follows, and each page costs
/// the same however deep it is (the sort's index seeks to the position).
public struct PageCursor: Sendable, Hashable, CustomStringConvertible {
    let entity: String
    let sort: [SortKey]
    let values: [Value]
    let id: RecordID

    /// The position after `record`; a relevance key's value is the record's score (`score`), so
    /// the next page starts below it however the ranks before it shift.
    init(entity: String, sort: [SortKey], after record: Record, score: Double? = nil) {
        self.entity = entity
        self.sort = sort
        self.values = sort.map { key in key.relevance == nil ? record[key.property] : score.map(Value.double) ?? .null }
        self.id = record.id
    }

    /// Where a keyset page over relevance starts: after this score and ID in the ranking (score
    /// descending, ties by ID ascending; all reversed when the key is descending).
    var relevancePosition: RelevancePosition? {
        guard let key = sort.first, let index = key.relevance, case .double(let score) = values.first else {
            return nil
        }
        return RelevancePosition(index: index, score: score, id: id, ascending: key.ascending)
    }

    /// The token a client sends back.
    public var description: String { Self.encode(self) }

    /// Reads a token made by `description`. A damaged or foreign token is
    /// `StrataError.Code.invalidQuery`.
    public init(token: String) throws {
        self = try Self.decode(token)
    }

    /// The filter the next page adds to the query's: "after this position" in its order — for some
    /// key, the keys before it equal this position's and it sorts after; or every key equal and a
    /// greater ID. Nulls sort first ascending (and so last descending), as everywhere. A range on
    /// the first key leads, so an index on the sort seeks to the position and walks on in order.
    public var predicate: FilterExpression {
        var alternatives: [FilterExpression] = []
        var equalSoFar: [FilterExpression] = []
        for (key, value) in zip(sort, values) {
            if let after = Self.after(key, value) { alternatives.append(.and(equalSoFar + [after])) }
            equalSoFar.append(value.isNull ? .isNil(key.property) : .compare(key.property, .equal, value, []))
        }
        alternatives.append(.and(equalSoFar + [.compare("id", .greater, id.value, [])]))
        let after: FilterExpression = alternatives.count == 1 ? alternatives[0] : .or(alternatives)
        guard let first = sort.first, let value = values.first, !value.isNull else { return after }
        let atOrAfter: FilterExpression =
            first.ascending
            ? .compare(first.property, .greaterOrEqual, value, [])
            : .or([.compare(first.property, .lessOrEqual, value, []), .isNil(first.property)])
        return .and([atOrAfter, after])
    }

    /// Records whose `key` sorts strictly after `value`; nil when none can.
    private static func after(_ key: SortKey, _ value: Value) -> FilterExpression? {
        switch (key.ascending, value.isNull) {
        case (true, true): .not(.isNil(key.property))  // nulls come first: every value follows
        case (true, false): .compare(key.property, .greater, value, [])
        case (false, true): nil  // nulls come last descending: nothing follows
        case (false, false): .or([.compare(key.property, .less, value, []), .isNil(key.property)])
        }
    }

    // MARK: Token

    private struct Wire: Codable {
        var e: String
        var s: [String]  // "+name" / "-name"
        var v: [[String]]  // [kind, payload]
        var i: [String]
    }

    private static func encode(_ cursor: PageCursor) -> String {
        let wire = Wire(
            e: cursor.entity,
            s: cursor.sort.map { ($0.relevance == nil ? "" : "~") + ($0.ascending ? "+" : "-") + $0.property },
            v: cursor.values.map(encode), i: encode(cursor.id.value))
        let data = (try? JSONEncoder().encode(wire)) ?? Data()
        return data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(
            of: "/", with: "_"
        )
        .replacingOccurrences(of: "=", with: "")
    }

    private static func decode(_ token: String) throws -> PageCursor {
        var base64 = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64), let wire = try? JSONDecoder().decode(Wire.self, from: data),
            let idValue = decode(wire.i), let id = RecordID(idValue), wire.s.count == wire.v.count
        else { throw StrataError(.invalidQuery, "the page cursor is not one this store made") }
        var sort: [SortKey] = []
        for key in wire.s {
            let relevance = key.first == "~"
            let rest = relevance ? key.dropFirst() : Substring(key)
            guard let direction = rest.first, direction == "+" || direction == "-" else {
                throw StrataError(.invalidQuery, "the page cursor is not one this store made")
            }
            let name = String(rest.dropFirst())
            sort.append(
                relevance
                    ? SortKey(relevanceOf: name, ascending: direction == "+")
                    : SortKey(name, ascending: direction == "+"))
        }
        var values: [Value] = []
        for value in wire.v {
            guard let decoded = decode(value) else {
                throw StrataError(.invalidQuery, "the page cursor is not one this store made")
            }
            values.append(decoded)
        }
        return PageCursor(entity: wire.e, sort: sort, values: values, id: id)
    }

    private init(entity: String, sort: [SortKey], values: [Value], id: RecordID) {
        self.entity = entity
        self.sort = sort
        self.values = values
        self.id = id
    }

    private static func encode(_ value: Value) -> [String] {
        switch value {
        case .null: ["n"]
        case .bool(let flag): ["b", flag ? "1" : "0"]
        case .int(let number): ["i", String(number)]
        case .double(let number): ["d", String(number.bitPattern)]
        case .string(let text): ["s", text]
        case .date(let date): ["t", String(date.timeIntervalSinceReferenceDate.bitPattern)]
        case .uuid(let uuid): ["u", uuid.uuidString]
        case .data(let bytes): ["x", bytes.base64EncodedString()]
        case .decimal(let number): ["m", DecimalForm.text(number)]
        // Never a sort key's value: sorting by a collection or document is refused.
        case .array, .dictionary, .document: ["n"]
        }
    }

    private static func decode(_ parts: [String]) -> Value? {
        guard let kind = parts.first else { return nil }
        let payload = parts.count > 1 ? parts[1] : ""
        switch kind {
        case "n": return .null
        case "b": return .bool(payload == "1")
        case "i": return Int64(payload).map(Value.int)
        case "d": return UInt64(payload).map { .double(Double(bitPattern: $0)) }
        case "s": return .string(payload)
        case "t": return UInt64(payload).map { .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: $0))) }
        case "u": return UUID(uuidString: payload).map(Value.uuid)
        case "x": return Data(base64Encoded: payload).map(Value.data)
        case "m": return DecimalForm.parse(payload).map(Value.decimal)
        default: return nil
        }
    }
}

extension PageCursor {
    /// The plan of the page after `cursor` (from the start when nil): the query's plan with the
    /// cursor's position added — as a filter on the sort keys, or, when the query ranks by
    /// relevance first, as a position in the ranking the engine starts after. An offset, a
    /// position sort key, a relevance key after another key, or a cursor of another entity or
    /// sort, is `StrataError.Code.invalidQuery`.
    static func plan<M: PersistentModel>(_ query: Query<M>, after cursor: PageCursor?) throws -> KeysetPlan {
        var plan = try query.plan()
        if let refusal = keysetRefusal(plan) { throw refusal }
        guard let cursor else { return KeysetPlan(plan: plan, relevance: nil) }
        guard cursor.entity == plan.entity, cursor.sort == plan.sort else {
            throw StrataError(
                .invalidQuery, entity: plan.entity, "the page cursor belongs to another query (entity or sort order)")
        }
        if plan.sort.first?.relevance != nil {
            guard let position = cursor.relevancePosition else {
                throw StrataError(.invalidQuery, entity: plan.entity, "the page cursor is not one this store made")
            }
            return KeysetPlan(plan: plan, relevance: position)
        }
        plan.predicate = plan.predicate.map { .and([$0, cursor.predicate]) } ?? cursor.predicate
        return KeysetPlan(plan: plan, relevance: nil)
    }

    /// Why keyset pages cannot follow `plan`'s order (an `invalidQuery` error), or nil when they can.
    static func keysetRefusal(_ plan: FetchPlan) -> StrataError? {
        let entity = plan.entity
        if plan.offset != 0 {
            return StrataError(.invalidQuery, entity: entity, "keyset pages cannot be combined with an offset")
        }
        if let list = plan.sort.lazy.compactMap(\.position).first {
            return StrataError(
                .invalidQuery, entity: entity, property: list.relationship,
                "keyset pages cannot follow a position in \(list.entity).\(list.relationship): use offset pages")
        }
        if let later = plan.sort.dropFirst().first(where: { $0.relevance != nil }), let index = later.relevance {
            return StrataError(
                .invalidQuery, entity: entity,
                "keyset pages follow relevance to \(index) only as the first sort key: use offset pages")
        }
        if let index = plan.sort.first?.relevance,
            QueryExecutor.narrowingSearch(plan.predicate ?? .constant(true))?.index != index
        {
            return StrataError(.invalidQuery, entity: entity, QueryExecutor.keysetNeedsNarrowing(index))
        }
        return nil
    }

    /// The page a plan made by `plan(_:after:)` read: its models, and the next cursor when full
    /// (`lastScore` is the last record's relevance score when the plan ranks by relevance).
    static func page<M: PersistentModel>(_ page: KeysetRecords, _ models: [M], plan: KeysetPlan) -> Page<M> {
        let records = page.records
        let full = plan.plan.limit.map { records.count >= $0 && $0 > 0 } ?? false
        let next =
            full
            ? records.last.map {
                PageCursor(entity: plan.plan.entity, sort: plan.plan.sort, after: $0, score: page.lastScore)
            } : nil
        return Page(models: models, next: next)
    }
}

/// A keyset page's plan: the query's plan with a property cursor's filter added, and for a query
/// ranked by relevance first, the position in the ranking the page starts after.
package struct KeysetPlan: Sendable {
    package var plan: FetchPlan
    package var relevance: RelevancePosition?
}

/// A position in a search's ranking: a score and the ID that broke its tie.
package struct RelevancePosition: Sendable, Hashable {
    package var index: String
    package var score: Double
    package var id: RecordID
    /// The relevance key's direction: ascending ranks the most relevant first.
    package var ascending: Bool

    /// Whether a match with score `other` and ID `otherID` ranks after this position.
    func follows(score other: Double, id otherID: RecordID) -> Bool {
        if other != score { return ascending ? other < score : other > score }
        return ascending ? otherID > id : otherID < id
    }
}

/// A keyset page's records and, when ranked by relevance, the last one's score.
package struct KeysetRecords: Sendable {
    package var records: [Record]
    package var lastScore: Double?
}

/// One page of results and where the next one starts.
public struct Page<Model: PersistentModel>: Sendable {
    /// The page's models, in the query's order.
    public let models: [Model]
    /// The position after the last model; nil when the page came back with fewer models than the
    /// limit (the end). A full last page is followed by an empty one.
    public let next: PageCursor?

    /// A page (for test doubles of ``ModelReading``).
    public init(models: [Model], next: PageCursor?) {
        self.models = models
        self.next = next
    }
}
