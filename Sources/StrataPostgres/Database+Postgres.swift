import Strata

extension Database {
    /// Opens a handle on a PostgreSQL database: a libpq connection string or URL
    /// (`postgresql:///app?host=/run/pg`, `host=db user=app dbname=app`).
    ///
    /// The handle runs what a SQLite handle does above the engine: raw SQL (`?` parameters, spelled `$n`),
    /// transactions (savepoints inside, serialization failures retried by `retryingOnConflict`), schema
    /// sync in PostgreSQL's types (one transaction), models (fetch, save, delete, one live instance per row,
    /// conflicts instead of lost writes), relationships and prefetch, migrations and `observeChanges`.
    /// SQLite's own calls (backup, journal modes) throw an error naming PostgreSQL. Errors are
    /// `DatabaseError`s with PostgreSQL's SQLSTATE in `sqlState` and the nearest SQLite code in `code`.
    ///
    /// ```swift
    /// let db = try Database(postgresURL: "postgresql:///app?host=/run/postgresql")
    /// try db.syncSchema(Note.self)
    /// try db.execute("INSERT INTO note(text) VALUES (?)", "hello")
    /// let count = try db.value(Int.self, "SELECT count(*) FROM note")
    /// ```
    public convenience init(postgresURL url: String, configuration: Configuration = Configuration()) throws {
        let connection: PostgresConnection
        do {
            connection = try PostgresConnection(url: url)
        } catch let error as PostgresError {
            throw DatabaseError(code: .cannotOpen, message: "\(error.message) (opening \(PostgresConnection.redacted(url)))",
                                sqlState: error.sqlState ?? "08001")
        }
        try self.init(remote: connection, configuration: configuration)
    }
}

extension DatabasePool {
    /// Opens a pool on a PostgreSQL database: one writer connection and `readers` connections whose
    /// transactions are READ ONLY, each used on its own serial queue (libpq's blocking calls never run on
    /// Swift's cooperative threads). The same `read`/`write` closures as on SQLite, async and
    /// `pool.blocking`; cancelling an async call cancels its running statement on the server (`PQcancel`)
    /// and rolls its transaction back. The pool's commits reach `changes(of:)`, `observe` and `LiveQuery`
    /// (other processes' once ``installChangeNotifications(for:)`` or ``listenForChangeNotifications()``
    /// ran). What a handle runs on PostgreSQL: see ``Database/init(postgresURL:configuration:)``.
    ///
    /// ```swift
    /// let pool = try DatabasePool(postgresURL: "postgresql:///app?host=/run/postgresql", readers: 4)
    /// try await pool.write { db in try db.execute("INSERT INTO note(text) VALUES (?)", "hi") }
    /// let count = try await pool.read { db in try db.value(Int.self, "SELECT count(*) FROM note") }
    /// ```
    public convenience init(postgresURL url: String, readers: Int = 4, configuration: Database.Configuration = Database.Configuration()) throws {
        try self.init(path: PostgresConnection.redacted(url), readers: readers, opening: { _ in
            try Database(postgresURL: url, configuration: configuration)
        })
    }
}
