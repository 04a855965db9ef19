import Foundation
import Synchronization

/// What an observed query reads, so a commit that cannot change its results costs no fetch.
///
/// A commit can change a query's results when it inserts a record of the query's entity; deletes
/// one that is in the results (or any, when an offset shifts the window); updates one that is in
/// the results (its value changes) or any property the predicate or the sort reads (it may enter
/// or leave, or move); or touches any record of an entity a related filter (`relatedOne`,
/// `anyRelated`, `noneRelated`) or a position sort key (its owner's list) reads; and any change of
/// an entity a full-text search reads.
struct ObservedDependencies: Sendable {
    let entity: String
    /// Properties of `entity` the predicate and the sort read (relationships named by related filters included).
    private(set) var properties: Set<String> = []
    /// Entities read through related filters.
    private(set) var relatedEntities: Set<String> = []
    let hasOffset: Bool
    /// Every entity whose changes may change the results.
    var entities: Set<String> { relatedEntities.union([entity]) }

    init(_ plan: FetchPlan, schema: Schema) {
        entity = plan.entity
        hasOffset = plan.offset > 0
        // A position key reads its owner's list: any change of the owner's entity may reorder.
        properties.formUnion(plan.sort.filter { $0.position == nil }.map(\.property))
        for list in plan.sort.compactMap(\.position) {
            relatedEntities.insert(list.entity)
            if let inverse = schema.entity(list.entity)?.relationship(list.relationship)?.inverse {
                properties.insert(inverse)
            }
        }
        if let predicate = plan.predicate { collect(predicate, in: plan.entity, schema: schema, top: true) }
    }

    /// Adds a property of `entity` the value reads and an entity whose changes may change it.
    mutating func read(_ property: String, of relatedEntity: String) {
        properties.insert(property)
        relatedEntities.insert(relatedEntity)
    }

    private mutating func collect(_ expression: FilterExpression, in entityName: String, schema: Schema, top: Bool) {
        func read(_ property: String) { if top { properties.insert(property) } }
        switch expression {
        case .constant: break
        case .compare(let property, _, _, _), .inList(let property, _, _), .between(let property, _, _),
            .text(let property, _, _, _), .isNil(let property), .elements(let property, _),
            .documentPath(let property, _, _, _):
            read(property)
        case .search:
            // Relevance and the match set read every record's words (their counts rank): any
            // change of the entity may change the results.
            relatedEntities.insert(entityName)
        case .and(let parts), .or(let parts):
            for part in parts { collect(part, in: entityName, schema: schema, top: top) }
        case .not(let inner):
            collect(inner, in: entityName, schema: schema, top: top)
        case .relatedOne(let relationship, let inner), .anyRelated(let relationship, let inner),
            .noneRelated(let relationship, let inner):
            read(relationship)
            guard let destination = schema.entity(entityName)?.relationship(relationship)?.destination else { return }
            relatedEntities.insert(destination)
            collect(inner, in: destination, schema: schema, top: false)
        }
    }

    /// Whether `transaction` may change results whose records are `ids`.
    func affected(by transaction: HistoryTransaction, ids: Set<RecordID>) -> Bool {
        transaction.changes.contains { change in
            if relatedEntities.contains(change.entity) { return true }
            guard change.entity == entity else { return false }
            switch change.kind {
            case .insert: return true
            case .delete: return hasOffset || ids.contains(change.id)
            case .update:
                return ids.contains(change.id) || change.changedProperties.contains(where: properties.contains)
            }
        }
    }
}

/// What a live result has seen: commits through `token`, and the IDs it holds. Shared between the
/// observation and its hub subscription.
final class ObservedPosition: Sendable {
    let state = Mutex<(token: Int64, ids: Set<RecordID>)>((0, []))

    func withLock<T>(_ body: (inout (token: Int64, ids: Set<RecordID>)) -> T) -> T { state.withLock { body(&$0) } }
}

extension CommitHub {
    /// Subscribes a live result: `wake` is called for a commit that may change it (judged against
    /// what `seen` holds), and for a gap or a failed read (re-reading sees everything, or reports
    /// the error).
    func subscribe(
        after position: HistoryToken?, for dependencies: ObservedDependencies, seen: ObservedPosition,
        wake: AsyncStream<Void>.Continuation
    ) -> UUID {
        subscribe(after: position, entities: dependencies.entities) { event in
            switch event {
            case .gap, .failed:
                wake.yield()
            case .committed(let transaction):
                let relevant = seen.withLock { seen in
                    transaction.token.value > seen.token && dependencies.affected(by: transaction, ids: seen.ids)
                }
                if relevant { wake.yield() }
            }
        }
    }
}
