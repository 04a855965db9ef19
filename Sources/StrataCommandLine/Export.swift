import ArgumentParser
import Foundation
import Strata
import StrataTools
import Synchronization

/// `strata export`: a store's records as NDJSON, streamed from one consistent read.
public struct Export: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        abstract: "Write a store's records as NDJSON (a header line with the schema, a line per record, an end line).",
        discussion: """
            Records are read in pages of --batch by ID from one consistent read of the store, so memory \
            is bounded by a page and the file is one state of the store. Each record line carries its \
            entity, ID, version, values (typed by the schema) and link lists in their order. Progress \
            goes to standard error: a bar on a terminal, a line per 100,000 records otherwise. Exit codes: \
            0 written, 1 the store cannot be opened or read.

            Examples:
              strata export sqlite:./app.sqlite > app.ndjson
              strata export lmdb:./app.lmdb --entities Trip,Stop --output trips.ndjson
            """)

    @Argument(help: "The store's URL.") var url: String
    @Option(help: "Only these entities (comma-separated).") var entities: String?
    @Option(help: "Write here instead of standard output.") var output: String?
    @Option(help: "Records per page.") var batch = 1_000

    public init() {}

    public func run() async throws {
        CommandLineBackends.register()
        let store = try await Store.openStored(url)
        let chosen = try Self.entities(entities, in: store.schema)
        let sink = try OutputSink(path: output)
        let total = try await store.read { reader in
            try chosen.reduce(0) { sum, name in sum + (try reader.count(FetchPlan(entity: name))) }
        }
        var header = ExportHeader(
            format: 1, schema: SchemaDescription(store.schema), entities: chosen,
            declared: await store.matchingDeclaration())
        header.records = total
        try sink.write(try header.line() + "\n")
        let progress = ProgressBar(total: total, label: "export")
        let batch = max(1, batch)
        let written = try await store.read { reader -> Int in
            var written = 0
            for name in chosen {
                guard let entity = reader.schema.entity(name) else { continue }
                var after: RecordID?
                while true {
                    let page = try reader.page(name, after: after, limit: batch)
                    var text = ""
                    for (record, links) in page {
                        text += RecordJSON.line(record, links: links, entity: entity)
                        text += "\n"
                    }
                    try sink.write(text)
                    written += page.count
                    progress.advance(to: written)
                    guard page.count == batch, let last = page.last else { break }
                    after = last.record.id
                }
            }
            return written
        }
        try sink.write("{\"strata\":\"end\",\"records\":\(written)}\n")
        try sink.close()
        progress.finish(at: written)
        try await store.close()
    }

    static func entities(_ list: String?, in schema: Schema) throws -> [String] {
        guard let list else { return schema.entities.map(\.name) }
        let names = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        for name in names where schema.entity(name) == nil {
            let known = schema.entities.map(\.name).joined(separator: ", ")
            throw ValidationError("--entities: \(name) is not an entity of the store (it has \(known))")
        }
        return names
    }
}

/// The first line of an export: the format, the schema the records are typed by, the entities,
/// and the app's declared schema (delete rules, validation) when the store recorded one.
struct ExportHeader: Codable {
    var strata = "export"
    var format: Int
    var schema: SchemaDescription
    var entities: [String]
    /// How many records follow (as counted before the read; progress only — the end line is the
    /// count written).
    var records: Int?
    /// Written as a JSON object under "declared" (``SchemaFile``'s own form), not by Codable.
    var declared: SchemaFile? = nil

    private enum CodingKeys: String, CodingKey { case strata, format, schema, entities, records }

    func line() throws -> String {
        var text = String(decoding: try JSONEncoder.sorted.encode(self), as: UTF8.self)
        if let declared, text.hasSuffix("}") {
            text.removeLast()
            text += ",\"declared\":" + String(decoding: declared.encoded(), as: UTF8.self) + "}"
        }
        return text
    }

    /// Reads a header line; nil when the line is not one.
    static func parse(_ line: String) throws -> ExportHeader? {
        guard var header = try? JSONDecoder().decode(ExportHeader.self, from: Data(line.utf8)),
            header.strata == "export"
        else { return nil }
        if let object = try? ExactJSON.parse(line) as? [String: Any], let declared = object["declared"] {
            header.declared = try SchemaFile.decode(
                Array(try JSONSerialization.data(withJSONObject: declared)), path: "the export header")
        }
        return header
    }
}

extension JSONEncoder {
    static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
