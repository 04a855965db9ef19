import CLMDB
import Foundation
import StrataStorage
import Synchronization

/// An LMDB status code that is not success. Turned into a `StrataError` at the backend's boundary,
/// except `MDB_MAP_FULL`, which the backend handles by growing the map and retrying.
struct LMDBStatus: Error, CustomStringConvertible {
    let code: Int32
    var description: String { String(cString: mdb_strerror(code)) }
    var isMapFull: Bool { code == MDB_MAP_FULL }
    var isMapResized: Bool { code == MDB_MAP_RESIZED }
}

@inline(__always)
func check(_ code: Int32) throws {
    if code != 0 { throw LMDBStatus(code: code) }
}

/// The `MDB_env` handle and its named databases.
///
/// `@unchecked Sendable` because it wraps a C handle. What makes sharing it safe: LMDB allows
/// concurrent read transactions from any thread (the environment is opened with `MDB_NOTLS`);
/// write transactions are serialised by the backend's writer queue and each runs start to finish
/// on one thread; `mdb_env_set_mapsize` runs only while `resizeLock` is held for writing, which
/// excludes every transaction (each holds it for reading).
final class LMDBEnvironment: @unchecked Sendable {
    let handle: OpaquePointer
    let resizeLock = ReadWriteLock()
    /// Written only on ``writer`` (opening databases), and only with names not yet in it, so
    /// transactions read it without a lock once their store has opened.
    private(set) var databases: [String: MDB_dbi] = [:]
    /// The one writer of this environment: every handle onto it in this process writes here, so
    /// two stores on one path serialise their writes instead of meeting in LMDB's write lock.
    let writer = DispatchQueue(label: "strata.lmdb.writer")

    /// Set (under `resizeLock` held for writing) when the last handle closed it: `handle` is freed.
    /// Read under `resizeLock` held for reading, which every use of `handle` holds.
    private(set) var isClosed = false
    /// Open handles of this environment's stores; guarded by `opened`'s mutex.
    private var handles = 0
    private var key = ""

    private static let opened = Mutex<[String: LMDBEnvironment]>([:])

    /// The environment open in this process for `path`, or a newly opened one; each call is one
    /// handle, given back with ``release()``. LMDB must not open one environment twice in a
    /// process: a second open takes the lock file as if it were alone and resets the reader table
    /// the first one uses.
    static func shared(path: String, mapSize: Int, maxDatabases: Int, noSync: Bool) throws -> LMDBEnvironment {
        let key = canonical(path)
        return try opened.withLock { table in
            if let existing = table[key] {
                existing.handles += 1
                return existing
            }
            let environment = try LMDBEnvironment(
                path: path, mapSize: mapSize, maxDatabases: maxDatabases, noSync: noSync)
            environment.key = key
            environment.handles = 1
            table[key] = environment
            return environment
        }
    }

    /// One handle closed; the last closes the environment once every transaction has ended, so
    /// the next open reads the files afresh.
    func release() {
        let last = Self.opened.withLock { table -> Bool in
            handles -= 1
            guard handles <= 0 else { return false }
            if table[key] === self { table.removeValue(forKey: key) }
            return true
        }
        guard last else { return }
        resizeLock.writeLock()
        defer { resizeLock.unlock() }
        if !isClosed {
            isClosed = true
            mdb_env_close(handle)
        }
    }

    /// Whether this process has the environment at `path` open (through any handle).
    static func isOpen(_ path: String) -> Bool {
        opened.withLock { $0[canonical(path)] != nil }
    }

    /// The bytes the data file uses (its last page), and the map size.
    var usage: (used: Int, map: Int) {
        resizeLock.readLock()
        defer { resizeLock.unlock() }
        guard !isClosed else { return (0, 0) }
        var info = MDB_envinfo()
        mdb_env_info(handle, &info)
        var stat = MDB_stat()
        mdb_env_stat(handle, &stat)
        return ((info.me_last_pgno + 1) * Int(stat.ms_psize), info.me_mapsize)
    }

