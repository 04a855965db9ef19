import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import StrataStorage
import Synchronization

/// PostgreSQL, for service layers that run on several machines: one shared store on a real
/// database server, with the engine's delete rules, merge policies and history on top.
///
/// - `postgres://user[:password]@host[:port]/database[?schema=NAME]`: each store is one
///   PostgreSQL schema (default `strata`), so several stores share a database.
/// - **Writes serialise across every process and machine**: a write first takes the store's
///   advisory lock, reads under it, and writes in one atomic statement (or, when it must read its
///   own writes, in `BEGIN … COMMIT`), then releases the lock after the commit. So history tokens
///   follow commit order with no gaps, and the engine's uniqueness checks hold across machines.
/// - **Reads** run in `REPEATABLE READ READ ONLY` transactions: one snapshot per read.
/// - The SPI's synchronous closures run on a dedicated thread pool and block only it — never
///   Swift's cooperative threads or a NIO event loop. Connections come from a `PostgresClient` pool.
/// - **Observation**: every write notifies the store's channel inside its transaction; a
///   dedicated `LISTEN` connection, opened while a store has observers, turns notifications (and
///   every reconnect) into history reads, so observers on every machine see every commit.
/// - Every fetch plan is answered in SQL except case- and diacritic-insensitive text, which the
///   engine evaluates with its own folding.
public final class PostgresBackend: StorageBackend {
    /// How the store connects.
    public struct Options: Sendable {
        /// Most connections the pool opens (reads run concurrently, writes one at a time).
        public var maximumConnections: Int = 8
        /// How long opening a connection may take before it fails.
        public var connectTimeout: Duration = .seconds(10)
        /// While a store has observers, how often the engine asks whether a notification came.
        public var notificationPollInterval: Duration = .milliseconds(20)

        /// Whether opening a namespace that holds no store creates one (`false`: it is
        /// `StrataError.Code.notAStore`, for tools that must not create what they inspect).
        public var createIfMissing: Bool = true

        /// Options; every one has a default.
        public init(
            maximumConnections: Int = 8, connectTimeout: Duration = .seconds(10),
            notificationPollInterval: Duration = .milliseconds(20),
            createIfMissing: Bool = true
        ) {
            self.maximumConnections = maximumConnections
            self.connectTimeout = connectTimeout
            self.notificationPollInterval = notificationPollInterval
            self.createIfMissing = createIfMissing
        }
    }

    public let schema: Schema
    public let capabilities = PostgresFetchSQL.capabilities
    /// Where the store lives: the server, the database and the schema.
    public let location: PostgresLocation
    let options: Options
    let layout: PostgresLayout
    let client: PostgresClient
    private let clientRun: Task<Void, Never>
    let logger: Logger
    /// Statements sent by this handle: one round trip each.
    let roundTrips = RoundTripCounter()
    let isClosed = Atomic<Bool>(false)
    let writerTurns = SerialTurns()
    /// Metadata keys this handle's writes read (the history counter and the like): fetched with
    /// the lock, so a save does not ask for them one by one.
    private let hotKeys = Mutex<Set<String>>([])
    let listener: PostgresListener
    /// The advisory lock key of this store (a hash of its database and schema).
    let lockKey: Int64
    /// The notification channel of this store.
    let channel: String
    /// The `application_name` of this handle's presence connection, shared by every handle this
    /// process opens onto the store (see ``holderElsewhere()``).
    let applicationName: String
    /// The connection that shows this handle in `pg_stat_activity` while it is open; closed, and
    /// waited for, by ``close()``.
    private let presence: PostgresPresence

    public var sharedIdentity: String? {
        "postgres://\(location.host):\(location.port)/\(location.database)?schema=\(location.schemaName)"
    }

    public var externalCommits: ExternalCommitPolling? {
        let listener = listener
        return ExternalCommitPolling(interval: options.notificationPollInterval) {
            listener.mayHaveCommitted()
        }
    }

