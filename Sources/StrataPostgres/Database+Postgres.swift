import Strata

extension Database {
    /// Opens a handle on a PostgreSQL database: a libpq connection string or URL
    /// (`postgresql:///app?host=/run/pg`, `host=db user=app dbname=app`).
    ///
    /// So far the handle runs raw SQL (`execute`, `rows`, `value`, `column`, with `?` parameters),
    /// transactions (savepoints inside, serialization failures retried by `retryingOnConflict`) and schema
    /// sync of models (`syncSchema`, `schemaPlan`: PostgreSQL's types, in one transaction). Fetching and
    /// saving models on it is the next step; those calls throw an error that says so. Errors are
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
    /// and rolls its transaction back. What a handle runs on PostgreSQL so far: see
    /// ``Database/init(postgresURL:configuration:)``.
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
