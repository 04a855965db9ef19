import Strata

// The messages' `Codable` forms are the wire's, in the format each carries: a message of
// `version` 2 encodes (through `JSONEncoder` or any encoder) to format 2's JSON, which a server
// accepts as a body, and one of `version` 1 to format 1's; decoding reads either, by the
// `version` member. So a client that builds bodies itself with `JSONEncoder` speaks what the
// server reads.

extension PushRequest {
    private enum CodingKeys: String, CodingKey { case version, clientID, mutations, schemaVersion }

    public init(from decoder: any Decoder) throws {
        self = try WireCodable.decode(decoder, CodingKeys.self, format2: SyncWireFormat2.decodePushRequest) { keys in
            try PushRequest(
                clientID: keys.decode(String.self, forKey: .clientID),
                mutations: keys.decode([SyncMutation].self, forKey: .mutations),
                schemaVersion: keys.decodeIfPresent(String.self, forKey: .schemaVersion))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        try WireCodable.encode(self, to: encoder, CodingKeys.self, format2: SyncWireFormat2.encode) { keys in
            try keys.encode(version, forKey: .version)
            try keys.encode(clientID, forKey: .clientID)
            try keys.encode(mutations, forKey: .mutations)
            try keys.encodeIfPresent(schemaVersion, forKey: .schemaVersion)
        }
    }
}

extension PushResponse {
    private enum CodingKeys: String, CodingKey { case version, results }

    public init(from decoder: any Decoder) throws {
        self = try WireCodable.decode(decoder, CodingKeys.self, format2: SyncWireFormat2.decodePushResponse) { keys in
            PushResponse(results: try keys.decode([MutationResult].self, forKey: .results))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        try WireCodable.encode(self, to: encoder, CodingKeys.self, format2: SyncWireFormat2.encode) { keys in
            try keys.encode(version, forKey: .version)
            try keys.encode(results, forKey: .results)
        }
    }
}

extension PullResponse {
    private enum CodingKeys: String, CodingKey { case version, changes, cursor, hasMore }

    public init(from decoder: any Decoder) throws {
        self = try WireCodable.decode(decoder, CodingKeys.self, format2: SyncWireFormat2.decodePullResponse) { keys in
            try PullResponse(
                changes: keys.decode([RemoteChange].self, forKey: .changes),
                cursor: keys.decodeIfPresent(SyncCursor.self, forKey: .cursor),
                hasMore: keys.decode(Bool.self, forKey: .hasMore))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        try WireCodable.encode(self, to: encoder, CodingKeys.self, format2: SyncWireFormat2.encode) { keys in
            try keys.encode(version, forKey: .version)
            try keys.encode(changes, forKey: .changes)
            try keys.encodeIfPresent(cursor, forKey: .cursor)
            try keys.encode(hasMore, forKey: .hasMore)
        }
    }
}

extension SnapshotResponse {
    private enum CodingKeys: String, CodingKey { case version, entity, records, through, next, cursor, expected }

    public init(from decoder: any Decoder) throws {
        self = try WireCodable.decode(decoder, CodingKeys.self, format2: SyncWireFormat2.decodeSnapshotResponse) {
            keys in
            var page = try SnapshotResponse(
                entity: keys.decode(String.self, forKey: .entity),
                records: keys.decode([RemoteChange].self, forKey: .records),
                through: keys.decodeIfPresent(RecordID.self, forKey: .through),
                next: keys.decodeIfPresent(SnapshotPosition.self, forKey: .next),
                cursor: keys.decodeIfPresent(SyncCursor.self, forKey: .cursor))
            page.expected = try keys.decodeIfPresent(Int.self, forKey: .expected)
            return page
        }
    }

    public func encode(to encoder: any Encoder) throws {
        try WireCodable.encode(self, to: encoder, CodingKeys.self, format2: SyncWireFormat2.encode) { keys in
            try keys.encode(version, forKey: .version)
            try keys.encode(entity, forKey: .entity)
            try keys.encode(records, forKey: .records)
            try keys.encodeIfPresent(through, forKey: .through)
            try keys.encodeIfPresent(next, forKey: .next)
            try keys.encodeIfPresent(cursor, forKey: .cursor)
            try keys.encodeIfPresent(expected, forKey: .expected)
        }
    }
}
