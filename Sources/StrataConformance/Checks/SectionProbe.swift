import Foundation
import Strata
import Synchronization

/// Consumes observed sections in a task of its own and keeps every delivered value, as
/// ``ObservationProbe`` does for flat results.
final class SectionProbe<Model: PersistentModel & Equatable, Key: Hashable & Comparable & Sendable>: Sendable {
    private final class Inbox: Sendable {
        let received = Mutex<[SectionedQueryResults<Model, Key>]>([])
        let failure = Mutex<(any Error)?>(nil)
    }

    private let inbox = Inbox()
    private let task: Task<Void, Never>

    init(_ observation: SectionedObservation<Model, Key>) {
        let inbox = inbox
        task = Task {
            do {
                for try await value in observation { inbox.received.withLock { $0.append(value) } }
            } catch {
                inbox.failure.withLock { $0 = error }
            }
        }
    }

    var values: [SectionedQueryResults<Model, Key>] { inbox.received.withLock { $0 } }

    /// Waits until the last value's sections equal `expected` (a fresh sectioned fetch).
    func waitUntilLatest(
        equals expected: SectionedResults<Model, Key>, _ what: String, fileID: String = #fileID,
        filePath: String = #filePath, line: Int = #line
    ) async throws {
        try await eventually(
            what,
            {
                if let error = self.inbox.failure.withLock({ $0 }) { throw error }
                return self.values.last.map { Self.same($0.results, expected) } ?? false
            }, fileID: fileID, filePath: filePath, line: line)
    }

    /// Checks that each value is the one before it with its diff applied (the first, the empty
    /// value with its diff applied).
    func expectReplays(
        _ what: String, fileID: String = #fileID, filePath: String = #filePath, line: Int = #line
    ) throws {
        var previous = try SectionedResults<Model, Key>([], by: SectionKey { _ in nil })
        for (index, value) in values.enumerated() {
            let replayed = value.diff.apply(to: previous, new: value.results)
            try expect(
                Self.same(replayed, value.results), "value \(index) of \(values.count) replays its diff (\(what))",
                fileID: fileID, filePath: filePath, line: line)
            previous = value.results
        }
    }

    static func same(_ a: SectionedResults<Model, Key>, _ b: SectionedResults<Model, Key>) -> Bool {
        a.sections.map(\.key) == b.sections.map(\.key) && a.sections.map(\.models) == b.sections.map(\.models)
    }

    deinit { task.cancel() }
}
