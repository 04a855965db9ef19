// swift-format-ignore-file
// (README and DocC blocks are held here verbatim: ReadmeSampleTests compares them.)
// StrataSync.docc/Subscriptions.md's sample, verbatim.
import Strata
import StrataSync

func subscribeToMyTrips(_ engine: SyncEngine, me: String) async throws {
    let mine = try SyncSubscription(
        "my-trips", Person.self, where: "email == $email", parameters: ["email": .string(me)],
        including: ["trips"], timeToLive: .seconds(30 * 24 * 3600))
    try await engine.subscribe(mine)        // stored now; its records arrive with the next sync
    try await engine.syncNow()
    for state in try await engine.subscriptions() ?? [] {
        print(state.subscription.name, state.isReady ? "ready" : "downloading", state.expires ?? "no end")
    }
    try await engine.unsubscribe("my-trips") // what nothing else covers leaves the store, no deletes sent
}

// OfflineFirstSync.md's status sample, verbatim.
func showSync(_ engine: SyncEngine) async {
    for await status in await engine.statusUpdates() {
        switch status.state {
        case .idle: print("up to date")
        case .syncing:
            if let download = status.download, let fraction = download.fractionCompleted {
                print("downloading", Int(fraction * 100), "%,", download.bytes, "bytes")
            } else if let upload = status.upload {
                print("uploading", upload.completed, "of", upload.expected ?? 0)
            }
        case .offline(let retryAt): print("offline; next try", retryAt.map { "\($0)" } ?? "when asked")
        case .needsSignIn: print("sign in again")
        case .error(let message, _): print("sync failed:", message)
        }
    }
}
