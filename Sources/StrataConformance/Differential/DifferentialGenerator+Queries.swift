import Foundation
import Strata

/// Filters, sorts and pages over the fixture domain: every operator, nested, with values from the pools.
extension DifferentialGenerator {
    /// Stored properties by entity, with a value maker of their type.
    mutating func comparable(_ entity: String) -> (String, Value) {
        switch entity {
        case "Trip":
            return random.pick([
                ("name", text()), ("budget", number()), ("start", date()), ("end", date()),
                ("isFavorite", .bool(random.chance(0.5))),
                ("traveller", id("Person").value),
            ])
        case "Person":
            return random.pick([
                ("name", .string(random.pick(["Ana", "Émile", "E\u{0301}mile", "Zoë"]))),
                ("age", .int(Int64(random.int(0...160)))),
                ("address.city", .string(random.pick(["Lisbon", "Porto", "São Paulo"]))), ("rating", number()),
                ("status", .string("gold")),
            ])
        case "Stop":
            return random.pick([
                ("city", .string(random.pick(["Lisbon", "Porto"]))), ("nights", .int(Int64(random.int(0...5)))),
                ("name", text()),
            ])
        case "Tag": return ("label", .string(random.pick(["Beach", "É", "E\u{0301}", "Food"])))
        case "Agency": return ("name", .string(random.pick(["Sol", "Mar", "Céu"])))
        case "Passport": return ("number", .string(random.pick(["P1", "P2"])))
        case "Node": return ("label", text())
        case "Shelf": return ("label", text())
        case "Book": return ("title", text())
        case "Chapter": return ("title", text())
        case "Author": return ("name", text())
        default:
            return random.pick([
                ("key", text()), ("text", text()), ("number", number()), ("amount", number()), ("when", date()),
                ("moment", date()),
                ("count", .int(Int64(random.int(-3...3)))), ("code", text()), ("id", id("Sample").value),
                ("price", decimal()), ("cost", decimal()), collectionChange(),
            ])
        }
    }

    mutating func predicate(_ entity: String, depth: Int = 0) -> FilterExpression {
        let (property, constant) = comparable(entity)
        switch random.int(0...(depth < 2 ? 11 : 6)) {
        case 0, 1:
            return .compare(
                property, random.pick([.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual]), constant, []
            )
        case 2:
            let (_, other) = comparable(entity)
            let sameKind = other.attributeType == constant.attributeType ? other : constant
            return .inList(property, [constant, sameKind], [])
        case 3:
            let (_, other) = comparable(entity)
            return .between(property, constant, other.attributeType == constant.attributeType ? other : constant)
        case 4:
            guard case .string(let needle) = constant, property != "id" else { return .isNil(property) }
            let options = random.pick([
                TextOptions(), .caseInsensitive, .diacriticInsensitive, [.caseInsensitive, .diacriticInsensitive],
            ])
            if random.chance(0.3) { return .compare(property, .equal, constant, options) }
            return .text(property, random.pick([.contains, .hasPrefix, .hasSuffix]), String(needle.prefix(2)), options)
        case 5: return .isNil(property)
        case 6: return .constant(random.chance(0.8))
        case 7: return .and([predicate(entity, depth: depth + 1), predicate(entity, depth: depth + 1)])
        case 8: return .or([predicate(entity, depth: depth + 1), predicate(entity, depth: depth + 1)])
        case 9: return .not(predicate(entity, depth: depth + 1))
        default:
            if let index = Self.searchIndexes[entity], random.chance(0.35) { return search(index) }
            switch entity {
            case "Trip":
                if random.chance(0.4) {
                    return .relatedOne(relationship: "traveller", predicate("Person", depth: depth + 1))
                }
                return random.chance(0.5)
                    ? .anyRelated(relationship: "tags", predicate("Tag", depth: depth + 1))
                    : .noneRelated(relationship: "stops", predicate("Stop", depth: depth + 1))
            case "Person":
                return random.chance(0.5)
                    ? .anyRelated(relationship: "trips", predicate("Trip", depth: depth + 1))
                    : .noneRelated(relationship: "interests", predicate("Tag", depth: depth + 1))
            case "Stop": return .relatedOne(relationship: "trip", predicate("Trip", depth: depth + 1))
            case "Book": return .anyRelated(relationship: "authors", predicate("Author", depth: depth + 1))
            case "Sample": return collectionPredicate()
            default: return predicate(entity, depth: depth + 1)
            }
        }
    }

    /// The fixture's full-text indexes (``TravelDomain/searchableSchema()``) by entity.
    static let searchIndexes = ["Trip": "name", "Stop": "place"]

    /// Searches of words, prefixes and phrases of the text pool, folded and not, combined.
    static let searches = [
        "a", "ABC", "abc OR a", "emile", "É*", "zoe", "strasse", "中文", "中", "lisbon", "sao -lisbon", "li*",
        "\"emile zoe\"", "s*", "-a", "lisbon OR sao OR a", "😀",
    ]

    mutating func search(_ index: String) -> FilterExpression {
        let text = random.pick(Self.searches)
        guard let query = try? SearchQuery(parsing: text) else { return .constant(false) }
        return .search(index: index, query)
    }

    mutating func query(_ entity: String, paged: Bool = true) -> FetchPlan {
        let predicate = random.chance(0.15) ? nil : predicate(entity)
        guard paged else { return FetchPlan(entity: entity, predicate: predicate) }
        var sort: [SortKey] = []
        if let index = Self.searchIndexes[entity], predicate?.containsSearch == true, random.chance(0.6) {
            sort.append(SortKey(relevanceOf: index, ascending: random.chance(0.7)))
        }
        for _ in 0..<random.int(0...2) { sort.append(SortKey(comparable(entity).0, ascending: random.chance(0.5))) }
        let limit = random.chance(0.4) ? random.int(0...4) : nil
        let offset = random.chance(0.3) ? random.int(0...3) : 0
        return FetchPlan(entity: entity, predicate: predicate, sort: sort, limit: limit, offset: offset)
    }
}
