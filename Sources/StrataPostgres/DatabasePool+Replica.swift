import Strata

extension DatabasePool {
    /// Opens a pool that writes to a PostgreSQL primary and reads from a hot standby of it (streaming
    /// replication), with read-your-writes: a `read` that starts after one of the pool's `write`s returned
    /// sees what that write committed.
    ///
    /// The writer connects to `postgresURL`; the `readers` connect to `replicaURL`, which must be a hot
    /// standby (`pg_is_in_recovery()` true, else the init throws `.cannotOpen`), their transactions READ
    /// ONLY as in ``init(postgresURL:readers:configuration:)``. After each job on the writer (a write, a
    /// schema sync, a migration) the pool records the primary's WAL position (`pg_current_wal_insert_lsn()`,
    /// one more round trip per write); it records it once at open too, so that reads also see what was
    /// committed before the pool opened. A read first waits, outside its transaction, until the standby has
    /// replayed that far (`pg_last_wal_replay_lsn()`, polled every 1 to 10 ms), then reads there.
    ///
    /// When the standby has not caught up within `replicaWait` (stopped, paused, or lagging), the read runs
    /// on the primary instead, on one more read-only connection the pool keeps for that, and returns what
    /// the primary has: a read is never stale and never fails because the replica lags (as Django's
    /// "pin reads to the primary after a write" routers and Rails' automatic role switching behave).
    /// Until a read finds the standby caught up again, reads that find it behind go to the primary at once
    /// instead of waiting again. Reads that fall back take turns on that one connection; a read that finds
    /// the standby caught up reads there. A standby connection that fails (the server went away) throws the
    /// connection's error, as any read does.
    ///
    /// Where the position comes from: the insert position right after the commit, which can include other
    /// sessions' WAL not yet flushed; the standby receives it when it is flushed (at their commit, or by
    /// the WAL writer within `wal_writer_delay`), so a read may wait a little longer than its write needs,
    /// never less. With `synchronous_commit = off` on the primary the pool's own commits also reach the
    /// standby only when the WAL writer flushes them (up to `wal_writer_delay`, 200 ms by default).
    ///
    /// ```swift
    /// let pool = try DatabasePool(postgresURL: "postgresql:///app?host=/run/postgresql",
    ///                             replicaURL: "postgresql:///app?host=/run/postgresql&port=5433",
    ///                             readers: 4, replicaWait: .seconds(2))
    /// try await pool.write { db in try db.execute("INSERT INTO note(text) VALUES (?)", "hi") }
    /// let count = try await pool.read { db in         // on the standby, once it has replayed the insert
    ///     try db.value(Int.self, "SELECT count(*) FROM note")
    /// }
    /// ```
    public convenience init(postgresURL url: String, replicaURL: String, readers: Int = 4,
                            replicaWait: Duration = .seconds(2),
                            configuration: Database.Configuration = Database.Configuration()) throws {
        let log = ReplicaLog(timeout: replicaWait,
                             committed: { db in try UInt64(clamping: db.value(Int64.self, PostgresReplica.committedSQL) ?? 0) },
                             replayed: { db in try db.value(Int64.self, PostgresReplica.replayedSQL).map { UInt64(clamping: $0) } },
                             openPrimaryReader: { try Database(postgresURL: url, configuration: configuration) })
        try self.init(path: PostgresConnection.redacted(url), readers: readers, replica: log, opening: { isWriter in
            guard !isWriter else { return try Database(postgresURL: url, configuration: configuration) }
            let reader = try Database(postgresURL: replicaURL, configuration: configuration)
            guard try reader.value(Bool.self, "SELECT pg_is_in_recovery()") == true else {
                try? reader.close()
                throw DatabaseError(code: .cannotOpen,
                                    message: "\(PostgresConnection.redacted(replicaURL)) is not a hot standby (pg_is_in_recovery() is false): "
                                        + "give replicaURL a standby of the primary, or open DatabasePool(postgresURL:readers:) to read from the primary",
                                    sqlState: "08001")
            }
            return reader
        })
    }
}

/// The WAL positions a replica pool compares, as byte offsets (`pg_lsn - '0/0'`).
enum PostgresReplica {
    /// The primary's insert position, in the form the standby reports replay: a position just past a page
    /// header (a record ended at the page's end) is the page's start. (`pg_current_wal_insert_lsn()` puts
    /// a position at a page start past its header, 24 bytes, or 40 on a segment's first page, while
    /// `pg_last_wal_replay_lsn()` is the end of the last record replayed, the page start: without this a
    /// read after such a commit would wait for the next WAL record, maybe for the whole timeout.)
    static let committedSQL = """
        SELECT CASE WHEN l % s = 40 THEN l - 40 WHEN l % b = 24 THEN l - 24 ELSE l END \
        FROM (SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::bigint AS l, \
        current_setting('wal_block_size')::bigint AS b, pg_size_bytes(current_setting('wal_segment_size')) AS s) AS position
        """

    /// How far the standby has replayed (NULL on a server that never was one).
    static let replayedSQL = "SELECT (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint"
}
