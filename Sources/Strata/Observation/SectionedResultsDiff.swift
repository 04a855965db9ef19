import Foundation

/// How observed sections changed between two deliveries: sections matched by key, rows by record
/// ID.
///
/// Sections are ordered by key, so a section never moves: it is inserted (`insertedSections`, new
/// offsets) or deleted (`removedSections`, previous offsets), and its rows go with it. Row changes
/// name positions in the sections both values hold, as ``ResultsDiff`` does for a flat list:
/// `removedRows` in the previous value, `insertedRows`, `modifiedRows` in the new one; a row that
/// moved — within its section, or to another section (its key changed) — is in `movedRows` and,
/// where its section was kept, also removed at its old position and inserted at its new one.
/// Applying the diff (``apply(to:new:)->SectionedResults<Model,Key>``) turns the previous sections
/// into the new ones.
public struct SectionedResultsDiff: Sendable, Hashable {
    /// A row's place: its section's offset and its offset within the section.
    public struct Position: Sendable, Hashable, Comparable {
        /// The section's offset.
        public var section: Int
        /// The row's offset within its section.
        public var row: Int

        /// The row `row` of section `section`.
        public init(section: Int, row: Int) {
            self.section = section
            self.row = row
        }

        public static func < (a: Position, b: Position) -> Bool { (a.section, a.row) < (b.section, b.row) }
    }

    /// A row that changed place: where it was in the previous value and where it is in the new one.
    public struct Move: Sendable, Hashable {
        /// Its position in the previous value.
        public var from: Position
        /// Its position in the new value.
        public var to: Position

        /// A move from `from` (previous value) to `to` (new value).
        public init(from: Position, to: Position) {
            self.from = from
            self.to = to
        }
    }

    /// Offsets in the previous value of sections the new one lacks.
    public var removedSections = IndexSet()
    /// Offsets in the new value of sections the previous one lacked.
    public var insertedSections = IndexSet()
    /// Previous positions of rows gone from a kept section, or moved out of their place there.
    public var removedRows: [Position] = []
    /// New positions of rows new to a kept section, or moved into their place there.
    public var insertedRows: [Position] = []
    /// Rows in both values whose place changed, across sections included.
    public var movedRows: [Move] = []
    /// New positions of rows in both values whose record changed (moved ones included).
    public var modifiedRows: [Position] = []

    /// Whether nothing changed.
    public var isEmpty: Bool {
        removedSections.isEmpty && insertedSections.isEmpty && removedRows.isEmpty && insertedRows.isEmpty
            && movedRows.isEmpty && modifiedRows.isEmpty
    }

    /// `previous` with this diff applied, taking inserted sections, inserted rows and modified rows
    /// from `new`: equal to `new` when the diff was computed between the two.
    public func apply<Element>(to previous: [[Element]], new: [[Element]]) -> [[Element]] {
        var sections = previous
        for position in removedRows.sorted().reversed()
        where position.section < sections.count && position.row < sections[position.section].count {
            sections[position.section].remove(at: position.row)
        }
        for offset in removedSections.reversed() where offset < sections.count { sections.remove(at: offset) }
        for offset in insertedSections where offset <= sections.count && offset < new.count {
            sections.insert(new[offset], at: offset)
        }
        for position in insertedRows.sorted()
        where position.section < sections.count && !insertedSections.contains(position.section)
            && position.section < new.count && position.row < new[position.section].count
            && position.row <= sections[position.section].count
        {
            sections[position.section].insert(new[position.section][position.row], at: position.row)
        }
        for position in modifiedRows
        where position.section < sections.count && position.section < new.count
            && position.row < sections[position.section].count && position.row < new[position.section].count
        {
            sections[position.section][position.row] = new[position.section][position.row]
        }
        return sections
    }

    /// `previous` with this diff applied, as ``SectionedResults``: kept sections keep their keys,
    /// inserted ones take theirs from `new`.
    public func apply<Model, Key>(to previous: SectionedResults<Model, Key>, new: SectionedResults<Model, Key>)
        -> SectionedResults<Model, Key>
    {
        let applied = apply(to: previous.sections.map(\.models), new: new.sections.map(\.models))
        var kept = previous.sections.enumerated().filter { !removedSections.contains($0.offset) }.map(\.element.key)[
            ...]
        var sections: [Section<Model, Key>] = []
        for (offset, models) in applied.enumerated() {
            let key =
                insertedSections.contains(offset) && offset < new.sections.count
                ? new.sections[offset].key : (kept.popFirst() ?? nil)
            sections.append(Section(key: key, models: models))
        }
        return SectionedResults(sections: sections)
    }
}
