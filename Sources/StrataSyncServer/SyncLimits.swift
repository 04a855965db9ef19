import Foundation
import Strata
import Synchronization

/// What a ``SyncEndpoint`` accepts: bounded bodies, batches, pages and waits, and a request rate
/// per identity.
public struct SyncLimits: Sendable {
    /// The largest request body accepted (413 beyond).
    public var maximumBodyBytes: Int
    /// The most mutations one push may carry (413 beyond: the client splits the batch).
    public var maximumMutationsPerPush: Int
    /// The largest page of a pull or snapshot (a larger `limit` is lowered to it).
    public var maximumPageSize: Int
    /// The longest a pull may wait (a longer `wait` is lowered to it).
    public var maximumWait: Duration
    /// Requests per second per identity, after a burst (429 with `Retry-After` beyond); `nil`
    /// for no limit.
    public var rate: SyncRateLimit?
    /// How long an HTTP connection may sit with no request under way — never sending one, or
    /// sending its head too slowly, or idle between requests — before the server closes it; `nil`
    /// for never. A long poll is a request under way, so it is not cut.
    public var idleTimeout: Duration?
    /// Bytes of files each identity may keep on the server, finished and unfinished.
    public var files: SyncFileQuota
    /// When the server collects unfinished uploads and unreferenced files; `nil` for never (an
    /// app then calls ``SyncServer/collectFiles(_:)`` itself).
    public var fileCollection: SyncFileCollection?

    /// Limits; every one has a default.
    public init(
        maximumBodyBytes: Int = 8 << 20, maximumMutationsPerPush: Int = 1_000, maximumPageSize: Int = 1_000,
        maximumWait: Duration = .seconds(30), rate: SyncRateLimit? = SyncRateLimit(),
        idleTimeout: Duration? = .seconds(60), files: SyncFileQuota = SyncFileQuota(),
        fileCollection: SyncFileCollection? = SyncFileCollection()
    ) {
        self.files = files
        self.fileCollection = fileCollection
        self.idleTimeout = idleTimeout
        self.maximumBodyBytes = maximumBodyBytes
        self.maximumMutationsPerPush = maximumMutationsPerPush
        self.maximumPageSize = maximumPageSize
        self.maximumWait = maximumWait
        self.rate = rate
    }
}

/// A token bucket per identity: `burst` requests at once, refilled at `perSecond`.
public struct SyncRateLimit: Sendable {
    /// Requests per second allowed per identity, on average.
    public var perSecond: Double
    /// Requests an identity may make at once before the rate applies.
    public var burst: Double
    /// Seconds on a monotonic clock; injectable so tests advance time by hand.
    public var now: @Sendable () -> Double

    /// A token bucket per identity.
    public init(
        perSecond: Double = 50, burst: Double = 100,
        now: @escaping @Sendable () -> Double = SyncRateLimit.monotonicSeconds
    ) {
        self.perSecond = max(perSecond, 0.001)
        self.burst = max(burst, 1)
        self.now = now
    }

    /// Seconds on a monotonic clock.
    public static let monotonicSeconds: @Sendable () -> Double = {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    private static let start = ContinuousClock.now
}

/// The buckets of a ``SyncRateLimit``.
final class RateLimiter: Sendable {
    private let limit: SyncRateLimit
    private let buckets = Mutex<[String: (tokens: Double, at: Double)]>([:])

    init(_ limit: SyncRateLimit) { self.limit = limit }

    /// Takes a token for `identity`; returns how long to wait when there is none.
    func take(_ identity: String) -> Duration? {
        let now = limit.now()
        return buckets.withLock { buckets -> Duration? in
            var bucket = buckets[identity] ?? (limit.burst, now)
            bucket.tokens = min(limit.burst, bucket.tokens + (now - bucket.at) * limit.perSecond)
            bucket.at = now
            defer {
                // Buckets full again carry no information: forget them, so the table stays small.
                if bucket.tokens >= limit.burst { buckets[identity] = nil } else { buckets[identity] = bucket }
            }
            guard bucket.tokens >= 1 else {
                return .milliseconds(Int64(((1 - bucket.tokens) / limit.perSecond * 1000).rounded(.up)))
            }
            bucket.tokens -= 1
            return nil
        }
    }
}
