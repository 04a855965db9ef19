import Foundation

/// What a sectioned fetch groups by: a value read from each model — an attribute, or a function of
/// one such as the day of a date or the first letter of a text — as `NSFetchedResultsController`'s
/// `sectionNameKeyPath` and Realm's `SectionedResults` do.
///
/// ```swift
/// let byDay = try await trips.fetch(Query<Trip>.all.sorted(by: \.start), sectionedBy: .day(\.start))
/// for section in byDay.sections { print(section.key, section.count) }
/// ```
public struct SectionKey<Model: PersistentModel, Key: Hashable & Comparable & Sendable>: Sendable {
    let key: @Sendable (Model) -> Key?

    /// Sections by `key(model)` (nil: the section of models without one).
    public init(_ key: @escaping @Sendable (Model) -> Key?) { self.key = key }

    /// Sections by an attribute's value.
    public static func attribute(_ keyPath: any KeyPath<Model, Key> & Sendable) -> SectionKey {
        SectionKey { $0[keyPath: keyPath] }
    }

    /// Sections by an optional attribute's value (models holding nil form the first section).
    public static func attribute(_ keyPath: any KeyPath<Model, Key?> & Sendable) -> SectionKey {
        SectionKey { $0[keyPath: keyPath] }
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

/// One section: its key and its models, in the query's order.
public struct Section<Model: PersistentModel, Key: Hashable & Comparable & Sendable>: Sendable {
    /// The section's key (nil: the models without one).
    public let key: Key?
    /// The section's models, in the query's order.
    public let models: [Model]
    /// How many models the section holds.
    public var count: Int { models.count }
}

/// A query's results grouped into sections: sections ordered by key — ascending, the section
/// without a key first; descending (that section last) when the query's first sort key is
/// descending — and each section's models in the query's order.
public struct SectionedResults<Model: PersistentModel, Key: Hashable & Comparable & Sendable>: Sendable {
    /// The sections, in order; none is empty.
    public let sections: [Section<Model, Key>]
    /// Every model, section after section.
    public var models: [Model] { sections.flatMap(\.models) }

    /// `models` (in the query's order) grouped by `key`; `descending` orders the sections by key
    /// descending.
    public init(_ models: [Model], by key: SectionKey<Model, Key>, descending: Bool = false) {
        var order: [Key?] = []
        var grouped: [Key?: [Model]] = [:]
        for model in models {
            let value = key.key(model)
            if grouped[value] == nil { order.append(value) }
            grouped[value, default: []].append(model)
        }
        order.sort { a, b in
            switch (a, b) {
            case (nil, nil): return false
            case (nil, _): return !descending
            case (_, nil): return descending
            case (let a?, let b?): return descending ? a > b : a < b
            }
        }
        sections = order.map { Section(key: $0, models: grouped[$0] ?? []) }
    }
}

extension ModelReading {
    /// A query's results grouped into sections by `key` (see ``SectionedResults``): one fetch, then
    /// one pass over its models, so a sectioned fetch costs what the fetch costs and a grouping by
    /// hash.
    public func fetch<Key>(_ query: Query<Model>, sectionedBy key: SectionKey<Model, Key>) async throws
        -> SectionedResults<Model, Key>
    {
        let descending = query.sort.first.map { !$0.ascending } ?? false
        return SectionedResults(try await fetch(query), by: key, descending: descending)
    }
}
