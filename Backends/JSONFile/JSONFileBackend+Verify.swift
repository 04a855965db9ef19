import Foundation
import StrataInMemory
import StrataStorage

extension JSONFileBackend {
    /// Checks the store at `path` without changing its files (no lock is taken, no torn tail
    /// dropped), and reports what an open would make of them (see `VerifyReport`): the
    /// document against its digest and the schema, each journal entry against its checksum, and
    /// every record rebuilt from both.
    /// - Throws: `StrataError` `notAStore` or `incompatibleStore` when `path` is not a Strata
    ///   JSON store of `schema`; everything else is a finding in the report.
    ///
    /// `schema` `nil` checks the store against the schema it holds (what `strata verify` does).
    public static func verify(path: String, schema given: Schema? = nil) async throws -> VerifyReport {
        var report = VerifyReport(location: "json:\(path)")
        guard let document = FileManager.default.contents(atPath: path) else {
            throw StrataError(.notAStore, "\(path) cannot be read")
        }
        var operations: [JSONOperation]
        let schema: Schema
        do {
            schema = try given ?? (storedDescription(path: path)?.schema() ?? Schema(entities: []))
            operations = try JSONDocument.operations(document, path: path, schema: schema)
        } catch let error as StrataError where error.code == .corruptStore {
            report.add(error)
            return report
        }
        let journal = FileManager.default.contents(atPath: journalPath(path)) ?? Data()
        var damagedTail: JSONJournalTail?
        do {
            let (replayed, tail) = try replay(journal, path: journalPath(path), schema: schema)
            operations += replayed
            switch tail.kind {
            case .none:
                break
            case .tornAppend:
                report.notes.append(
                    "the journal ends in a torn append (a save interrupted before it was acknowledged) at byte "
                        + "\(tail.offset); an open drops it")
            case .damaged:
                damagedTail = tail
            }
            report.notes.append("journal: \(replayed.count) operations to replay")
        } catch let error as StrataError {
            report.add(error)
            return report
        }
        do {
            let memory = try await rebuild(operations, schema: schema)
            let (counts, lastKept) = try await memory.read { tx in
                let counts = try schema.entities.map { ($0.name, try tx.count(FetchPlan(entity: $0.name))) }
                return (counts, HistoryToken.last(in: tx))
            }
            for (entity, count) in counts { report.recordsChecked[entity] = count }
            try await memory.close()
            if let damagedTail {
                let said = damagedTail.describe(journal: journalPath(path), lastKept: lastKept)
                report.add(
                    StrataError(
                        .corruptStore, "\(said); an open refuses the store unless told to keep what is readable"))
            }
        } catch var error as StrataError {
            error.code = .corruptStore
            report.add(error)
            if let damagedTail {
                report.add(StrataError(.corruptStore, damagedTail.describe(journal: journalPath(path), lastKept: nil)))
            }
        }
        return report
    }
}
