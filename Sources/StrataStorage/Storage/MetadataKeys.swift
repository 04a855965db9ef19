/// Every metadata key and key prefix Strata writes, in one place: the keyspace `strata.` is the
/// engine's and its backends'. A backend stores these like any metadata (``StorageWriteTransaction``'s
/// `setMetadata`) and never interprets them, except its own format markers at the end. An app's
/// metadata — if it ever writes any through a backend — must stay outside `strata.`.
package enum MetadataKeys {
    // MARK: The schema

    /// The store's full schema description (``SchemaDescription``), written by the engine.
    package static let schemaDescription = "strata.schema.description"
    /// The schema's fingerprint (a hash of its shape), beside the description.
    package static let schemaFingerprint = "strata.schema.fingerprint"
    /// The app's recorded declaration (``SchemaFile``): rules, defaults, delete rules.
    package static let schemaDeclaration = "strata.schema.declared"

    // MARK: History

    /// The newest history token.
    package static let lastHistoryToken = "strata.history.last"
    /// One entry per history transaction, by zero-padded token.
    package static let historyEntryPrefix = "strata.history.entry."
    /// The token history was last purged before.
    package static let historyPurgedBefore = "strata.history.purgedBefore"

    // MARK: Full-text indexes

    /// Every full-text index's statistics, segments and word lists (see the engine's
    /// `SearchIndexLayout`).
    package static let searchPrefix = "strata.search."

    // MARK: Files (see the engine's `FileSpace`)

    /// A stored file's manifest (size, chunk count, the blob holding its chunks), by digest.
    package static let fileManifestPrefix = "strata.file.manifest."
    /// A blob's chunks (a finished file's or an unfinished upload's), by blob and zero-padded index.
    package static let fileChunkPrefix = "strata.file.chunk."
    /// How many record properties refer to a file, by digest (absent: none).
    package static let fileReferencesPrefix = "strata.file.refs."
    /// A file records refer to whose bytes are not here (not downloaded yet), by digest: its
    /// reference text.
    package static let fileMissingPrefix = "strata.file.missing."
    /// An unfinished upload's state (bytes hashed, the running hash), by blob.
    package static let fileUploadPrefix = "strata.file.upload."

    // MARK: Loading (`strata import`, `strata copy`)

    /// How many records an unfinished load has stored.
    package static let loadPosition = "strata.load.position"
    /// What the last finished load recorded of itself.
    package static let loadFinished = "strata.load.finished"

    // MARK: The sync client

    /// One entry per outbox mutation, by zero-padded sequence.
    package static let outboxEntryPrefix = "strata.outbox.entry."
    /// The client's sync state (client ID, sequence counter).
    package static let syncState = "strata.sync.state"
    /// The pull cursor.
    package static let syncCursor = "strata.sync.cursor"
    /// The server version a record was last seen at, by entity and ID.
    package static let serverVersionPrefix = "strata.sync.sv."
    /// A reset from a snapshot in progress.
    package static let syncReset = "strata.sync.reset"
    /// A file this client uploaded to its server whole, by digest.
    package static let syncFileUploadedPrefix = "strata.sync.fileup."
    /// A download in progress: the local upload receiving it, by digest.
    package static let syncFileDownloadPrefix = "strata.sync.filedown."
    /// The client's subscriptions and the initial syncs they still owe.
    package static let syncSubscriptions = "strata.sync.subscriptions"
    /// Owners of ordered lists to read again from the server (a push's answer put a member back).
    package static let syncOwnersToRefresh = "strata.sync.refresh"
    /// Records a subscribed client wrote or read again, to evict once nothing covers them.
    package static let syncCoverageRecheck = "strata.sync.recheck"
    /// Records a client that never pulled held when its first snapshot moved its cursor, until a
    /// snapshot page or a pull brings them again.
    package static let syncUnconfirmed = "strata.sync.unconfirmed"
    /// The history tokens of subscription snapshots the client applied while its cursor was behind
    /// them, until its cursor passes each (``PullRequest/snapshotsAt``).
    package static let syncSnapshotsAhead = "strata.sync.ahead"
    /// The client ID generated for this store (``SyncConfiguration/init(clock:localOnly:)``).
    package static let syncClientID = "strata.sync.clientid"

    // MARK: The sync server

    /// A client ID's bound identity and last applied mutation.
    package static let serverClientPrefix = "strata.server.client."
    /// Mutations rejected, kept so a retry gets the same answer.
    package static let serverRejectedPrefix = "strata.server.rejected."
    /// Which client last wrote a record, by entity and ID.
    package static let serverStampPrefix = "strata.server.stamp."
    /// Which identity owns a record.
    package static let serverOwnerPrefix = "strata.server.owner."
    /// An identity's unfinished upload of a file: the upload's ID, by identity hash and digest.
    package static let serverFileUploadPrefix = "strata.server.fileupload."
    /// An identity that uploaded a file's bytes whole (so may refer to it and read it back), by
    /// digest and identity hash.
    package static let serverFileHolderPrefix = "strata.server.fileholder."
    /// A file an identity uploaded whole, by identity hash and digest: its size, for the
    /// identity's quota of stored bytes.
    package static let serverFileHeldPrefix = "strata.server.fileheld."
    /// The bytes of files an identity uploaded that are still stored, by identity hash (the sum of
    /// its `serverFileHeldPrefix` entries, kept so a quota check reads one key).
    package static let serverFileUsagePrefix = "strata.server.fileusage."
    /// Records' states before a save, by token, for scope changes (purged with history).
    package static let serverPriorPrefix = "strata.server.prior."
    /// Deleted records of entities a scope reads through another record, by the record they named.
    package static let serverDeletedReferrerPrefix = "strata.server.deref."
    /// The same entries by history token, for purging them with history.
    package static let serverDeletedReferrerTokenPrefix = "strata.server.derefat."

    // MARK: Backends' own format markers

    /// The SQLite backend's layout format (also in its SQL: `strata.sqlite.format`).
    package static let sqliteFormat = "strata.sqlite.format"
    /// The LMDB backend's layout format.
    package static let lmdbFormat = "strata.lmdb.format"
    /// Whether the LMDB store's records carry checksums.

    /// The PostgreSQL backend's layout format.
    package static let postgresFormat = "strata.postgres.format"
}
