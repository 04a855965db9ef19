import ArgumentParser
import Foundation
import Strata
import StrataTools

/// `strata import`: an export (NDJSON) into a store, through the engine.
public struct Import: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        abstract: "Load an export (NDJSON from `strata export`) into a store, keeping IDs, versions and link order.",
        discussion: """
            A store that does not exist is created with the export's schema; an existing one must hold the \
            same shape, and must be empty unless --resume continues an interrupted import. Records are \
            loaded through the engine — values validated, unique constraints checked — in saves of --batch \
            records (memory bounded by a batch), each storing the position reached, so an interrupted \
            import continues with --resume; references are checked at the end and dangling ones reported \
            (exit 2). With --atomic the whole file is one save (memory bounded by the file): any invalid \
            record or dangling reference writes nothing. --replace removes the target's records first (a \
            save per batch, recorded in its history). Exit codes: 0 imported; 1 an error (nothing of \
            the failing batch written); 2 imported with dangling references; 64 usage.

            Examples:
              strata export sqlite:./app.sqlite | strata import lmdb:./copy.lmdb
              strata import json:./app.json --input app.ndjson --atomic
            """)

    @Argument(help: "The target store's URL.") var url: String
    @Option(help: "Read this file instead of standard input.") var input: String?
    @Option(help: "Records per save.") var batch = 1_000
    @Flag(help: "One save for the whole file: all or nothing.") var atomic = false
    @Flag(help: "Continue an interrupted import into the same store from the same file.") var resume = false
    @Flag(
        help: ArgumentHelp(
            "Remove the target's records first (it must hold the export's shape); "
                + "without it a non-empty target is refused."))
    var replace = false
    @Flag(help: "Print the outcome as one JSON object.") var json = false

    public init() {}

    public func run() async throws {
        CommandLineBackends.register()
        let lines = try LineReader(path: input)
        guard let first = lines.next(), let header = try ExportHeader.parse(first) else {
            throw ValidationError("the input does not start with a strata export header")
        }
        guard header.format == 1 else {
            throw ValidationError("export format \(header.format) is not supported (this tool reads 1)")
        }
        let store = try await TargetStore.open(url, shape: header.schema, declared: header.declared)
        let loader = StoreLoader(store: store)
        var done = try await loader.position()
        if replace {
            if resume { throw ValidationError("--replace and --resume exclude each other") }
            let existing = try await store.inspect().entities.map(\.count).reduce(0, +)
            let clearing = ProgressBar(total: existing, label: "remove")
            let removed = try await loader.removeAll(batch: batch) { clearing.advance(to: $0) }
            if existing > 0 { clearing.finish(at: removed) }
            done = 0
        }
        if done > 0, !resume {
            throw ValidationError(
                "\(url) holds an interrupted import (\(done) records): add --resume, or import into an empty store")
        }
        // The mark a finished import leaves: its header line (schema and record count) and how many
        // records it loaded, so a resume after a kill that landed past the last batch is told
        // there is nothing left instead of "not empty".
        let completion = "\(header.records.map(String.init) ?? "?") \(Self.checksum(first))"
        if resume, done == 0, try await loader.completion() == completion {
            try await store.close()
            let records = header.records.map { "\($0) records" } ?? "every record"
            if json {
                let report = ImportReport(
                    store: url, records: 0, resumedAt: header.records, dangling: [], alreadyFinished: true)
                print(String(decoding: try JSONEncoder.sorted.encode(report), as: UTF8.self))
            } else {
                print("nothing left to import: \(url) already holds the whole of this import (\(records))")
            }
            return
        }
        if done == 0, try await store.inspect().entities.contains(where: { $0.count > 0 }) {
            throw ValidationError("\(url) is not empty: import into an empty store, or add --replace")
        }
        let schema = store.schema
        let progress = ProgressBar(total: header.records ?? 0, label: "import")
        var position = 0
        var pending: [LoadedRecord] = []
        var finished = false
        var lineNumber = 1
        while let line = lines.next() {
            lineNumber += 1
            if line.hasPrefix("{\"strata\":\"end\"") {
                finished = true
                break
            }
            position += 1
            if position <= done { continue }
            do {
                let (record, links) = try RecordJSON.parse(line, schema: schema)
                pending.append(LoadedRecord(record: record, links: links))
            } catch let error as StrataError {
                throw StrataError(
                    error.code, entity: error.entity, recordID: error.recordID, property: error.property,
                    "line \(lineNumber): \(error.message)")
            }
            if !atomic, pending.count >= max(1, batch) {
                try await loader.load(pending, through: position)
                pending.removeAll(keepingCapacity: true)
                progress.advance(to: position)
            }
        }
        guard finished else { throw ValidationError("the input ends without the export's end line: it is cut short") }
        try await loader.load(pending, through: position, checkingReferences: atomic)
        progress.finish(at: position)
        let dangling = try await loader.finish(completion: completion)
        try await store.close()
        for finding in dangling { FileHandle.standardError.write(Data("dangling: \(finding)\n".utf8)) }
        if json {
            let report = ImportReport(
                store: url, records: position - done, resumedAt: done > 0 ? done : nil,
                dangling: dangling.map(\.description))
            print(String(decoding: try JSONEncoder.sorted.encode(report), as: UTF8.self))
        } else {
            print(
                "imported \(position - done) records into \(url)"
                    + (dangling.isEmpty ? "" : "; \(dangling.count) dangling reference(s)"))
        }
        if !dangling.isEmpty { throw ExitCode(2) }
    }
}

