/// When a server collects what uploads leave behind: unfinished uploads that received nothing for
/// `unfinishedFor`, and files no record refers to that were stored longer than `unreferencedFor`
/// ago (a client uploads a file before it pushes the record referring to it; the grace period is
/// that gap's allowance). `SyncHTTPServer` and `strata serve` run ``SyncServer/collectFiles(_:)``
/// at start and then every `every`; an app that mounts the routes itself calls it on its own
/// schedule.
public struct SyncFileCollection: Sendable, Equatable {
    /// How often to collect.
    public var every: Duration
    /// How long an unfinished upload may receive nothing before it is dropped.
    public var unfinishedFor: Duration
    /// How long a stored file no record refers to is kept.
    public var unreferencedFor: Duration

    /// A schedule; by default hourly, dropping uploads idle for a day and unreferenced files a day
    /// old.
    public init(
        every: Duration = .seconds(3_600), unfinishedFor: Duration = .seconds(86_400),
        unreferencedFor: Duration = .seconds(86_400)
    ) {
        self.every = max(every, .seconds(1))
        self.unfinishedFor = max(unfinishedFor, .zero)
        self.unreferencedFor = max(unreferencedFor, .zero)
    }
}
