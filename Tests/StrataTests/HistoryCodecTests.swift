import Foundation
@testable import Strata
import Testing

@Suite struct HistoryCodecTests {
    let entry = HistoryTransaction(
        token: HistoryToken(Int64.max - 1), timestamp: Date(timeIntervalSince1970: 1_767_225_600.25), author: "ä author",
        contextName: nil,
        changes: [
            HistoryChange(kind: .insert, entity: "Trip", id: .uuid(UUID()), changedProperties: ["name", "start"], version: 1),
            HistoryChange(kind: .update, entity: "Tag", id: .string("🏖"), changedProperties: ["trips"], version: 7),
            HistoryChange(kind: .delete, entity: "Agency", id: .int(-3), changedProperties: [], version: Int64.max),
        ])

    @Test func roundTrips() throws {
        #expect(try HistoryCodec.decode(HistoryCodec.encode(entry)) == entry)
    }

    @Test func everyTruncationIsATypedErrorNotACrash() throws {
        let bytes = HistoryCodec.encode(entry)
        for length in 0..<bytes.count {
            #expect(throws: StrataError.self) { try HistoryCodec.decode(Array(bytes[0..<length])) }
        }
    }

    @Test func anUnknownFormatVersionIsRejected() throws {
        var bytes = HistoryCodec.encode(entry)
        bytes[0] = 99
        let error = try #require(throws: StrataError.self) { try HistoryCodec.decode(bytes) }
        #expect(error.code == .incompatibleStore)
    }
}
