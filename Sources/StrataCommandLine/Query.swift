import ArgumentParser
import Foundation
import Strata
import StrataTools

/// `strata query`: records of one entity matching a filter written as text.
public struct QueryCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Print the records of an entity that match a filter, as a table or NDJSON.",
        discussion: """
            The filter is the DSL's in text (see FilterText): comparisons (== != < <= > >=), in [...], \
            contains / hasPrefix / hasSuffix with [c] [d] [cd], == nil, &&, ||, !, parentheses; a \
            property is an attribute (address.city), id, or a to-one then a property of its destination \
            (traveller.name). A mistake is reported with the column it is at. Exit codes: 0 printed; \
            1 the store cannot be read; 64 usage (a bad filter, search or sort key).

            --search searches a full-text index of the entity (--index names it when the entity has \
            several) in a search box's syntax: words, "phrases", prefix*, OR, -word, parentheses. \
            Results are ranked by relevance unless --sort says otherwise; --where narrows them.

            Examples:
              strata query sqlite:./app.sqlite Trip --where 'budget > 500 && traveller.name == "Ana"' --sort=-start
              strata query lmdb:./app.lmdb Person --where 'email hasSuffix "@example.com" [c]' --ndjson
              strata query sqlite:./app.sqlite Note --search 'swift "server side" -rust' --limit 20
            """)

    @Argument(help: "The store's URL.") var url: String
    @Argument(help: "The entity.") var entity: String
    @Option(name: .customLong("where"), help: "The filter.") var filter: String?
    @Option(help: "Sort keys, comma-separated; a leading - sorts descending (write --sort=-key); ID breaks ties.")
    var sort: String?
    @Option(help: "At most this many records.") var limit: Int?
    @Option(help: "A full-text search of the entity (ranked by relevance unless --sort is given).") var search: String?
    @Option(help: "The full-text index --search reads (needed when the entity has several).") var index: String?
    @Flag(help: "Print NDJSON (one record per line, as `strata export` writes them).") var ndjson = false

    public init() {}

    public func run() async throws {
        CommandLineBackends.register()
        let store = try await Store.openStored(url)
        guard let description = store.schema.entity(entity) else {
            try await store.close()
            throw ValidationError(
                "\(entity) is not an entity of the store "
                    + "(it has \(store.schema.entities.map(\.name).joined(separator: ", ")))"
            )
        }
        var predicate: FilterExpression?
        if let filter {
            do {
                predicate = try FilterText.parse(filter, entity: entity, schema: store.schema)
            } catch let error as StrataError {
                try await store.close()
                let column =
                    error.message.split(separator: ":").first.flatMap { Int($0.dropFirst("column ".count)) } ?? 1
                throw ValidationError(
                    "\(filter)\n\(String(repeating: " ", count: max(0, column - 1)))^ \(error.message)")
            }
        }
        let keys = try (sort ?? "").split(separator: ",").map { part -> SortKey in
            let text = part.trimmingCharacters(in: .whitespaces)
            let descending = text.hasPrefix("-")
            let name = descending ? String(text.dropFirst()) : text
            guard name == "id" || description.isStoredProperty(name) else {
                throw ValidationError("--sort: \(name) is not a property of \(entity)")
            }
            return SortKey(name, ascending: !descending)
        }
        var sortKeys = keys
        if let search {
            let searched: FilterExpression
            let relevance: SortKey
            do {
                (searched, relevance) = try searchPart(search, in: description)
            } catch {
                try await store.close()
                throw error
            }
            predicate = predicate.map { .and([searched, $0]) } ?? searched
            if sortKeys.isEmpty { sortKeys = [relevance] }
        }
        let plan = FetchPlan(entity: entity, predicate: predicate, sort: sortKeys, limit: limit)
        let (records, lists) = try await store.read { reader -> ([Record], [[String: [RecordID]]]) in
            let records = try reader.fetch(plan)
            return (records, try records.map(reader.linkLists(of:)))
        }
        try await store.close()
        if ndjson {
            for (record, links) in zip(records, lists) {
                print(RecordJSON.line(record, links: links, entity: description))
            }
            return
        }
        let columns = ["id"] + description.storedPropertyNames
        let rows = records.map { record in
            [record.id.description]
                + description.storedPropertyNames.map { name -> String in
                    let value = record[name]
                    let text: String
                    if case .date(let date) = value {
                        text = ISO8601DateFormatter().string(from: date)
                    } else {
                        text = RecordJSON.text(value)
                    }
                    return text.count > 40 ? String(text.prefix(39)) + "…" : text
                }
        }
        let widths = columns.indices.map { index in ([columns[index]] + rows.map { $0[index] }).map(\.count).max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            zip(cells, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
        }
        print(line(columns))
        for row in rows { print(line(row)) }
        print("(\(records.count) record\(records.count == 1 ? "" : "s"))")
    }

    /// The search filter and the relevance key `--search` and `--index` ask for.
    private func searchPart(_ text: String, in description: EntityDescription) throws -> (FilterExpression, SortKey) {
        let indexes = description.searchIndexes.map(\.name)
        guard let name = index ?? (indexes.count == 1 ? indexes[0] : nil) else {
            throw ValidationError(
                indexes.isEmpty
                    ? "--search: \(entity) has no full-text index"
                    : "--index: \(entity) has several full-text indexes (\(indexes.joined(separator: ", "))); name one")
        }
        guard indexes.contains(name) else { throw ValidationError("--index: \(entity) has no full-text index \(name)") }
        do {
            return (.search(index: name, try SearchQuery(parsing: text)), SortKey(relevanceOf: name))
        } catch let error as StrataError {
            throw ValidationError("--search: \(error.message)")
        }
    }
}