extension Import {
    /// A CRC-32 of `line`, in hex.
    static func checksum(_ line: String) -> String {
        var checksum = Checksum()
        checksum.update(Array(line.utf8))
        return String(checksum.final, radix: 16)
    }
}

/// `strata import --json`'s output.
struct ImportReport: Codable {
    var store: String
    /// Records this run loaded.
    var records: Int
    /// Where a resumed import started.
    var resumedAt: Int?
    /// References that point at nothing once everything is in (exit 2).
    var dangling: [String]
    /// A `--resume` found the import already finished: nothing was loaded (exit 0).
    var alreadyFinished: Bool?
}

/// Lines of standard input or a file, read as they come.
final class LineReader {
    private let file: UnsafeMutablePointer<FILE>?
    private let owned: Bool

    init(path: String?) throws {
        if let path {
            guard let file = fopen(path, "r") else { throw ValidationError("cannot read \(path)") }
            self.file = file
            owned = true
        } else {
            file = nil
            owned = false
        }
    }

    deinit { if owned, let file { fclose(file) } }

    func next() -> String? {
        guard let file else { return readLine(strippingNewline: true) }
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        let count = getline(&line, &capacity, file)
        guard count >= 0, let line else { return nil }
        var text = String(cString: line)
        if text.hasSuffix("\n") { text.removeLast() }
        return text
    }
}

/// Opening the store an import or copy writes to.
enum TargetStore {
    /// The store at `url` if it exists (it must hold `shape`), else a new one with `shape` — with
    /// the app's `declared` schema (its rules enforced by the load, and recorded) when it
    /// declares that shape.
    static func open(_ url: String, shape: SchemaDescription, declared: SchemaFile?) async throws -> Store {
        CommandLineBackends.register()
        do {
            let store = try await Store.openStored(url)
            guard SchemaDescription(store.schema).sameShape(as: shape) else {
                try await store.close()
                throw ValidationError("\(url) holds another schema than the input's")
            }
            return store
        } catch let error as StrataError where error.code == .notAStore {
            CommandLineBackends.register(creating: true)
            if let declared, let schema = try? declared.schema(), SchemaDescription(schema).sameShape(as: shape) {
                let store = try await Store.open(url, schema: schema.versioned(shape.version))
                try await store.recordDeclaration(declared)
                return store
            }
            return try await Store.open(url, schema: try shape.schema())
        }
    }
}
