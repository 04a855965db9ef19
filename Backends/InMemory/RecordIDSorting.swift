import StrataStorage

/// Sorting many record IDs at once (a save's new records entering the ID order), through the
/// storage layer's `RecordIDOrder`: UUIDs compared as pairs of 64-bit halves, without copying an
/// enum per comparison, which was nine-tenths of a generic sort's time.
enum RecordIDSorting {
    static func sorted(_ ids: [RecordID]) -> [RecordID] {
        RecordIDOrder.permutation(ids).map { ids[$0] }
    }
}
