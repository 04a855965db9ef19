import Strata
import StrataSync

/// The rules sharing adds to a write: a share is written by the owner of the record it shares,
/// with a role the server knows, and a participant who may write a shared record may not delete
/// the shared record itself nor change who owns it or anything under it.
extension SyncServer {
    /// Why sharing forbids this write (its stored and proposed states as checked), or `nil`.
    static func shareRefusal(
        _ mutation: SyncMutation, stored: Record?, proposed: Record?, by view: AccessView,
        in reader: any StorageReadTransaction
    ) throws -> String? {
        guard let identity = view.identity else { return nil }
        if mutation.entity == SyncShare.entityName {
            return try shareRecordRefusal(mutation, stored: stored, proposed: proposed, by: view, in: reader)
        }
        // A record written through a share only — the shared root or any record under it, added by
        // whomever — stays its owner's: the properties its owner rule reads do not change, so a
        // revoke leaves it where it was.
        guard let stored, try !view.isInOwnScope(stored, in: reader) else { return nil }
        let rule = view.access.shareables[mutation.entity]
        if rule != nil, proposed == nil { return "only the owner of the shared \(mutation.key) may delete it" }
        guard let proposed else { return nil }
        let owned: FilterExpression?
        if let rule {
            owned = rule.owner(identity)
        } else if case .matching(let scope) = view.access.scope(of: mutation.entity, for: identity) {
            owned = scope
        } else {
            owned = nil
        }
        for property in (owned?.propertiesRead ?? []).sorted() where stored[property] != proposed[property] {
            return "\(mutation.key).\(property) says who owns it: only the owner may change it"
        }
        return nil
    }

    /// A share is created and changed by the owner of the record it names, deleted by its owner or
    /// its participant.
    private static func shareRecordRefusal(
        _ mutation: SyncMutation, stored: Record?, proposed: Record?, by view: AccessView,
        in reader: any StorageReadTransaction
    ) throws -> String? {
        guard let identity = view.identity else { return nil }
        let me = Value.string(identity.id)
        guard let proposed else {
            guard let stored, stored["owner"] != me, stored["participant"] != me else { return nil }
            return "only the owner or the participant of \(mutation.key) may delete it"
        }
        if let stored, stored["owner"] != me { return "only the owner of \(mutation.key) may change it" }
        guard proposed["owner"] == me else { return "a share's owner must be the identity that writes it, \(identity)" }
        let roles = SyncShare.Role.allCases.map(\.rawValue)
        guard case .string(let role) = proposed["role"], roles.contains(role) else {
            return "a share's role is one of \(roles.joined(separator: ", ")), not \(proposed["role"])"
        }
        guard case .string(let participant) = proposed["participant"], !participant.isEmpty, participant != identity.id
        else { return "a share needs a participant other than its owner" }
        guard case .string(let entity) = proposed["entity"], let rule = view.access.shareables[entity],
            let description = reader.schema.entity(entity)
        else { return "\(proposed["entity"]) is not shareable" }
        guard case .string(let text) = proposed["record"],
            let id = SyncShare.recordID(text, as: description.idKind),
            let root = try reader.record(entity, id: id)
        else { return "\(entity) \(proposed["record"]) does not exist" }
        if try !PredicateEvaluator(reader).matches(root, rule.owner(identity)) {
            return "\(entity) \(text) is not \(identity)'s to share"
        }
        return nil
    }
}

extension FilterExpression {
    /// The properties and relationships of the filtered entity the expression reads.
    var propertiesRead: Set<String> {
        switch self {
        case .constant, .search: []
        case .compare(let name, _, _, _), .inList(let name, _, _), .between(let name, _, _), .text(let name, _, _, _),
            .isNil(let name), .elements(let name, _), .documentPath(let name, _, _, _):
            [name]
        case .and(let parts), .or(let parts): parts.reduce(into: []) { $0.formUnion($1.propertiesRead) }
        case .not(let part): part.propertiesRead
        case .relatedOne(let name, _), .anyRelated(let name, _), .noneRelated(let name, _): [name]
        }
    }
}
