import Foundation
import Strata
import StrataSync

/// Authorization over the object graph, for pushes. A reference (a to-one, a link) is a read of
/// its target and a write into the target's inverse; and what the caller may not read does not
/// exist for it:
/// - a put setting a to-one to a record the caller may not read is refused exactly as one naming
///   an absent record is (`invalidReference`, "… does not exist"); to a record it may read but
///   not write, when the relationship has an inverse (the target's side would change), it is
///   refused as the write it is (`permissionDenied`);
/// - a link added to such a record is dropped, as a link to an absent record is;
/// - a mutation of a record the caller may not read is answered as for an absent record: an
///   update is `notFound`, a delete is applied (there is nothing of the caller's to delete) and
///   changes nothing, an insert under that ID is `permissionDenied` without naming whose it is —
///   the one answer that cannot pretend, since the caller chose an ID already taken (client IDs
///   are random UUIDs: a caller that guesses one learns only that it is taken).
extension SyncServer {
    /// How a mutation of a record the caller may not read (or an update of an absent one) is
    /// answered, or `nil` when the write checks decide.
    enum HiddenAnswer {
        /// Answered as applied, nothing written.
        case applied
        /// Rejected with this code and reason.
        case rejected(StrataError.Code, String)
    }

    static func hiddenAnswer(_ mutation: SyncMutation, by view: AccessView, in session: SaveSession) throws
        -> HiddenAnswer?
    {
        guard view.identity != nil else { return nil }
        let stored = try session.workingSet.record(mutation.entity, id: mutation.recordID)
        // An update of an absent record is refused before any check of what it would write, so
        // that a hidden record's answer can be the same.
        if stored == nil, mutation.kind == .put, !mutation.isInsert {
            return .rejected(.notFound, "\(mutation.key) was deleted on the server")
        }
        guard let stored, try !view.isReadable(stored, in: session.workingSet) else { return nil }
        switch mutation.kind {
        case .delete: return .applied
        case .put where mutation.isInsert:
            return .rejected(
                .permissionDenied, "\(mutation.key): this ID cannot be written by \(view.identity?.id ?? "")")
        case .put: return .rejected(.notFound, "\(mutation.key) was deleted on the server")
        }
    }

    /// Why the caller may not set the put's to-ones as it does, as the error the save would give
    /// for an absent target, or `nil`.
    static func referenceRefusal(_ mutation: SyncMutation, by view: AccessView, in session: SaveSession) throws
        -> StrataError?
    {
        guard view.identity != nil, mutation.kind == .put,
            let entity = session.workingSet.schema.entity(mutation.entity)
        else { return nil }
        let stored = try session.workingSet.record(mutation.entity, id: mutation.recordID)
        for (name, value) in mutation.values.sorted(by: { $0.key < $1.key }) where !value.isNull {
            guard let relationship = entity.relationship(name), relationship.isToOne,
                stored.map({ $0[name] }) != value, let target = RecordID(value)
            else { continue }
            let record = try session.workingSet.record(relationship.destination, id: target)
            guard let record, try view.isReadable(record, in: session.workingSet) else {
                return StrataError(
                    .invalidReference, entity: mutation.entity, recordID: mutation.recordID, property: name,
                    "\(relationship.destination)(\(target)) does not exist")
            }
            if relationship.inverse != nil, try !view.isWritable(record, in: session.workingSet) {
                return StrataError(
                    .permissionDenied, entity: mutation.entity, recordID: mutation.recordID, property: name,
                    "\(relationship.destination)(\(target)) may be read, not written, by \(view.identity?.id ?? "")")
            }
        }
        return nil
    }

    /// The link targets of `ids` the caller may link to (a link is a write into the target's
    /// inverse): the others are dropped, as absent targets are.
    static func linkable(_ ids: [RecordID], of entity: String, by view: AccessView?, in session: SaveSession) throws
        -> [RecordID]
    {
        let existing = try session.workingSet.existing(ids, of: entity)
        guard let view, view.identity != nil else { return existing }
        let records = try session.workingSet.records(entity, ids: existing)
        return try existing.filter { id in
            guard let record = records[id] else { return false }
            return try view.isWritable(record, in: session.workingSet)
        }
    }
}
