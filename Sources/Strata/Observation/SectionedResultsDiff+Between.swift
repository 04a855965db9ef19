import Foundation

extension SectionedResultsDiff {
    /// The diff from `previous` to `current` sections (each row an ID and a version): a section in
    /// both whose rows are the same costs one comparison of them; a changed section is diffed by
    /// ``ResultsDiff/between(_:_:)``, and a row that left one section for another is a move.
    static func between<Key>(_ previous: [SectionRows<Key>], _ current: [SectionRows<Key>]) -> SectionedResultsDiff {
        var diff = SectionedResultsDiff()
        let previousIndex = Dictionary(previous.enumerated().map { ($1.key, $0) }, uniquingKeysWith: { a, _ in a })
        let currentIndex = Dictionary(current.enumerated().map { ($1.key, $0) }, uniquingKeysWith: { a, _ in a })
        for (offset, section) in previous.enumerated() where currentIndex[section.key] == nil {
            diff.removedSections.insert(offset)
        }
        for (offset, section) in current.enumerated() where previousIndex[section.key] == nil {
            diff.insertedSections.insert(offset)
        }
        // Rows that left a section and rows that entered one: a row in both lists changed section.
        var left: [RecordID: (position: Position, version: Int64)] = [:]
        var entered: [(id: RecordID, position: Position, version: Int64)] = []
        for (offset, section) in previous.enumerated() where diff.removedSections.contains(offset) {
            for (row, entry) in section.rows.enumerated() {
                left[entry.id] = (Position(section: offset, row: row), entry.version)
            }
        }
        for (offset, section) in current.enumerated() {
            guard let old = previousIndex[section.key] else {
                for (row, entry) in section.rows.enumerated() {
                    entered.append((entry.id, Position(section: offset, row: row), entry.version))
                }
                continue
            }
            let before = previous[old].rows
            if before.elementsEqual(section.rows, by: { $0.id == $1.id && $0.version == $1.version }) { continue }
            let rows = ResultsDiff.between(before, section.rows)
            diff.removedRows += rows.removed.map { Position(section: old, row: $0) }
            diff.insertedRows += rows.inserted.map { Position(section: offset, row: $0) }
            diff.modifiedRows += rows.modified.map { Position(section: offset, row: $0) }
            let moved = Set(rows.moved.map(\.from))
            diff.movedRows += rows.moved.map {
                Move(from: Position(section: old, row: $0.from), to: Position(section: offset, row: $0.to))
            }
            for row in rows.removed where !moved.contains(row) {
                left[before[row].id] = (Position(section: old, row: row), before[row].version)
            }
            let movedTo = Set(rows.moved.map(\.to))
            for row in rows.inserted where !movedTo.contains(row) {
                let entry = section.rows[row]
                entered.append((entry.id, Position(section: offset, row: row), entry.version))
            }
        }
        for entry in entered {
            guard let origin = left[entry.id] else { continue }
            diff.movedRows.append(Move(from: origin.position, to: entry.position))
            if origin.version != entry.version { diff.modifiedRows.append(entry.position) }
        }
        diff.removedRows.sort()
        diff.insertedRows.sort()
        diff.modifiedRows.sort()
        diff.movedRows.sort { $0.to < $1.to }
        return diff
    }
}
