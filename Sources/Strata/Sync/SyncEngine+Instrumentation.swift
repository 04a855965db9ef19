import CoreMetrics
import Logging

/// Sync runs reported through the store's ``StoreInstrumentation``: counts, never values.
extension SyncEngine {
    func instrumentedPush() async throws -> (count: Int, rejected: Int) {
        do {
            let pushed = try await pushAll()
            let instrumentation = store.instrumentation
            instrumentation.counter("strata_sync_pushed_mutations_total", store: store.location?.scheme ?? "backend").increment(by: pushed.count)
            if pushed.count > 0 || pushed.rejected > 0 {
                instrumentation.logger.debug("sync push", metadata: [
                    "client": "\(store.sync?.clientID ?? "-")", "acknowledged": "\(pushed.count)", "rejected": "\(pushed.rejected)",
                ])
            }
            return pushed
        } catch {
            reportFailure(error, direction: "push")
            throw error
        }
    }

    func instrumentedPull() async throws -> (count: Int, conflicts: Int) {
        do {
            let pulled = try await pullAll()
            let instrumentation = store.instrumentation
            instrumentation.counter("strata_sync_pulled_changes_total", store: store.location?.scheme ?? "backend").increment(by: pulled.count)
            if pulled.count > 0 || pulled.conflicts > 0 {
                instrumentation.logger.debug("sync pull", metadata: [
                    "client": "\(store.sync?.clientID ?? "-")", "changes": "\(pulled.count)", "conflicts": "\(pulled.conflicts)",
                ])
            }
            return pulled
        } catch {
            reportFailure(error, direction: "pull")
            throw error
        }
    }

    private func reportFailure(_ error: any Error, direction: String) {
        let instrumentation = store.instrumentation
        instrumentation.counter("strata_sync_failures_total", store: store.location?.scheme ?? "backend", [("direction", direction)]).increment()
        let kind = (error as? SyncTransportError).map { "\($0.kind)" } ?? (error as? StrataError)?.code.rawValue ?? "\(type(of: error))"
        instrumentation.logger.warning("sync \(direction) failed", metadata: ["client": "\(store.sync?.clientID ?? "-")", "error": "\(kind)"])
    }
}
