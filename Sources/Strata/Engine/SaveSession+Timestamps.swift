import Foundation

/// Automatic timestamps (``AutomaticTimestamp``): stamped as a save's records are written, after
/// validation, with one time for the whole save — except when the save brings its own values (a
/// load or copy, a sync client applying pulled changes).
extension SaveSession {
    /// The stamps of `entity`'s records in this save (empty when the save keeps the values it brings).
    func timestamps(of entity: String) -> [(name: String, kind: AutomaticTimestamp)] {
        guard !loading, !mirrorsRemoteState, let stamps = schema.entity(entity)?.timestamps else { return [] }
        return stamps
    }

    /// An inserted record: every stamp is the save's time.
    func stampInserted(_ record: inout Record, _ stamps: [(name: String, kind: AutomaticTimestamp)], at now: Date) {
        for stamp in stamps { record[stamp.name] = .date(now) }
    }

    /// An updated record: creation stamps keep the stored values; modification stamps take the
    /// save's time when anything else changed, else keep theirs (a save that only touched a stamp
    /// changes nothing). Returns the changed property names, stamps included.
    func stampUpdated(
        _ record: inout Record, original: Record, changed: Set<String>,
        _ stamps: [(name: String, kind: AutomaticTimestamp)], at now: Date
    ) -> Set<String> {
        var names = changed
        for stamp in stamps {
            record[stamp.name] = original[stamp.name]
            names.remove(stamp.name)
        }
        guard !names.isEmpty else { return names }
        for stamp in stamps where stamp.kind == .modification {
            record[stamp.name] = .date(now)
            names.insert(stamp.name)
        }
        return names
    }
}
