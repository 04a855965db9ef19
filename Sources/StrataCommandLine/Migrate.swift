import ArgumentParser
import Foundation
import Strata
import StrataTools

/// `strata migrate`: a store to the schema of a schema file, through the engine's lightweight migration.
public struct Migrate: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        abstract:
            "Migrate a store to the schema in a schema file: the difference in words, the steps, then the migration.",
        discussion: """
            The target schema comes from a schema file — JSON the app writes with \
            `try SchemaFile(schema).write(to: "app.schema.json")`, or `strata schema export URL` edited by \
            hand. The tool compares it with the shape the store holds and prints every difference and the \
            lightweight steps that cover them (renames follow the file's `renamedFrom`), then the changes \
            of behaviour (delete rules, requirements, defaults, validation) relative to the rules the \
            store recorded. It then runs the steps in one write — the store ends at the file's schema or, \
            on any failure, stays exactly as it was — with progress, and records the file as the store's \
            declared schema. With --dry-run it runs every step and check of that write (required values, \
            uniqueness, conversions, the outbox) and rolls it back: it fails where the migration would fail \
            and never changes the store. A change no lightweight step covers (a \
            type change, an attribute made required without a default) needs a custom stage in the app's \
            MigrationPlan: the tool names it and changes nothing. Exit codes: 0 migrated (or nothing to \
            do, or a dry run that can run); 1 an error; 2 the migration cannot run (a change needs a custom \
            stage, or the records break the new schema), nothing changed; 64 usage.

            Examples:
              strata schema export sqlite:./app.sqlite --output app.schema.json
              strata migrate sqlite:./app.sqlite --to app.schema.json --dry-run
              strata migrate lmdb:./app.lmdb --to app.schema.json --json
            """)

    @Argument(help: "The store's URL.") var url: String
    @Option(help: "The schema file to migrate to.") var to: String
    @Flag(help: "Run every step and check, then roll back: fails where the migration would; changes nothing.")
    var dryRun = false
    @Flag(help: "Refuse while sync mutations wait in the outbox (default: re-express them in the new names).")
    var refuseOutbox = false
    @Flag(help: "Print the plan and the outcome as one JSON object.") var json = false

    public init() {}

    public func run() async throws {
        CommandLineBackends.register()
        let file = try SchemaFile.read(from: to)
        let target = try file.schema()
        guard let stored = try await Store.storedShape(at: url) else {
            throw StrataError(.notAStore, "there is no store at \(url): nothing to migrate")
        }
        let current = try await Store.openStored(url)
        let rules = await current.matchingDeclaration() ?? SchemaFile(current.schema)
        let counts = Dictionary(
            try await current.inspect().entities.map { ($0.name, $0.count) }, uniquingKeysWith: { a, _ in a })
        try await current.close()

        var report = MigrationReport(store: url, file: to, from: stored.version, to: target.version, dryRun: dryRun)
        report.changes = Self.differences(from: stored, to: file)
        report.behaviour = BehaviourChanges.between(rules, file)
        do {
            report.steps = try LightweightMigration.steps(from: stored, to: target).map(\.description)
        } catch let error as StrataError where error.code == .migrationRequired {
            report.refusal = error.message
        }
        report.records = report.changes.isEmpty ? 0 : stored.entities.reduce(0) { $0 + (counts[$1.name] ?? 0) }
        let shapeChanges = !stored.isOpenable(as: SchemaDescription(target))
        report.nothingToDo = !shapeChanges && rules == file
        if !json { report.printPlan() }
        guard report.refusal == nil else { return try finish(report, exit: 2) }
        guard !report.nothingToDo else { return try finish(report, exit: 0) }

        if shapeChanges {
            let bar = ProgressBar(total: 0, label: dryRun ? "dry run" : "migrate")
            let options = OpenOptions(
                migrations: .lightweight(outbox: refuseOutbox ? .refuse : .migrate),
                progress: { step in
                    bar.show("stage \(step.stage)/\(step.stages): \(step.phase)", done: step.done, total: step.total)
                })
            do {
                if dryRun {
                    // Every step and check of the real run, in its one write, rolled back.
                    try await Store.rehearseMigration(url, schema: target, options: options)
                    bar.finish()
                    report.rehearsed = true
                    if !json { print(Self.rehearsed(report.records)) }
                    return try finish(report, exit: 0)
                }
                let store = try await Store.open(url, schema: target, options: options)
                bar.finish()
                try await store.recordDeclaration(file)
                try await store.close()
            } catch let error as StrataError where Self.refusals.contains(error.code) {
                bar.finish()
                report.refusal = error.description
                if !json {
                    print(
                        "\(dryRun ? "dry run: the migration would be refused" : "refused"), nothing changed: \(error)")
                }
                return try finish(report, exit: 2)
            }
        } else if dryRun {
            if !json { print("dry run: no record changes; the migration would record the file's rules") }
            return try finish(report, exit: 0)
        } else {
            let store = try await Store.open(url, schema: target)
            try await store.recordDeclaration(file)
            try await store.close()
        }
        report.migrated = true
        if !json {
            print(
                shapeChanges
                    ? "migrated \(url) to the file's schema\(target.version.map { " (version \($0))" } ?? "")"
                    : "the shapes are equal: recorded the file's rules, no record changed")
        }
        try finish(report, exit: 0)
    }

    /// What a migration refuses with (exit 2): the records or the change, not the tool or the store.
    static let refusals: [StrataError.Code] = [
        .uniqueViolation, .missingValue, .migrationRequired, .validationFailed, .typeMismatch,
    ]

    /// What a dry run that could run says.
    static func rehearsed(_ records: Int) -> String {
        "dry run: every step and check ran over the store's \(records) record\(records == 1 ? "" : "s") in one "
            + "write and was rolled back; the migration will succeed on the store as it is now"
    }

    /// The differences of shape in words, a rename (the file's `renamedFrom`) as one change
    /// rather than an addition and a removal.
    static func differences(from stored: SchemaDescription, to file: SchemaFile) -> [String] {
        guard let target = try? file.schema() else { return [] }
        var changes = SchemaDescription(target).differences(from: stored)
        let storedEntities = Dictionary(stored.entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var renames: [String] = []
        for entity in file.entities {
            if let old = entity.renamedFrom, storedEntities[old] != nil, storedEntities[entity.name] == nil {
                changes.removeAll {
                    $0.property == nil && ($0.entity == old || $0.entity == entity.name)
                        && $0.description.hasPrefix("entity `")
                }
                renames.append("entity `\(old)` renamed to `\(entity.name)`")
            }
            guard let before = storedEntities[entity.name] ?? entity.renamedFrom.flatMap({ storedEntities[$0] }) else {
                continue
            }
            let names = Set(before.attributes.map(\.name) + before.relationships.map(\.name))
            let renamed =
                entity.attributes.compactMap { a in a.renamedFrom.map { ($0, a.name) } }
                + entity.relationships.compactMap { r in r.renamedFrom.map { ($0, r.name) } }
            for (old, new) in renamed where names.contains(old) && !names.contains(new) {
                changes.removeAll {
                    $0.entity == entity.name && ($0.property == old || $0.property == new)
                        && ($0.description.hasSuffix("removed") || $0.description.contains("` added"))
                }
                renames.append("\(entity.name): `\(old)` renamed to `\(new)`")
            }
        }
        return renames + changes.map(\.description)
    }

    private func finish(_ report: MigrationReport, exit code: Int32) throws {
        if json { print(String(decoding: try JSONEncoder.sorted.encode(report), as: UTF8.self)) }
        if code != 0 { throw ExitCode(code) }
    }
}

