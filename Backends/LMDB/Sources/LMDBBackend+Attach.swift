import CLMDB
import Foundation
import StrataStorage

/// The attach of an LMDB store (what it holds, read without creating anything) and the checked
/// environment an open and an attach both start from.
extension LMDBBackend {
    /// The schema description the store in the directory at `path` holds, or `nil` when there is
    /// no store there (no directory, no data file, an environment whose creation was interrupted
    /// before anything was written). Creates nothing; the data file is walked in a child process
    /// first, as an open does, so a damaged one is a typed error, never a crash.
    public static func storedDescription(path: String, options: Options = Options()) async throws
        -> SchemaDescription?
    {
        guard !path.isEmpty else { throw StrataError(.unsupportedStore, "lmdb: needs a directory path") }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return nil }
        guard isDirectory.boolValue else {
            throw StrataError(.notAStore, "\(path) is a file; an LMDB store is a directory")
        }
        guard FileManager.default.fileExists(atPath: path + "/data.mdb") else { return nil }
        let environment = try await checkedEnvironment(path: path, options: options, databases: 0)
        let backend = LMDBBackend(schema: try Schema(entities: []), path: path, environment: environment)
        do {
            let description = try await backend.onWriter(readDescription(backend, path: path))
            try await backend.close()
            return description
        } catch {
            try? await backend.close()
            throw error
        }
    }

    /// The attach's read, on the environment's writer queue (which opens database handles).
    private static func readDescription(_ backend: LMDBBackend, path: String)
        -> @Sendable (LMDBEnvironment) throws -> SchemaDescription?
    {
        { environment in
            do {
                try environment.openDatabases([(LMDBLayout.meta, false)], create: false)
            } catch let status as LMDBStatus where status.code == MDB_NOTFOUND {
                guard try environment.mainDatabaseIsEmpty() else {
                    throw StrataError(.notAStore, "\(path) is an LMDB environment but not a Strata store")
                }
                return nil
            }
            guard let format = try backend.readRaw({ try $0.metadata(MetadataKeys.lmdbFormat) }) else { return nil }
            guard format == Array(formatVersion.utf8) else {
                throw StrataError(
                    .incompatibleStore,
                    "\(path) was written in LMDB store format \(String(decoding: format, as: UTF8.self))")
            }
            let description = try backend.readRaw { try $0.metadata(SchemaDescription.metadataKey) }
            return try StoredSchema.attached(description: description, path: path)
        }
    }

    /// The environment in the directory at `path`, once its data file passed the size check and
    /// (unless this process has it open already, or `options` say not to) the child's walk.
    static func checkedEnvironment(path: String, options: Options, databases: Int) async throws -> LMDBEnvironment {
        try LMDBFileCheck.check(directory: path)
        if options.verifyStructureAtOpen, !LMDBEnvironment.isOpen(path) { try await checkStructure(path: path) }
        do {
            return try LMDBEnvironment.shared(
                path: path, mapSize: max(options.initialMapSize, 1 << 16),
                maxDatabases: max(128, databases * 3 + 16), noSync: options.noSync)
        } catch {
            throw map(error, path: path)
        }
    }
}
