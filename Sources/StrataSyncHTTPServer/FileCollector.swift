import Logging
import ServiceLifecycle
import Strata
import StrataSyncServer

/// The service that runs ``StrataSyncServer/SyncServer/collectFiles(_:)`` beside the HTTP server:
/// once at start, then every `schedule.every`, until the server stops. A failed collection is
/// logged and tried again at the next turn; it never stops the server.
struct FileCollector: Service {
    let server: SyncServer
    let schedule: SyncFileCollection
    let logger: Logger

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await collect()
                try await Task.sleep(for: schedule.every)
            }
        }
    }

    private func collect() async {
        do {
            let collected = try await server.collectFiles(schedule)
            guard collected != FileStorage.Collected() else { return }
            logger.info(
                "collected files",
                metadata: [
                    "files": "\(collected.files)", "uploads": "\(collected.uploads)", "bytes": "\(collected.bytes)",
                ])
        } catch {
            logger.warning("collecting files failed; trying again at the next turn", metadata: ["error": "\(error)"])
        }
    }
}
