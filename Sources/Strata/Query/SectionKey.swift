import Foundation

/// What a sectioned fetch groups by: a value read from each model — an attribute, a to-one's
/// attribute, or a function of one such as the day of a date or the first letter of a text — as
/// `NSFetchedResultsController`'s `sectionNameKeyPath` and Realm's `SectionedResults` do.
///
/// ```swift
/// let byDay = try await trips.fetch(Query<Trip>.all.sorted(by: \.start), sectionedBy: .day(\.start))
/// for section in byDay.sections { print(section.key, section.count) }
/// ```
public struct SectionKey<Model: PersistentModel, Key: Hashable & Comparable & Sendable>: Sendable {
    /// A key read from the model alone.
    let local: (@Sendable (Model) -> Key?)?
    /// A key read from the destination of one of the model's to-ones.
    let through: Through?

    /// How a key through a to-one is read: the reference's name and destination entity, the
    /// reference of a model, and the key of a destination record.
    struct Through: Sendable {
        let relationship: Result<String, StrataError>
        let destination: String
        let reference: @Sendable (Model) -> RecordID?
        let key: @Sendable (Record) throws -> Key?
    }

    /// Sections by `key(model)` (nil: the section of models without one).
    public init(_ key: @escaping @Sendable (Model) -> Key?) {
        local = key
        through = nil
    }

    init(through: Through) {
        local = nil
        self.through = through
    }

    /// Sections by an attribute's value.
    public static func attribute(_ keyPath: any KeyPath<Model, Key> & Sendable) -> SectionKey {
        SectionKey { $0[keyPath: keyPath] }
    }

    /// Sections by an optional attribute's value (models holding nil form the first section).
    public static func attribute(_ keyPath: any KeyPath<Model, Key?> & Sendable) -> SectionKey {
        SectionKey { $0[keyPath: keyPath] }
    }

    /// Sections by an attribute of a to-one's destination — stops by their trip's name; models
    /// without a destination form the section nil. The destinations are read in the same read as
    /// the models (one read by IDs for all of them, not one per model), and an observation of such
    /// sections follows changes of the destination's entity too.
    ///
    /// ```swift
    /// let byTraveller = try await trips.fetch(Query<Trip>.all, sectionedBy: .related(\.traveller, \Person.name))
    /// ```
    public static func related<D: PersistentModel>(
        _ toOne: any KeyPath<Model, D.ID?> & Sendable, _ attribute: any KeyPath<D, Key> & Sendable
    ) -> SectionKey {
        through(toOne, { $0[keyPath: toOne]?.recordID }, { (destination: D) in destination[keyPath: attribute] })
    }

    /// Sections by an optional attribute of a to-one's destination (models without a destination,
    /// or whose destination holds nil, form the section nil).
    public static func related<D: PersistentModel>(
        _ toOne: any KeyPath<Model, D.ID?> & Sendable, _ attribute: any KeyPath<D, Key?> & Sendable
    ) -> SectionKey {
        through(toOne, { $0[keyPath: toOne]?.recordID }, { (destination: D) in destination[keyPath: attribute] })
    }

    /// Sections by an attribute of a required to-one's destination.
    public static func related<D: PersistentModel>(
        _ toOne: any KeyPath<Model, D.ID> & Sendable, _ attribute: any KeyPath<D, Key> & Sendable
    ) -> SectionKey {
        through(toOne, { $0[keyPath: toOne].recordID }, { (destination: D) in destination[keyPath: attribute] })
    }

    /// Sections by an optional attribute of a required to-one's destination.
    public static func related<D: PersistentModel>(
        _ toOne: any KeyPath<Model, D.ID> & Sendable, _ attribute: any KeyPath<D, Key?> & Sendable
    ) -> SectionKey {
        through(toOne, { $0[keyPath: toOne].recordID }, { (destination: D) in destination[keyPath: attribute] })
    }

    private static func through<D: PersistentModel>(
        _ toOne: PartialKeyPath<Model>, _ reference: @escaping @Sendable (Model) -> RecordID?,
        _ key: @escaping @Sendable (D) -> Key?
    ) -> SectionKey {
        SectionKey(
            through: Through(
                relationship: Model.entity.propertyName(toOne), destination: D.entityName, reference: reference,
                key: { key(try D(record: $0)) }))
    }

    /// Each model's key; a key through a to-one reads `referenced` (the destinations by ID, from
    /// ``referencedRecords(_:in:)``), each destination decoded once.
    func keys(_ models: [Model], referenced: [RecordID: Record]) throws -> [Key?] {
        if let local { return models.map(local) }
        guard let through else { return models.map { _ in nil } }
        var destinationKeys: [RecordID: Key?] = [:]
        destinationKeys.reserveCapacity(referenced.count)
        for (id, record) in referenced { destinationKeys[id] = try through.key(record) }
        return models.map { model in through.reference(model).flatMap { destinationKeys[$0] ?? nil } }
    }

    /// The destinations `records` refer to, read in `transaction` (none for a key of the model
    /// alone): one read by IDs, whatever the number of records.
    func referencedRecords(_ records: [Record], in transaction: any StorageReadTransaction) throws -> [RecordID: Record]
    {
        guard let through else { return [:] }
        let name = try through.relationship.get()
        let ids = Set(records.compactMap { RecordID($0[name]) })
        return ids.isEmpty ? [:] : try transaction.records(through.destination, ids: Array(ids))
    }

    /// What an observation of these sections reads besides the query: the to-one's name and its
    /// destination entity.
    var dependency: (relationship: String, destination: String)? {
        guard let through, case .success(let name) = through.relationship else { return nil }
        return (name, through.destination)
    }
}

extension SectionKey where Key == Date {
    /// Sections by the day a date falls on in `timeZone` (UTC by default): each key is that day's
    /// start.
    public static func day(_ keyPath: any KeyPath<Model, Date> & Sendable, in timeZone: TimeZone = .gmt) -> SectionKey {
        let calendar = Self.calendar(timeZone)
        return SectionKey { calendar.startOfDay(for: $0[keyPath: keyPath]) }
    }

    /// Sections by the day an optional date falls on (models without one form the first section).
    public static func day(_ keyPath: any KeyPath<Model, Date?> & Sendable, in timeZone: TimeZone = .gmt) -> SectionKey
    {
        let calendar = Self.calendar(timeZone)
        return SectionKey { $0[keyPath: keyPath].map(calendar.startOfDay(for:)) }
    }

    private static func calendar(_ timeZone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }
}

extension SectionKey where Key == String {
    /// Sections by a text's first character, upper-cased and without diacritics ("é" → "E"), as an
    /// index of names is; empty text forms the section "".
    public static func firstLetter(_ keyPath: any KeyPath<Model, String> & Sendable) -> SectionKey {
        SectionKey { Self.letter($0[keyPath: keyPath]) }
    }

    /// Sections by an optional text's first character (models without one form the first section).
    public static func firstLetter(_ keyPath: any KeyPath<Model, String?> & Sendable) -> SectionKey {
        SectionKey { $0[keyPath: keyPath].map(Self.letter) }
    }

    static func letter(_ text: String) -> String {
        guard let first = text.first else { return "" }
        return String(first).folding(options: [.diacriticInsensitive, .caseInsensitive], locale: nil).uppercased()
    }
}