    /// The directory with symbolic links resolved, so two spellings of one store meet.
    static func canonical(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// Opens the environment in `path`. `readOnly` opens it without its lock file and refuses
    /// writes (verify: nothing on disk changes, a lock file included).
    init(path: String, mapSize: Int, maxDatabases: Int, noSync: Bool, readOnly: Bool = false) throws {
        var env: OpaquePointer?
        try check(mdb_env_create(&env))
        guard let env else { throw LMDBStatus(code: ENOMEM) }
        // Once `handle` is set every stored property is initialised, so a throw below still runs
        // `deinit`, which closes the environment: closing it here too would free it twice.
        handle = env
        try check(mdb_env_set_maxdbs(env, MDB_dbi(maxDatabases)))
        try check(mdb_env_set_mapsize(env, mapSize))
        try check(mdb_env_set_maxreaders(env, 256))
        var flags = UInt32(MDB_NOTLS)
        if noSync { flags |= UInt32(MDB_NOSYNC) }
        if readOnly { flags |= UInt32(MDB_RDONLY | MDB_NOLOCK) }
        try check(mdb_env_open(env, path, flags, 0o644))
        if !readOnly {
            var dead: Int32 = 0
            _ = mdb_reader_check(env, &dead)
        }
    }

    deinit { if !isClosed { mdb_env_close(handle) } }

    /// Opens (creating when `create`) the named databases in one write transaction.
    func openDatabases(_ specs: [(name: String, duplicates: Bool)], create: Bool) throws {
        let specs = specs.filter { databases[$0.name] == nil }
        if specs.isEmpty { return }
        var txn: OpaquePointer?
        try check(mdb_txn_begin(handle, nil, create ? 0 : UInt32(MDB_RDONLY), &txn))
        guard let txn else { throw LMDBStatus(code: ENOMEM) }
        do {
            for spec in specs {
                var dbi: MDB_dbi = 0
                var flags = create ? UInt32(MDB_CREATE) : 0
                if spec.duplicates { flags |= UInt32(MDB_DUPSORT) }
                try check(mdb_dbi_open(txn, spec.name, flags, &dbi))
                databases[spec.name] = dbi
            }
            try check(mdb_txn_commit(txn))
        } catch {
            mdb_txn_abort(txn)
            throw error
        }
    }

    /// Adds handles a migration opened in its write transaction, once it committed (on ``writer``).
    func adopt(_ handles: [String: MDB_dbi]) {
        for (name, dbi) in handles where databases[name] == nil { databases[name] = dbi }
    }

    /// Which of the named databases the environment does not hold.
    func missingDatabases(_ names: [String]) throws -> [String] {
        var txn: OpaquePointer?
        try check(mdb_txn_begin(handle, nil, UInt32(MDB_RDONLY), &txn))
        defer { mdb_txn_abort(txn) }
        var missing: [String] = []
        for name in names where databases[name] == nil {
            var dbi: MDB_dbi = 0
            let code = mdb_dbi_open(txn, name, 0, &dbi)
            if code == MDB_NOTFOUND { missing.append(name) } else { try check(code) }
        }
        return missing
    }

    /// Whether the environment holds nothing yet (its main database, where named databases live, is empty).
    func mainDatabaseIsEmpty() throws -> Bool {
        var txn: OpaquePointer?
        try check(mdb_txn_begin(handle, nil, UInt32(MDB_RDONLY), &txn))
        defer { mdb_txn_abort(txn) }
        var dbi: MDB_dbi = 0
        try check(mdb_dbi_open(txn, nil, 0, &dbi))
        var stat = MDB_stat()
        try check(mdb_stat(txn, dbi, &stat))
        return stat.ms_entries == 0
    }

    var mapSize: Int {
        resizeLock.readLock()
        defer { resizeLock.unlock() }
        guard !isClosed else { return 0 }
        var info = MDB_envinfo()
        mdb_env_info(handle, &info)
        return info.me_mapsize
    }

    /// Grows (or, with 0, adopts another process's) map size; excludes every transaction meanwhile.
    func setMapSize(_ size: Int) throws {
        resizeLock.writeLock()
        defer { resizeLock.unlock() }
        guard !isClosed else { throw StrataError(.storeClosed, "the store has been closed") }
        try check(mdb_env_set_mapsize(handle, size))
    }

    /// Clears reader slots left by crashed processes; returns how many.
    func clearStaleReaders() -> Int {
        resizeLock.readLock()
        defer { resizeLock.unlock() }
        guard !isClosed else { return 0 }
        var dead: Int32 = 0
        _ = mdb_reader_check(handle, &dead)
        return Int(dead)
    }
}

/// A `pthread_rwlock_t`: many transactions at once, or one map resize.
final class ReadWriteLock: @unchecked Sendable {
    // The pthread lock is itself the synchronisation; it is never moved once initialised.
    private let lock = UnsafeMutablePointer<pthread_rwlock_t>.allocate(capacity: 1)
    init() { pthread_rwlock_init(lock, nil) }
    deinit {
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }
    func readLock() { pthread_rwlock_rdlock(lock) }
    func writeLock() { pthread_rwlock_wrlock(lock) }
    func unlock() { pthread_rwlock_unlock(lock) }
}