/// What `strata migrate` found and did (its --json output).
struct MigrationReport: Codable {
    var store: String
    var file: String
    var from: String?
    var to: String?
    var dryRun: Bool
    /// A dry run ran every step and check of the migration and rolled them back.
    var rehearsed = false
    /// The differences of shape, one sentence each.
    var changes: [String] = []
    /// The lightweight steps that cover them, in order.
    var steps: [String] = []
    /// Changes of rules that touch no record.
    var behaviour: [String] = []
    /// Records in the store the steps run over.
    var records = 0
    /// Why the migration cannot run (nothing changed).
    var refusal: String?
    var migrated = false
    /// The store holds the file's shape, version and rules already.
    var nothingToDo = false

    func printPlan() {
        print("\(store): version \(from ?? "unnamed") → \(to ?? "unnamed") (\(file))")
        if nothingToDo {
            print("nothing to migrate: the store already holds this schema")
            return
        }
        print(changes.isEmpty ? "shape: unchanged" : "differences (\(changes.count)):")
        for change in changes { print("  - \(change)") }
        if !steps.isEmpty {
            print("steps (\(steps.count), in one write; the store holds \(records) record\(records == 1 ? "" : "s")):")
        }
        for (number, step) in steps.enumerated() { print("  \(number + 1). \(step)") }
        if !behaviour.isEmpty { print("rules (no record changes):") }
        for change in behaviour { print("  - \(change)") }
        if let refusal { print("cannot run: \(refusal)") }
    }
}
