import Foundation
import Strata

/// Messages to bytes and back in the format their `version` names: format 1 is the messages'
/// `Codable` form as JSON (kept for clients built before format 2), format 2 is
/// ``SyncWireFormat2``. Both ends of every transport go through these, so they cannot drift.
extension SyncWire {
    /// The message formats this build reads and writes; a server answers each request in the
    /// request's format.
    public static let supportedVersions = 1...2

    /// Why a body could not be read as a message, as an error for the server to answer 400 with.
    package struct Unreadable: Error, CustomStringConvertible {
        package var description: String
    }

    /// A push in its own format (`request.version`); an answer in the format `version` (the request's).
    package static func encode(_ request: PushRequest) throws -> [UInt8] {
        request.version == SyncWireFormat2.version ? try SyncWireFormat2.encode(request) : try encodeJSON(request)
    }

    package static func encode(_ response: PushResponse, version: Int) throws -> [UInt8] {
        var response = response
        response.version = version
        return version == SyncWireFormat2.version ? try SyncWireFormat2.encode(response) : try encodeJSON(response)
    }

    package static func encode(_ response: PullResponse, version: Int) throws -> [UInt8] {
        var response = response
        response.version = version
        return version == SyncWireFormat2.version ? try SyncWireFormat2.encode(response) : try encodeJSON(response)
    }

    package static func encode(_ response: SnapshotResponse, version: Int) throws -> [UInt8] {
        var response = response
        response.version = version
        return version == SyncWireFormat2.version ? try SyncWireFormat2.encode(response) : try encodeJSON(response)
    }

    /// The `version` member of a JSON object body, without decoding the rest: members before it
    /// are skipped, and reading stops there (this build writes it first).
    package static func bodyVersion(_ body: [UInt8]) throws -> Int? {
        var reader = JSONReader(body)
        do {
            try reader.expect(UInt8(ascii: "{"))
            guard reader.peek() != UInt8(ascii: "}") else { return nil }
            while true {
                let key = try reader.readString()
                try reader.expect(UInt8(ascii: ":"))
                if key == "version" {
                    return try reader.readNull() ? nil : Int(truncatingIfNeeded: try reader.readInt())
                }
                try reader.skipValue()
                guard reader.peek() == UInt8(ascii: ",") else {
                    try reader.expect(UInt8(ascii: "}"))
                    return nil
                }
                try reader.expect(UInt8(ascii: ","))
            }
        } catch let malformed as JSONReader.Malformed {
            throw Unreadable(description: "the body is not a JSON object (\(malformed))")
        }
    }

    /// A push body of a supported format.
    package static func decodePushRequest(_ body: [UInt8], version: Int) throws -> PushRequest {
        try decoding("a push request") {
            version == SyncWireFormat2.version
                ? try SyncWireFormat2.decodePushRequest(body)
                : try JSONDecoder().decode(PushRequest.self, from: Data(body))
        }
    }

    package static func decodePushResponse(_ body: [UInt8], version: Int) throws -> PushResponse {
        try decoding("a push answer") {
            version == SyncWireFormat2.version
                ? try SyncWireFormat2.decodePushResponse(body)
                : try JSONDecoder().decode(PushResponse.self, from: Data(body))
        }
    }

    package static func decodePullResponse(_ body: [UInt8], version: Int) throws -> PullResponse {
        try decoding("a pull answer") {
            version == SyncWireFormat2.version
                ? try SyncWireFormat2.decodePullResponse(body)
                : try JSONDecoder().decode(PullResponse.self, from: Data(body))
        }
    }

    package static func decodeSnapshotResponse(_ body: [UInt8], version: Int) throws -> SnapshotResponse {
        try decoding("a snapshot answer") {
            version == SyncWireFormat2.version
                ? try SyncWireFormat2.decodeSnapshotResponse(body)
                : try JSONDecoder().decode(SnapshotResponse.self, from: Data(body))
        }
    }

    private static func decoding<T>(_ what: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let malformed as JSONReader.Malformed {
            throw Unreadable(description: "the body is not \(what): \(malformed)")
        } catch let error as StrataError {
            throw Unreadable(description: "the body is not \(what): \(error.message)")
        } catch {
            throw Unreadable(description: "the body is not \(what)")
        }
    }

    private static func encodeJSON<T: Encodable>(_ message: T) throws -> [UInt8] {
        do {
            return Array(try JSONEncoder().encode(message))
        } catch {
            throw StrataError(.storageFailure, underlying: error, "a sync message could not be encoded: \(error)")
        }
    }
}
