import CoreMetrics
import Logging
import Strata

/// Sync runs reported through the store's ``StoreInstrumentation``: counts, never values.
extension SyncEngine {
    func instrumentedPush() async throws -> (count: Int, rejected: Int) {
        let pushed = try await reported("push", counter: "strata_sync_pushed_mutations_total", count: { $0.count }) {
            try await pushAll()
        }
        if pushed.count > 0 || pushed.rejected > 0 {
            store.instrumentation.logger.debug(
                "sync push",
                metadata: [
                    "client": "\(store.sync?.clientID ?? "-")", "acknowledged": "\(pushed.count)",
                    "rejected": "\(pushed.rejected)",
                ])
        }
        return pushed
    }

    func instrumentedPull() async throws -> (count: Int, conflicts: Int) {
        let pulled = try await reported("pull", counter: "strata_sync_pulled_changes_total", count: { $0.count }) {
            try await pullAll()
        }
        if pulled.count > 0 || pulled.conflicts > 0 {
            store.instrumentation.logger.debug(
                "sync pull",
                metadata: [
                    "client": "\(store.sync?.clientID ?? "-")", "changes": "\(pulled.count)",
                    "conflicts": "\(pulled.conflicts)",
                ])
        }
        return pulled
    }

    /// Runs one direction, counting what it moved or reporting its failure.
    private func reported<R>(
        _ direction: String, counter: String, count: (R) -> Int, _ run: () async throws -> R
    ) async throws -> R {
        do {
            let result = try await run()
            store.instrumentation.counter(counter, store: store.metricsName).increment(by: count(result))
            return result
        } catch {
            reportFailure(error, direction: direction)
            throw error
        }
    }

    private func reportFailure(_ error: any Error, direction: String) {
        let instrumentation = store.instrumentation
        instrumentation.counter("strata_sync_failures_total", store: store.metricsName, [("direction", direction)])
            .increment()
        instrumentation.logger.warning(
            "sync \(direction) failed",
            metadata: [
                "client": "\(store.sync?.clientID ?? "-")", "error": "\(StoreInstrumentation.kind(of: error))",
            ])
    }
}
