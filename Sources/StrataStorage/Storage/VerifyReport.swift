/// What a backend's verify routine found in a store's files, without changing them.
///
/// Each persistent backend has one (`SQLiteBackend.verify`, `LMDBBackend.verify`,
/// `JSONFileBackend.verify`); `strata verify` prints it. A store is `isSound` when nothing was
/// found that an open would not repair by itself; every finding is a typed ``StrataError``
/// (usually ``StrataError/Code/corruptStore``) naming the entity, record and property where the
/// damage lets it.
public struct VerifyReport: Sendable, CustomStringConvertible {
    /// The store that was verified.
    public var location: String
    /// Damage: data that an open would refuse, or read wrong, or that is lost.
    public var findings: [StrataError] = []
    /// What was checked and what an open will do by itself (recover a journal, drop a torn tail).
    public var notes: [String] = []
    /// Records read and checked, by entity.
    public var recordsChecked: [String: Int] = [:]
    /// False when opening the store would crash the process that opens it (LMDB: damage that
    /// liblmdb aborts on, found by a walk in a child process). Such a store is never opened: it
    /// is restored from a backup or a replica.
    public var isSafeToOpen = true

    /// An empty report for the store at `location`.
    public init(location: String) {
        self.location = location
    }

    /// Whether nothing was found that an open would not repair by itself.
    public var isSound: Bool { findings.isEmpty }

    /// Adds a finding; past `limit` findings only their number is kept (a store with every page
    /// damaged would otherwise report a million lines).
    public mutating func add(_ finding: StrataError, limit: Int = 1_000) {
        if findings.count < limit {
            findings.append(finding)
        } else {
            droppedFindings += 1
        }
    }

    /// Findings beyond the kept limit.
    public var droppedFindings = 0

    public var description: String {
        var lines = ["\(location): \(isSound ? "sound" : "DAMAGED (\(findings.count + droppedFindings) findings)")"]
        let total = recordsChecked.values.reduce(0, +)
        lines.append(
            "  \(total) records checked"
                + (recordsChecked.isEmpty
                    ? ""
                    : " ("
                        + recordsChecked.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(
                            separator: ", ") + ")"))
        lines += notes.map { "  note: \($0)" }
        lines += findings.map { "  damage: \($0)" }
        if droppedFindings > 0 { lines.append("  … and \(droppedFindings) more") }
        return lines.joined(separator: "\n")
    }
}
