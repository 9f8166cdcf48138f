import Foundation
import Strata
import StrataPostgres
import StrataTools

// `strata plan`, `migrate` and `diff` on a PostgreSQL database (a `postgresql://` URL): the migrator runs on
// a `Database(postgresURL:)` (plan in a READ ONLY transaction, migrate each migration in its own), and a diff
// reads the connection's current schema through the introspector, in a READ ONLY transaction.

/// A handle on the PostgreSQL database at `url`; `readOnly`: every transaction of it is READ ONLY (a write
/// fails with 25006). A connection that fails names the URL (its password as `***`).
func openPostgres(_ url: String, readOnly: Bool) throws -> Database {
    let db: Database
    do {
        db = try Database(postgresURL: url)
    } catch let error as DatabaseError {
        throw ToolError("cannot connect to \(redacted(url)): \(OneLineError(error))")
    }
    if readOnly {
        do { try db.refuseWrites() } catch {
            try? db.close()
            throw error
        }
    }
    return db
}

/// Runs `body` on `db` in one transaction when it is on PostgreSQL (one snapshot: a plan reads the catalog
/// and `strata_migrations` as they were at one moment); as it is on SQLite.
func consistently<T>(_ db: Database, url: String, _ body: () throws -> T) throws -> T {
    guard isPostgresURL(url) else { return try body() }
    return try db.transaction { try body() }
}

/// One side of `strata diff`: a SQLite file (opened read-only) or a PostgreSQL URL (its current schema,
/// read in a READ ONLY transaction).
func diffSource(_ path: String) throws -> SchemaDiff.Source {
    guard isPostgresURL(path) else {
        let db = try openReadOnly(path)
        defer { try? db.close() }
        return try reading(path) { try SchemaDiff.Source(reading: db) }
    }
    let connection: PostgresConnection
    do {
        connection = try PostgresConnection(url: path)
    } catch {
        throw ToolError("cannot connect to \(redacted(path)): \(OneLineError(error))")
    }
    defer { try? connection.close() }
    do {
        try connection.execute("BEGIN READ ONLY")
        defer { try? connection.execute("ROLLBACK") }
        return try SchemaDiff.Source(reading: PostgresIntrospector(connection), engine: .postgres)
    } catch let error as PostgresError {
        throw ToolError("\(redacted(path)): \(OneLineError(error))")
    }
}
