import Foundation

/// A sync client's own bookkeeping beside the outbox, in the same metadata space: the server
/// version each record was last seen at, and the hybrid clock (the pull cursor is `StrataSync`'s).
extension Outbox {
    /// A record's key as a metadata key suffix: entity, separator, ID kind, ID (so `1` the
    /// string and `1` the integer never meet).
    package static func recordSuffix(_ key: RecordKey) -> String {
        let kind =
            switch key.id {
            case .uuid: "u"
            case .string: "s"
            case .int: "i"
            }
        return key.entity + "\u{1F}" + kind + key.id.description
    }

    static func serverVersionKey(_ key: RecordKey) -> String { serverVersionPrefix + recordSuffix(key) }

    package static func serverVersion(_ key: RecordKey, in transaction: any StorageReadTransaction) throws -> Int64? {
        guard let bytes = try transaction.metadata(serverVersionKey(key)) else { return nil }
        var reader = BinaryReader(bytes)
        return try reader.signed()
    }

    package static func setServerVersion(_ key: RecordKey, _ version: Int64?, in writer: any StorageWriteTransaction)
        throws
    {
        var bytes = BinaryWriter()
        if let version { bytes.signed(version) }
        try writer.setMetadata(serverVersionKey(key), version == nil ? nil : bytes.bytes)
    }

    package static func clock(in transaction: any StorageReadTransaction) throws -> OutboxTimestamp? {
        try State.read(transaction).clock
    }

    /// Moves the local clock past timestamps seen from elsewhere (the receive rule of a hybrid clock).
    package static func observe(_ timestamps: some Sequence<OutboxTimestamp>, in writer: any StorageWriteTransaction)
        throws
    {
        guard let latest = timestamps.max() else { return }
        var state = try State.read(writer)
        if let local = state.clock, local >= latest { return }
        state.clock = latest
        try state.write(writer)
    }
}
