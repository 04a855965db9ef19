import Foundation
import Synchronization

/// Where hubs come from, and the commits a hub did not see made: other handles onto the same data
/// in this process wake it directly; other processes are polled for while it has observers.
extension CommitHub {
    private static let hubs = Mutex<[ObjectIdentifier: WeakHub]>([:])
    /// Hubs by the shared identity of their backend: handles onto the same data in this process.
    private static let peers = Mutex<[String: [WeakHub]]>([:])

    private struct WeakHub: Sendable {
        weak var hub: CommitHub?
    }

    /// The hub of `backend`: shared by every store over the same backend object.
    static func hub(for backend: any StorageBackend) -> CommitHub {
        guard type(of: backend) is AnyClass else { return CommitHub(backend: backend) }
        let key = ObjectIdentifier(backend as AnyObject)
        let (hub, created) = hubs.withLock { table -> (CommitHub, Bool) in
            if let hub = table[key]?.hub { return (hub, false) }
            let hub = CommitHub(backend: backend)
            table = table.filter { $0.value.hub != nil }
            table[key] = WeakHub(hub: hub)
            return (hub, true)
        }
        if created, let identity = backend.sharedIdentity {
            peers.withLock { table in
                table[identity, default: []].removeAll { $0.hub == nil }
                table[identity, default: []].append(WeakHub(hub: hub))
            }
        }
        return hub
    }

    /// A commit made through this hub's backend (nil: something else changed history, a purge):
    /// its observers and those of every other handle onto the same data in this process.
    package func committedHere(_ commit: Commit?) {
        committed(commit)
        guard let identity = backend.sharedIdentity else { return }
        let others = Self.peers.withLock { table in (table[identity] ?? []).compactMap(\.hub).filter { $0 !== self } }
        for hub in others { hub.committed(commit) }
    }

    /// Asks the backend every interval whether another process committed, until cancelled (the
    /// last observer left). The first answer only records the state; the history read after it
    /// catches up whatever committed before.
    func poll(_ polling: ExternalCommitPolling) -> Task<Void, Never> {
        Task { [weak self] in
            do {
                _ = try await polling.mayHaveCommitted()
                self?.committed()
                while !Task.isCancelled {
                    try await Task.sleep(for: polling.interval)
                    if try await polling.mayHaveCommitted() { self?.committed() }
                }
            } catch {
                // Cancelled, or the backend cannot answer (closed): one last read reports it.
                if !Task.isCancelled { self?.committed() }
            }
        }
    }

}