    /// The thread pool every PostgreSQL store runs its synchronous closures on.
    static let threads: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 16)
        pool.start()
        return pool
    }()

    private init(
        schema: Schema, location: PostgresLocation, options: Options, client: PostgresClient, logger: Logger,
        presence: PostgresPresence, applicationName: String
    ) {
        self.presence = presence
        self.applicationName = applicationName
        self.schema = schema
        self.location = location
        self.options = options
        self.client = client
        self.logger = logger
        self.layout = PostgresLayout(schema: schema, namespace: location.schemaName)
        let identity = "\(location.database)/\(location.schemaName)"
        self.lockKey = Int64(bitPattern: PostgresLayout.fnv("strata.lock:" + identity))
        self.channel = "strata_" + PostgresLayout.hash(identity)
        self.clientRun = Task { await client.run() }
        self.listener = PostgresListener(
            configuration: Self.connectionConfiguration(location, options), channel: channel, logger: logger)
    }

    /// Registers the `postgres:` and `postgresql:` schemes.
    public static func register(in registry: BackendRegistry = .shared, options: Options = Options()) {
        for scheme in ["postgres", "postgresql"] {
            registry.register(
                BackendDescriptor(scheme: scheme) { location in
                    try await storedDescription(url: location.description, options: options)
                } open: { location, schema in
                    try await PostgresBackend.open(url: location.description, schema: schema, options: options)
                })
        }
    }

    /// Opens (or creates, in an empty or missing schema) the store at `url`.
    public static func open(url: String, schema: Schema, options: Options = Options()) async throws -> PostgresBackend {
        try await open(location: try PostgresLocation(url: url), schema: schema, options: options)
    }

    /// Opens (or creates) the store at `location`. An unreachable server, a refused login, a
    /// missing database or a schema holding another application's tables are typed errors.
    public static func open(location: PostgresLocation, schema: Schema, options: Options = Options()) async throws
        -> PostgresBackend
    {
        var logger = Logger(label: "strata.postgres")
        // postgres-nio warns when a lease comes before the pool's run task has started; the
        // lease simply waits for it, so only errors are worth a line.
        logger.logLevel = .error
        // One direct connection first, so a refused connection, login or database fails now
        // with its own error rather than as a pool that keeps retrying. It stays open while the
        // handle is, named for the store: how another process sees that this one has the store
        // open (``holderElsewhere()``). The pool's connections are not named: one the pool was
        // still establishing when its handle closed can outlive the handle, and must not count.
        let applicationName = applicationPrefix(location) + processTag
        var presenceConfiguration = connectionConfiguration(location, options)
        presenceConfiguration.options.additionalStartupParameters = [("application_name", applicationName)]
        let presence: PostgresPresence
        do {
            presence = PostgresPresence(
                try await PostgresConnection.connect(configuration: presenceConfiguration, id: 0, logger: logger))
        } catch {
            throw PostgresErrors.map(error)
        }
        var configuration = PostgresClient.Configuration(
            host: location.host, port: location.port, username: location.user, password: location.password,
            database: location.database, tls: .disable)
        configuration.options.maximumConnections = max(2, options.maximumConnections)
        configuration.options.connectTimeout = options.connectTimeout
        configuration.options.keepAliveBehavior = nil
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        let backend = PostgresBackend(
            schema: schema, location: location, options: options, client: client, logger: logger,
            presence: presence, applicationName: applicationName)
        do {
            try await backend.prepareStore()
        } catch {
            try? await backend.close()
            throw error
        }
        return backend
    }

    static func connectionConfiguration(_ location: PostgresLocation, _ options: Options)
        -> PostgresConnection.Configuration
    {
        var configuration = PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.user, password: location.password,
            database: location.database, tls: .disable)
        configuration.options.connectTimeout = TimeAmount.nanoseconds(
            Int64(options.connectTimeout.components.seconds) * 1_000_000_000)
        return configuration
    }

    /// How many statements this handle has sent (each a round trip): for measurements.
    public var roundTripCount: Int { roundTrips.value }

    /// A read whose connection turns out to be gone (the server restarted or dropped it while it
    /// sat in the pool) runs once more on a new one: it changed nothing, and the caller would
    /// otherwise see a failure the store has already recovered from.
    public func read<T: Sendable>(_ body: @escaping @Sendable (any StorageReadTransaction) throws -> T) async throws
        -> T
    {
        do {
            return try await readOnce(body)
        } catch let error as StrataError where error.code == .serverUnavailable && !isClosed.load(ordering: .acquiring)
        {
            return try await readOnce(body)
        }
    }

    private func readOnce<T: Sendable>(_ body: @escaping @Sendable (any StorageReadTransaction) throws -> T)
        async throws -> T
    {
        let (layout, logger, roundTrips) = (layout, logger, roundTrips)
        return try await withSession { connection in
            try await Self.threads.runIfActive {
                let session = PostgresSession(connection: connection, logger: logger, roundTrips: roundTrips)
                // Sent with the first statement and not waited for on its own; the COMMIT is
                // not waited for at all (the connection runs it before anything else).
                session.prelude = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
                defer { if session.prelude == nil { _ = session.send("COMMIT") } }
                return try body(PostgresReadTransaction(session: session, layout: layout))
            }
        }
    }

    public func write<T: Sendable>(_ body: @escaping @Sendable (any StorageWriteTransaction) throws -> T) async throws
        -> T
    {
        let (layout, channel) = (layout, channel)
        let wanted = hotKeys.withLock { Array($0) }
        return try await locked(prefetching: wanted) { session, prefetched in
            let transaction = PostgresWriteTransaction(
                session: session, layout: layout, channel: channel, prefetched: prefetched)
            defer {
                let read = transaction.metadataKeysRead
                if !read.isSubset(of: Set(wanted)) { self.learn(read) }
            }
            do {
                let result = try body(transaction)
                try transaction.commit()
                return result
            } catch {
                transaction.rollback()
                throw error
            }
        }
    }

    /// Remembers metadata keys a write read, to fetch them with the next write's lock (bounded:
    /// keys are the engine's counters, few).
    private func learn(_ keys: Set<String>) {
        hotKeys.withLock { hot in
            for key in keys where hot.count < 64 { hot.insert(key) }
        }
    }

    func withSession<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T
    {
        guard !isClosed.load(ordering: .acquiring) else { throw StrataError(.storeClosed, "the store has been closed") }
        do {
            return try await client.withConnection { connection in try await body(connection) }
        } catch {
            if isClosed.load(ordering: .acquiring) { throw StrataError(.storeClosed, "the store has been closed") }
            throw PostgresErrors.map(error)
        }
    }

    public func close() async throws {
        guard !isClosed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        listener.stop()
        clientRun.cancel()
        _ = await clientRun.value
        await presence.close()
    }

    /// A handle dropped without ``close()`` stops its pool and its listener (and its presence
    /// closes itself), so the store does not stay open, to this process and others, until exit.
    deinit {
        listener.stop()
        clientRun.cancel()
    }
}
