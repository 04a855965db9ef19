import ArgumentParser
import Foundation
import Strata
import StrataPostgres
import Synchronization

/// `strata export`: a store's records as NDJSON, streamed from one consistent read.
struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
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

    func run() async throws {
        StrataCommand.registerBackends()
        PostgresBackend.register(options: PostgresBackend.Options(createIfMissing: false))
        let store = try await StoredSchemaOpener.open(url)
        let chosen = try Self.entities(entities, in: store.schema)
        let sink = try OutputSink(path: output)
        let header = ExportHeader(format: 1, schema: SchemaDescription(store.schema), entities: chosen)
        try sink.write(String(decoding: try JSONEncoder.sorted.encode(header), as: UTF8.self) + "\n")
        let total = try await store.read { reader in
            try chosen.reduce(0) { sum, name in sum + (try reader.count(FetchPlan(entity: name))) }
        }
        let progress = Progress(total: total, label: "export")
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
        progress.finish()
        try await store.close()
    }

    static func entities(_ list: String?, in schema: Schema) throws -> [String] {
        guard let list else { return schema.entities.map(\.name) }
        let names = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        for name in names where schema.entity(name) == nil {
            throw ValidationError("--entities: \(name) is not an entity of the store (it has \(schema.entities.map(\.name).joined(separator: ", ")))")
        }
        return names
    }
}

/// The first line of an export: the format, the schema the records are typed by, the entities.
struct ExportHeader: Codable {
    var strata = "export"
    var format: Int
    var schema: SchemaDescription
    var entities: [String]
}

extension JSONEncoder {
    static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}

/// Standard output or a file, written in chunks.
final class OutputSink: Sendable {
    private let handle: FileHandle
    private let owned: Bool

    init(path: String?) throws {
        guard let path else {
            handle = FileHandle.standardOutput
            owned = false
            return
        }
        guard FileManager.default.createFile(atPath: path, contents: nil) else { throw ValidationError("--output: cannot create \(path)") }
        handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        owned = true
    }

    func write(_ text: String) throws { try handle.write(contentsOf: Data(text.utf8)) }

    func close() throws {
        if owned { try handle.close() }
    }
}

/// Progress on standard error: a bar redrawn in place on a terminal, otherwise a plain line every
/// 100,000 units (so logs stay readable).
final class Progress: Sendable {
    let total: Int
    let label: String
    private let terminal = isatty(STDERR_FILENO) == 1
    private let last = Mutex(-1)

    init(total: Int, label: String) {
        self.total = total
        self.label = label
    }

    func advance(to done: Int) {
        if terminal, total == 0 {
            FileHandle.standardError.write(Data("\r\(label): \(done)".utf8))
        } else if terminal {
            let percent = total == 0 ? 100 : done * 100 / total
            guard last.withLock({ shown in defer { shown = percent }; return shown != percent }) else { return }
            let filled = percent / 4
            FileHandle.standardError.write(Data("\r\(label) [\(String(repeating: "#", count: filled))\(String(repeating: ".", count: 25 - filled))] \(percent)% \(done)/\(total)".utf8))
        } else if last.withLock({ shown in defer { shown = done / 100_000 }; return shown != done / 100_000 }) {
            if done > 0 { FileHandle.standardError.write(Data("\(label): \(done)\(total > 0 ? "/\(total)" : "")\n".utf8)) }
        }
    }

    func finish() {
        if terminal { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
