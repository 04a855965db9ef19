import ArgumentParser
import Foundation
import Strata
import StrataTools

/// `strata inspect`: what a store holds, without the app's Swift types.
public struct Inspect: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        abstract: "Show a store's backend, schema, record counts, history range and sync state.",
        discussion: """
            The store is opened with the schema it holds; nothing is written. Exit codes: 0 shown, \
            1 the store cannot be opened (the error says why).

            Examples:
              strata inspect sqlite:./app.sqlite
              strata inspect postgres://app@db.internal/app --json | jq '.entities[] | {name, count}'
            """)

    @Argument(help: "The store's URL (sqlite:PATH, lmdb:PATH, json:PATH, postgres://…).") var url: String
    @Flag(help: "Print the inspection as JSON.") var json = false
    @Flag(
        help: ArgumentHelp(
            "Also read every record and print the store's digest (per entity: count, and a hash of IDs, "
                + "versions, values and link lists): equal digests, equal data, on any backend."))
    var digest = false

    public init() {}

    public func run() async throws {
        CommandLineBackends.register()
        let store = try await Store.openStored(url)
        let inspection = try await store.inspect()
        let digest = self.digest ? try await store.digest() : nil
        try await store.close()
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(Output(inspection: inspection, digest: digest)), as: UTF8.self))
            return
        }
        print("store      \(inspection.location ?? url)")
        print("backend    \(inspection.backend ?? "?")")
        let records = inspection.entities.map(\.count).reduce(0, +)
        print(
            "schema     version \(inspection.schemaVersion ?? "unnamed"), "
                + "\(inspection.entities.count) entities, \(records) records")
        let history = inspection.history
        let purged = history.purgedBefore.map { " (purged before \($0))" } ?? ""
        if let first = history.first, let last = history.last {
            print("history    tokens \(first)…\(last)" + purged)
        } else {
            print("history    empty" + purged)
        }
        print(
            "rules      "
                + (inspection.rulesRecorded == true
                    ? "the app's, as it recorded them (delete rules, validation)"
                    : "not recorded (no app has opened the store since stores record them): "
                        + "delete rules shown as stored shape only")
        )
        let sync = inspection.sync
        let cursor = sync.cursor.map(String.init) ?? "none"
        let reset = sync.resetInProgress ? ", reset under way" : ""
        print(
            "sync       client: \(sync.pendingMutations) pending, cursor \(cursor)\(reset); "
                + "server: \(sync.serverClients) client(s) seen")
        for entity in inspection.entities {
            print("")
            print("\(entity.name)  (\(entity.count) records, \(entity.idKind.rawValue) IDs)")
            for attribute in entity.attributes {
                let flags = [attribute.isOptional ? "optional" : nil, attribute.isIndexed ? "indexed" : nil].compactMap
                { $0 }
                print(
                    "  \(attribute.name): \(attribute.type.rawValue)"
                        + (flags.isEmpty ? "" : "  [\(flags.joined(separator: ", "))]"))
            }
            for relationship in entity.relationships {
                let arrow = relationship.toMany ? (relationship.isOrdered ? "->> (ordered)" : "->>") : "->"
                let rule = inspection.rulesRecorded == true ? ", delete rule \(relationship.deleteRule)" : ""
                print(
                    "  \(relationship.name) \(arrow) \(relationship.destination)"
                        + (relationship.inverse.map { "  inverse \($0)" } ?? "")
                        + "  [\(relationship.storage)\(rule)]")
            }
            for index in entity.indexes { print("  index (\(index.joined(separator: ", ")))") }
            for unique in entity.uniqueConstraints { print("  unique (\(unique.joined(separator: ", ")))") }
        }
        if let digest {
            print("")
            print("digest")
            for (name, entity) in digest.entities.sorted(by: { $0.key < $1.key }) {
                print("  \(name)  \(entity.count)  \(entity.hash)")
            }
        }
    }
}

extension Inspect {
    /// The JSON output: the inspection's fields, and the digest when asked for.
    struct Output: Encodable {
        var inspection: StoreInspection
        var digest: StoreDigest?

        func encode(to encoder: any Encoder) throws {
            try inspection.encode(to: encoder)
            if let digest {
                var container = encoder.container(keyedBy: Key.self)
                try container.encode(digest, forKey: .digest)
            }
        }

        private enum Key: String, CodingKey { case digest }
    }
}
