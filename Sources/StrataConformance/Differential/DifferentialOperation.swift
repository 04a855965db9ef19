import Foundation
import Strata

/// Which store of a differential world an operation acts on: the sync server's store, or the
/// client's store (sync on) that pushes to it and pulls from it.
enum DifferentialTarget: String, Sendable {
    case server, client
}

/// One change, applied through whichever write path the operation names.
enum DifferentialEdit: Sendable, CustomStringConvertible {
    case insert(Record)
    case upsert(Record)
    case update(RecordKey, [String: Value])
    case delete(RecordKey)
    case deleteMatching(FetchPlan)
    case link(RecordKey, String, RecordID)
    case unlink(RecordKey, String, RecordID)
    case setRelated(RecordKey, String, [RecordID])

    var description: String {
        switch self {
        case .insert(let record): "insert \(record.key) \(Self.describe(record.values))"
        case .upsert(let record): "upsert \(record.key) \(Self.describe(record.values))"
        case .update(let key, let values): "update \(key) \(Self.describe(values))"
        case .delete(let key): "delete \(key)"
        case .deleteMatching(let plan): "delete \(plan.entity) where \(plan.predicate.map { "\($0)" } ?? "true")"
        case .link(let owner, let name, let target): "link \(owner).\(name) → \(target)"
        case .unlink(let owner, let name, let target): "unlink \(owner).\(name) → \(target)"
        case .setRelated(let owner, let name, let targets): "set \(owner).\(name) = \(targets)"
        }
    }

    static func describe(_ values: [String: Value]) -> String {
        "{" + values.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
    }

    /// Applies the edit inside a store transaction (the untyped path).
    func apply(_ tx: StoreTransaction) throws {
        switch self {
        case .insert(let record): try tx.insert(record)
        case .upsert(let record): try tx.upsert(record)
        case .update(let key, let values): try tx.update(key.entity, id: key.id, set: values)
        case .delete(let key): try tx.delete(key.entity, id: key.id)
        case .deleteMatching(let plan): try tx.delete(matching: plan)
        case .link(let owner, let name, let target): try tx.link(owner.entity, id: owner.id, name, to: target)
        case .unlink(let owner, let name, let target): try tx.unlink(owner.entity, id: owner.id, name, from: target)
        case .setRelated(let owner, let name, let targets):
            try tx.setRelated(owner.entity, id: owner.id, name, to: targets)
        }
    }

    /// Applies the edit as its own save through the typed repository.
    func applyThroughRepository(_ store: Store) async throws {
        switch self {
        case .insert(let record): try await TypedModel.require(record.entity).insert(store, record)
        case .upsert(let record): try await TypedModel.require(record.entity).upsert(store, record)
        case .update(let key, let values): try await TypedModel.require(key.entity).update(store, key, values)
        case .delete(let key): try await TypedModel.require(key.entity).delete(store, key.id)
        case .deleteMatching(let plan): try await store.transaction { tx in try tx.delete(matching: plan) }
        case .link(let owner, let name, let target):
            try await TypedRelationship.require(owner.entity, name).link(store, owner.id, target)
        case .unlink(let owner, let name, let target):
            try await TypedRelationship.require(owner.entity, name).unlink(store, owner.id, target)
        case .setRelated(let owner, let name, let targets):
            try await TypedRelationship.require(owner.entity, name).setRelated(store, owner.id, targets)
        }
    }

    /// Stages the edit in a context (saved later with the context's other changes).
    func stage(in context: ModelContext) async throws {
        switch self {
        case .insert(let record), .upsert(let record):
            try await TypedModel.require(record.entity).contextInsert(context, record)
        case .update(let key, let values): try await TypedModel.require(key.entity).contextUpdate(context, key, values)
        case .delete(let key): try await TypedModel.require(key.entity).contextDelete(context, key.id)
        case .deleteMatching: break  // contexts delete by ID
        case .link(let owner, let name, let target):
            try await TypedRelationship.require(owner.entity, name).contextLink(context, owner.id, target)
        case .unlink(let owner, let name, let target):
            try await TypedRelationship.require(owner.entity, name).contextUnlink(context, owner.id, target)
        case .setRelated(let owner, let name, let targets):
            try await TypedRelationship.require(owner.entity, name).contextSetRelated(context, owner.id, targets)
        }
    }
}

/// One step of a differential run.
enum DifferentialOperation: Sendable, CustomStringConvertible {
    /// Edits in one store transaction.
    case transaction(DifferentialTarget, [DifferentialEdit])
    /// One edit through the typed repository.
    case repository(DifferentialTarget, DifferentialEdit)
    /// A context reads records and memberships, the store changes meanwhile (`interleaved`, one
    /// transaction), the context stages `changes` and saves under `policy`.
    case context(
        DifferentialTarget, PolicyUnderTest, reads: [RecordKey], memberships: [MembershipRead],
        interleaved: [DifferentialEdit], changes: [DifferentialEdit])
    /// The client pushes and pulls.
    case sync
    /// A fetch and a count.
    case query(DifferentialTarget, FetchPlan)
    /// The server store is closed and reopened (abruptly: from its files as a killed process leaves them).
    case reopen(abrupt: Bool)

    struct MembershipRead: Sendable, CustomStringConvertible {
        var owner: RecordKey
        var relationship: String
        var description: String { "\(owner).\(relationship)" }
    }

    var description: String {
        switch self {
        case .transaction(let target, let edits):
            "\(target) transaction [\(edits.map(\.description).joined(separator: "; "))]"
        case .repository(let target, let edit): "\(target) repository \(edit)"
        case .context(let target, let policy, let reads, let memberships, let interleaved, let changes):
            "\(target) context(\(policy.rawValue)) reads \(reads) \(memberships), meanwhile [\(interleaved.map(\.description).joined(separator: "; "))], "
                + "then [\(changes.map(\.description).joined(separator: "; "))] and save"
        case .sync: "client sync"
        case .query(let target, let plan):
            "\(target) query \(plan.entity) where \(plan.predicate.map { "\($0)" } ?? "true") sort \(plan.sort.map { "\($0.property)\($0.ascending ? "↑" : "↓")" }) limit \(plan.limit.map(String.init) ?? "-") offset \(plan.offset)"
        case .reopen(let abrupt): abrupt ? "server reopen after an abrupt stop" : "server close and reopen"
        }
    }
}
