import Foundation
import Testing

@testable import Strata

@Suite struct HistoryCodecTests {
    let entry = HistoryTransaction(
        token: HistoryToken(Int64.max - 1), timestamp: Date(timeIntervalSince1970: 1_767_225_600.25),
        author: "ä author",
        contextName: nil,
        changes: [
            HistoryChange(
                kind: .insert, entity: "Trip", id: .uuid(UUID()), changedProperties: ["name", "start"], version: 1),
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
        #expect(error.code == .corruptStore)
    }

    /// An entry of another format byte (the unreleased inline-names form among them) is damage.
    @Test func anotherFormatByteIsDamage() throws {
        for format: UInt8 in [0, 1, 3] {
            var bytes = HistoryCodec.encode(entry)
            bytes[0] = format
            let error = try #require(throws: StrataError.self) { try HistoryCodec.decode(bytes) }
            #expect(error.code == .corruptStore, "format \(format)")
        }
    }

    /// Names repeat once per entry, not once per change: ten thousand inserts of one entity with
    /// the same properties cost their IDs and little else.
    @Test func repeatedNamesAreWrittenOnce() throws {
        let names = (0..<10).map { "property\($0)" }
        let many = HistoryTransaction(
            token: HistoryToken(1), timestamp: Date(timeIntervalSince1970: 0), author: nil, contextName: nil,
            changes: (0..<10_000).map {
                HistoryChange(kind: .insert, entity: "Item", id: .int(Int64($0)), changedProperties: names, version: 1)
            })
        let bytes = HistoryCodec.encode(many)
        #expect(bytes.count < 10_000 * 8)
        #expect(try HistoryCodec.decode(bytes) == many)
    }

    /// An index past a table is a typed error.
    @Test func anIndexOutOfItsTableIsATypedError() throws {
        var bytes = HistoryCodec.encode(entry)
        // The last change's name-list index is its last byte.
        bytes[bytes.count - 1] = 0x7F
        let error = try #require(throws: StrataError.self) { try HistoryCodec.decode(bytes) }
        #expect(error.code == .corruptStore)
    }
}
