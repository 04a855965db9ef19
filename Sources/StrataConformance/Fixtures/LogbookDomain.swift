import Foundation
import Strata

// The delete rules' plainest cascade: a logbook owns its entries through an unordered to-many, and
// an entry's one relationship is its logbook. Nothing of an entry's own rules reaches further, so
// the engine may delete a logbook's entries by ID and version without reading their values.

/// A logbook: deleting one deletes its entries.
struct Logbook: PersistentModel, Equatable {
    var id: UUID = UUID()
    var name: String

    static let entries = ToMany<Logbook, LogEntry>("entries")

    static let entity = Entity<Logbook>(
        "Logbook", [.attribute(\.name), .toMany(entries, inverse: \LogEntry.logbook, deleteRule: .cascade)])
}

/// An entry of one logbook.
struct LogEntry: PersistentModel, Equatable {
    var id: UUID = UUID()
    var text: String
    var logbook: Logbook.ID?

    static let entity = Entity<LogEntry>(
        "LogEntry", [.attribute(\.text), .toOne(\.logbook, Logbook.self, inverse: Logbook.entries)])
}

enum LogbookDomain {
    static func schema() throws -> Schema { try Schema(Logbook.self, LogEntry.self) }
}
