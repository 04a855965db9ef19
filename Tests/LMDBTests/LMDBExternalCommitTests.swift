import Foundation
import Strata
import StrataConformance
import Testing

@testable import StrataLMDB

/// How a store learns of another process's commits: ``LMDBBackend/externalCommits`` asks whether
/// the environment moved, and the observers' history read that follows a yes must find the commit.
@Suite("LMDB: other processes' commits")
struct LMDBExternalCommitTests {
    /// A committing writer writes (and syncs) its meta page before it publishes the transaction ID
    /// new readers begin at. A poll that read the meta page in that window said "committed", the
    /// read after it found nothing new, and the next poll said "nothing since": the commit never
    /// reached the store's observers (found in `make test` as a change stream that waited for good).
    /// Here another process commits without pause while this one polls as fast as it can: every yes
    /// must be followed by a read that sees a newer history token.
    @Test(.enabled(if: childMode == nil)) func aPollsYesIsSeenByTheReadBegunAfterIt() async throws {
        try await withTemporaryDirectory { path in
            let backend = try await LMDBBackend.open(path: path, schema: try TravelDomain.schema())
            let polling = try #require(backend.externalCommits)
            let child = try await startChild("writer", path)
            defer {
                child.send(SIGKILL)
                _ = child.waitUntilExit()
            }
            _ = try await polling.mayHaveCommitted()
            var seen = try await backend.read { try HistoryLog.lastToken(in: $0) }
            var (answers, unseen) = (0, 0)
            let deadline = ContinuousClock.now + .seconds(60)
            while answers < 150, ContinuousClock.now < deadline, child.isRunning {
                guard try await polling.mayHaveCommitted() else { continue }
                answers += 1
                let now = try await backend.read { try HistoryLog.lastToken(in: $0) }
                if now == seen { unseen += 1 }
                seen = now
            }
            print("LMDB poll: \(answers) yes answers while another process committed, \(unseen) not yet readable")
            #expect(answers >= 150, "the other process committed throughout")
            #expect(unseen == 0, "a yes the read after it could not see: a commit observers would miss")
            try await backend.close()
        }
    }
}
