import CoreMetrics
import Logging
import Metrics

/// How a store reports what it does: a swift-log `Logger` and a swift-metrics factory, given at
/// open (``Store/open(_:schema:options:)``).
///
/// Logged: opens and migrations (`info`/`notice`), saves slower than `slowSave` (`warning`),
/// merge conflicts (`info`), sync pushes and pulls (`debug`; failures `warning`). Entity names,
/// counts, durations, history tokens and client IDs are logged — never values.
///
/// Metrics: `strata_saves_total` (dimension `outcome`: `committed`, `failed`),
/// `strata_save_duration` (a timer), `strata_merge_conflicts_total` (`policy`),
/// `strata_sync_pushed_mutations_total`, `strata_sync_pulled_changes_total`,
/// `strata_sync_failures_total` (`direction`), `strata_observation_deliveries_total` (`kind`:
/// `query`, `changes`); each with a `store` dimension (the backend's scheme).
public struct StoreInstrumentation: Sendable {
    /// Where the store logs.
    public var logger: Logger
    /// Where metrics go; `nil` for the process's bootstrapped `MetricsSystem`.
    public var metrics: (any MetricsFactory)?
    /// Saves that take longer are logged as warnings.
    public var slowSave: Duration

    /// - Parameters:
    ///   - logger: Where the store logs; by default nowhere (swift-log's default handler
    ///     would print to standard output in every process, tools included): pass the service's.
    ///   - metrics: The metrics factory; by default the process's bootstrapped `MetricsSystem`.
    ///   - slowSave: Saves that take longer are logged as warnings.
    public init(
        logger: Logger = Logger(label: "strata", factory: { _ in SwiftLogNoOpLogHandler() }),
        metrics: (any MetricsFactory)? = nil,
        slowSave: Duration = .milliseconds(500)
    ) {
        self.logger = logger
        self.metrics = metrics
        self.slowSave = slowSave
    }

    /// Logs nothing; metrics go to the process's bootstrapped `MetricsSystem` (by default none).
    public static let standard = StoreInstrumentation()

    package func counter(_ label: String, store: String, _ dimensions: [(String, String)] = []) -> Counter {
        let all = [("store", store)] + dimensions
        if let metrics { return Counter(label: label, dimensions: all, factory: metrics) }
        return Counter(label: label, dimensions: all)
    }

    package func timer(_ label: String, store: String) -> CoreMetrics.Timer {
        if let metrics { return CoreMetrics.Timer(label: label, dimensions: [("store", store)], factory: metrics) }
        return CoreMetrics.Timer(label: label, dimensions: [("store", store)])
    }
}

/// An error that names its kind for logs (a sync transport error's) without its message.
package protocol LoggedErrorKind: Error {
    /// The kind, never a value.
    var loggedKind: String { get }
}

extension StoreInstrumentation {
    /// What logs say of a failure: its kind (a transport kind, a `StrataError.Code`, or the
    /// error's type), never its message, which may hold values.
    package static func kind(of error: any Error) -> String {
        (error as? any LoggedErrorKind)?.loggedKind ?? (error as? StrataError)?.code.rawValue ?? "\(type(of: error))"
    }
}

extension Store {
    /// The `store` dimension of this store's metrics: its backend's scheme, never a path.
    package var metricsName: String { location?.scheme ?? "backend" }
    /// How logs name this store.
    package var logName: String { location?.description ?? "a backend" }
}
