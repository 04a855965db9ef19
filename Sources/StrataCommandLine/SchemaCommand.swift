import ArgumentParser
import Foundation
import Strata

/// `strata schema`: schema files.
public struct SchemaCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "schema", abstract: "Schema files: the JSON form of a schema that `strata migrate --to` reads.",
        subcommands: [ExportSchema.self])

    public init() {}
}

/// `strata schema export`: the schema a store holds, as a schema file.
public struct ExportSchema: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "export",
        abstract:
            "Write the schema a store holds as a schema file (to edit, and migrate to with `strata migrate --to`).",
        discussion: """
            The file is the declaration the last app recorded when it opened the store (delete rules, \
            defaults, validation) when the store holds one of its shape; otherwise the bare stored shape \
            (nullify delete rules, no validation), said on standard error. An app writes its own with \
            `try SchemaFile(schema).write(to: path)`. To rename a property or an entity in a migration, \
            change its name and set "renamedFrom" to the old one. Exit codes: 0 written; 1 an error.

            Examples:
              strata schema export sqlite:./app.sqlite > app.schema.json
              strata schema export lmdb:./app.lmdb --output app.schema.json
            """)

    @Argument(help: "The store's URL.") var url: String
    @Option(help: "Write here instead of standard output.") var output: String?

    public init() {}

    public func run() async throws {
        CommandLineBackends.register()
        let store = try await Store.openStored(url)
        let declared = await store.matchingDeclaration()
        let file = declared ?? SchemaFile(store.schema)
        try await store.close()
        if declared == nil {
            FileHandle.standardError.write(
                Data(
                    ("note: \(url) holds no declaration of its app: "
                        + "this is the bare stored shape (nullify delete rules, no validation)\n").utf8))
        }
        if let output {
            try file.write(to: output)
        } else {
            print(String(decoding: file.encoded(pretty: true), as: UTF8.self))
        }
    }
}
