import Strata

/// The pull cursor, kept beside the outbox in the same metadata space.
extension Outbox {
    package static func cursor(in transaction: any StorageReadTransaction) throws -> SyncCursor? {
        guard let bytes = try transaction.metadata(cursorKey) else { return nil }
        var reader = BinaryReader(bytes)
        let value = try reader.signed()
        return SyncCursor(value, epoch: try reader.optionalString())
    }

    package static func setCursor(_ cursor: SyncCursor?, in writer: any StorageWriteTransaction) throws {
        guard let cursor else { return }
        var bytes = BinaryWriter()
        bytes.signed(cursor.value)
        bytes.optionalString(cursor.epoch)
        try writer.setMetadata(cursorKey, bytes.bytes)
    }
}
