import CLMDB
import CStrataLMDBWalk
import Foundation
import StrataStorage
import Synchronization

extension LMDBBackend {
    /// Checks the store in the directory `path` without changing any file (its lock file
    /// included), and reports what it found (see `VerifyReport`).
    ///
    /// LMDB trusts its pages: liblmdb aborts the process on some structural damage (an assertion
    /// such as `IS_LEAF(mp)` on a zeroed page) and faults on others. No in-process check can catch
    /// that, so verify runs in two steps:
    /// 1. The data file's size is checked against its meta pages (a truncated file is a finding).
    /// 2. A **child process** walks every database — free pages, the main database, each named
    ///    database, every key and value — and reports what it met. If liblmdb kills the child, the
    ///    store has structural damage that would crash any process opening it: that is the
    ///    finding, and the caller is unharmed.
    /// 3. Only when the walk was clean are the records read in this process: every record of every
    ///    entity decoded with its checksum, each damaged one a finding naming the entity and ID.
    ///
    /// Run it on a store no process is writing (it reads without the lock file).
    /// - Throws: `StrataError` `notAStore` or `incompatibleStore` when `path` is not a Strata
    ///   LMDB store of `schema`; everything else is a finding in the report.
    ///
    /// `schema` `nil` checks the store against the schema it holds (what `strata verify` does).
    public static func verify(path: String, schema: Schema? = nil, timeout: Duration = .seconds(120)) async throws
        -> VerifyReport
    {
        var report = VerifyReport(location: "lmdb:\(path)")
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path + "/data.mdb", isDirectory: &isDirectory),
            !isDirectory.boolValue
        else {
            throw StrataError(.notAStore, "\(path) holds no LMDB data file")
        }
        if ((try? FileManager.default.attributesOfItem(atPath: path + "/data.mdb")[.size] as? Int) ?? 0) == 0 {
            report.notes.append(
                "an empty data file (a creation interrupted before LMDB's first write): an open initialises it")
            return report
        }
        do {
            try LMDBFileCheck.check(directory: path)
        } catch let error as StrataError {
            report.add(error)
            return report
        }
        report = try await walkReport(path: path, timeout: timeout, into: report)
        guard report.isSound else { return report }
        // The walk was clean: reading the stored description in this process is safe.
        var checked = schema
        if checked == nil {
            let stored = try await storedDescription(path: path, options: Options(verifyStructureAtOpen: false))
            checked = try stored?.schema() ?? Schema(entities: [])
        }
        try checkRecords(path: path, schema: checked ?? Schema(entities: []), into: &report)
        return report
    }

    /// The child-process walk alone, as an open with ``Options/verifyStructureAtOpen`` (the
    /// default) runs it: throws the first finding (`corruptStore`) when the walk did not end
    /// cleanly. The child takes a reader slot in the lock file, so a writer in another process
    /// cannot reuse the pages it is reading.
    static func checkStructure(path: String) async throws {
        guard ((try? FileManager.default.attributesOfItem(atPath: path + "/data.mdb")[.size] as? Int) ?? 0) > 0 else {
            return
        }
        let start = VerifyReport(location: "lmdb:\(path)")
        let report = try await walkReport(path: path, timeout: .seconds(600), usingLock: true, into: start)
        if let finding = report.findings.first { throw finding }
    }

    /// Walks the data file in a child process and adds what it met to `report`: a store liblmdb
    /// stopped on is not safe to open; errors and counts that disagree are findings.
    private static func walkReport(
        path: String, timeout: Duration, usingLock: Bool = false, into start: VerifyReport
    ) async throws -> VerifyReport {
        var report = start
        let walk = try await walkInChild(path: path, usingLock: usingLock, timeout: timeout)
        if let signal = walk.signal {
            report.isSafeToOpen = false
            let said = walk.lines.filter { $0.contains("Assertion") }.joined(separator: "; ")
            report.add(
                StrataError(
                    .corruptStore,
                    "\(path): the data file is structurally damaged: liblmdb stopped a walk of it with signal "
                        + "\(signal)\(said.isEmpty ? "" : " [\(said)]")"
                        + (signal == SIGABRT
                            ? " (an assertion failed)"
                            : signal == SIGALRM ? " (the walk did not end: a page loop)" : "")
                        + ". Opening this store would crash the process that opens it; restore it from a backup or a "
                        + "replica"
                ))
            return report
        }
        for line in walk.lines {
            if line.hasPrefix("error \(MDB_INVALID) ") || line.hasPrefix("error \(MDB_VERSION_MISMATCH) ") {
                throw StrataError(.notAStore, "\(path): not an LMDB environment (\(line))")
            }
            if line.hasPrefix("error ") || line.hasPrefix("count ") {
                report.add(StrataError(.corruptStore, "\(path): \(line)"))
            } else if line.hasPrefix("walked ") {
                report.notes.append(
                    "every page \(line.replacingOccurrences(of: "walked", with: "of")) read in a child process")
            }
        }
        if walk.exitCode != 0, report.isSound {
            report.add(
                StrataError(.corruptStore, "\(path): the walk of the data file ended with status \(walk.exitCode)"))
        }
        return report
    }

    /// Reads every record in this process (safe once the child's walk was clean).
    private static func checkRecords(path: String, schema: Schema, into report: inout VerifyReport) throws {
        let layout = LMDBLayout(schema: schema)
        let environment: LMDBEnvironment
        do {
            environment = try LMDBEnvironment(
                path: path, mapSize: 1 << 20, maxDatabases: layout.databases.count + 8, noSync: true, readOnly: true)
        } catch {
            throw StrataError(.notAStore, underlying: error, "\(path) cannot be opened as an LMDB environment")
        }
        do {
            try environment.openDatabases([(LMDBLayout.meta, false)], create: false)
        } catch let status as LMDBStatus where status.code == MDB_NOTFOUND {
            guard (try? environment.mainDatabaseIsEmpty()) == true else {
                throw StrataError(
                    .notAStore, underlying: status, "\(path) is an LMDB environment but not a Strata store")
            }
            report.notes.append(
                "an empty environment (a store whose creation was interrupted): an open creates the store in it")
            return
        }
        let backend = LMDBBackend(schema: schema, path: path, environment: environment)
        let (format, fingerprint) = try backend.readRaw {
            (try $0.metadata(MetadataKeys.lmdbFormat), try $0.metadata(MetadataKeys.schemaFingerprint))
        }
        if format == nil, fingerprint == nil {
            report.notes.append(
                "a store whose creation was interrupted before its format was written: an open completes it")
            return
        }
        guard format == Array(formatVersion.utf8) else {
            throw StrataError(
                .incompatibleStore,
                "\(path) was written in LMDB store format "
                    + "\(format.map { String(decoding: $0, as: UTF8.self) } ?? "(none)")"
            )
        }
        let description = try backend.readRaw { try $0.metadata(SchemaDescription.metadataKey) }
        try StoredSchema.check(description: description, schema: schema, path: path)
        do {
            try environment.openDatabases(layout.databases, create: false)
        } catch {
            report.add(
                StrataError(.corruptStore, underlying: error, "\(path): a database of the schema is missing (\(error))")
            )
            return
        }
        let start = report
        report = try backend.readRaw { tx in
            var report = start
            for entity in schema.entities { checkEntity(entity, in: tx, path: path, into: &report) }
            return report
        }
    }

    /// One index entry: the indexed value's key and the record's ID key.
    private struct IndexEntry: Hashable {
        var key: [UInt8]
        var id: [UInt8]
    }

    /// Every record of `entity` decoded with its checksum, then each of its indexes compared with
    /// the entries its records call for: a damaged index makes queries miss records.
    private static func checkEntity(
        _ entity: EntityDescription, in tx: LMDBReadTransaction, path: String, into report: inout VerifyReport
    ) {
        var checked = 0
        let indexed = entity.indexedProperties.sorted()
        var expected: [String: Set<IndexEntry>] = [:]
        do {
            try tx.scan(try tx.database(LMDBLayout.records(entity.name)), from: nil) { key, bytes in
                checked += 1
                do {
                    let id = try LMDBKeys.decodeID(key, kind: entity.idKind)
                    let record = try tx.decodeRecord(bytes, id: id, entity)
                    for property in indexed {
                        expected[property, default: []].insert(
                            IndexEntry(key: LMDBKeys.indexKey(entity, property, record[property]), id: key))
                    }
                } catch var error as StrataError {
                    error.code = .corruptStore
                    error.entity = error.entity ?? entity.name
                    report.add(error)
                }
                return true
            }
        } catch {
            report.add(
                StrataError(
                    .corruptStore, entity: entity.name, underlying: error,
                    "\(path): the records of \(entity.name) cannot be read to their end (\(error))"))
            report.recordsChecked[entity.name] = checked
            return
        }
        report.recordsChecked[entity.name] = checked
        guard report.isSound else { return }  // a damaged record already explains its index entries
        for property in indexed {
            var found = Set<IndexEntry>()
            do {
                try tx.scan(try tx.database(LMDBLayout.index(entity.name, property)), from: nil) { key, id in
                    found.insert(IndexEntry(key: key, id: id))
                    return true
                }
            } catch {
                report.add(
                    StrataError(
                        .corruptStore, entity: entity.name, property: property, underlying: error,
                        "\(path): the index cannot be read to its end"))
                continue
            }
            let wanted = expected[property] ?? []
            let missing = wanted.subtracting(found).count
            let stray = found.subtracting(wanted).count
            if missing > 0 || stray > 0 {
                report.add(
                    StrataError(
                        .corruptStore, entity: entity.name, property: property,
                        "\(path): the index is damaged (\(missing) entries missing, \(stray) that no record calls "
                            + "for): queries on \(property) can miss records"
                    ))
            }
        }
    }

    /// The child's outcome: its report lines, and how it ended.
    struct Walk: Sendable {
        var lines: [String]
        var signal: Int32?
        var exitCode: Int32
    }

    /// Runs the C walker's fork-and-wait on a thread of its own (it blocks until the child ends).
    static func walkInChild(path: String, usingLock: Bool = false, timeout: Duration) async throws -> Walk {
        let seconds = UInt32(max(1, min(86_400, timeout.components.seconds)))
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                let capacity = 1 << 16
                var buffer = [CChar](repeating: 0, count: capacity)
                var status: Int32 = 0
                let started = strata_lmdb_walk_in_child(path, usingLock ? 1 : 0, seconds, &buffer, capacity, &status)
                guard started == 0 else {
                    continuation.resume(
                        throwing: StrataError(
                            .storageFailure, "\(path): the verify child could not be started (errno \(started))"))
                    return
                }
                let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                let lines = text.split(separator: "\n").map(String.init)
                let termination = status & 0x7F
                if termination != 0 {
                    continuation.resume(returning: Walk(lines: lines, signal: termination, exitCode: -1))
                } else {
                    continuation.resume(returning: Walk(lines: lines, signal: nil, exitCode: (status >> 8) & 0xFF))
                }
            }
        }
    }
}
