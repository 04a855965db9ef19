import Foundation
import Strata

/// The typed write paths (repository, context) for untyped edits, so the differential runs the
/// same change through every path a service uses.
struct TypedModel: Sendable {
    let insert: @Sendable (Store, Record) async throws -> Void
    let upsert: @Sendable (Store, Record) async throws -> Void
    let update: @Sendable (Store, RecordKey, [String: Value]) async throws -> Void
    let delete: @Sendable (Store, RecordID) async throws -> Void
    let contextFetch: @Sendable (ModelContext, RecordID) async throws -> Void
    let contextInsert: @Sendable (ModelContext, Record) async throws -> Void
    let contextUpdate: @Sendable (ModelContext, RecordKey, [String: Value]) async throws -> Void
    let contextDelete: @Sendable (ModelContext, RecordID) async throws -> Void

    static func id<M: PersistentModel>(_ type: M.Type, _ id: RecordID) throws -> M.ID {
        guard let typed = M.ID(recordID: id) else {
            throw StrataError(.typeMismatch, entity: M.entityName, recordID: id, property: "id", "not a \(M.ID.self)")
        }
        return typed
    }

    static func patched<M: PersistentModel>(_ model: M, _ values: [String: Value]) throws -> M {
        var record = try model.record()
        for (name, value) in values { record[name] = value }
        return try M(record: record)
    }

    static func of<M: PersistentModel>(_ type: M.Type) -> TypedModel {
        TypedModel(
            insert: { store, record in try await store.repository(M.self).insert(try M(record: record)) },
            upsert: { store, record in try await store.repository(M.self).upsert(try M(record: record)) },
            update: { store, key, values in
                let repository = store.repository(M.self)
                guard let model = try await repository.fetch(try id(M.self, key.id)) else {
                    throw StrataError(
                        .notFound, entity: key.entity, recordID: key.id, "cannot update a record that does not exist")
                }
                try await repository.update(try patched(model, values))
            },
            delete: { store, recordID in try await store.repository(M.self).delete(try id(M.self, recordID)) },
            contextFetch: { context, recordID in _ = try await context.fetch(M.self, id: try id(M.self, recordID)) },
            contextInsert: { context, record in try await context.insert(try M(record: record)) },
            contextUpdate: { context, key, values in
                guard let model = try await context.fetch(M.self, id: try id(M.self, key.id)) else {
                    throw StrataError(
                        .notFound, entity: key.entity, recordID: key.id, "cannot update a record that does not exist")
                }
                try await context.update(try patched(model, values))
            },
            contextDelete: { context, recordID in try await context.delete(M.self, id: try id(M.self, recordID)) })
    }

    static let byEntity: [String: TypedModel] = [
        "Person": of(Person.self), "Trip": of(Trip.self), "Stop": of(Stop.self), "Tag": of(Tag.self),
        "Agency": of(Agency.self),
        "Passport": of(Passport.self), "Node": of(Node.self), "Sample": of(Sample.self), "Shelf": of(Shelf.self),
        "Book": of(Book.self),
        "Chapter": of(Chapter.self), "Author": of(Author.self),
    ]

    static func require(_ entity: String) throws -> TypedModel {
        guard let typed = byEntity[entity] else {
            throw StrataError(.unknownEntity, entity: entity, "no typed path for \(entity)")
        }
        return typed
    }
}

/// The typed paths of one to-many relationship.
struct TypedRelationship: Sendable {
    let link: @Sendable (Store, RecordID, RecordID) async throws -> Void
    let unlink: @Sendable (Store, RecordID, RecordID) async throws -> Void
    let setRelated: @Sendable (Store, RecordID, [RecordID]) async throws -> Void
    let contextLink: @Sendable (ModelContext, RecordID, RecordID) async throws -> Void
    let contextUnlink: @Sendable (ModelContext, RecordID, RecordID) async throws -> Void
    let contextSetRelated: @Sendable (ModelContext, RecordID, [RecordID]) async throws -> Void
    let contextRelated: @Sendable (ModelContext, RecordID) async throws -> Void

    static func of<M: PersistentModel, D: PersistentModel>(_ relationship: ToMany<M, D>) -> TypedRelationship {
        @Sendable func ids(_ owner: RecordID, _ targets: [RecordID]) throws -> (M.ID, [D.ID]) {
            (try TypedModel.id(M.self, owner), try targets.map { try TypedModel.id(D.self, $0) })
        }
        return TypedRelationship(
            link: { store, owner, target in
                let (source, targets) = try ids(owner, [target])
                try await store.repository(M.self).link(relationship, from: source, to: targets[0])
            },
            unlink: { store, owner, target in
                let (source, targets) = try ids(owner, [target])
                try await store.repository(M.self).unlink(relationship, from: source, to: targets[0])
            },
            setRelated: { store, owner, targets in
                let (source, destinations) = try ids(owner, targets)
                try await store.repository(M.self).setRelated(relationship, of: source, to: destinations)
            },
            contextLink: { context, owner, target in
                let (source, targets) = try ids(owner, [target])
                try await context.link(relationship, from: source, to: targets[0])
            },
            contextUnlink: { context, owner, target in
                let (source, targets) = try ids(owner, [target])
                try await context.unlink(relationship, from: source, to: targets[0])
            },
            contextSetRelated: { context, owner, targets in
                let (source, destinations) = try ids(owner, targets)
                try await context.setRelated(relationship, of: source, to: destinations)
            },
            contextRelated: { context, owner in
                _ = try await context.related(relationship, of: try TypedModel.id(M.self, owner))
            })
    }

    /// Every to-many of the fixture domain the differential changes, by `Entity.relationship`.
    static let byName: [String: TypedRelationship] = [
        "Trip.tags": of(Trip.tags), "Tag.trips": of(Tag.trips), "Person.trips": of(Person.trips),
        "Person.interests": of(Person.interests),
        "Tag.people": of(Tag.people), "Trip.stops": of(Trip.stops), "Agency.bookings": of(Agency.bookings),
        "Shelf.books": of(Shelf.books),
        "Book.chapters": of(Book.chapters), "Book.authors": of(Book.authors), "Author.books": of(Author.books),
        "Person.ownedAgencies": of(Person.ownedAgencies),
    ]

    static func require(_ entity: String, _ name: String) throws -> TypedRelationship {
        guard let typed = byName["\(entity).\(name)"] else {
            throw StrataError(.unknownProperty, entity: entity, property: name, "no typed path for \(entity).\(name)")
        }
        return typed
    }
}
