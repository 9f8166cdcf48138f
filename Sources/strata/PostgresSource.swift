import Foundation
import Strata
import StrataPostgres
import StrataTools

// `strata inspect` and `strata generate` on a PostgreSQL database: the argument is a URL
// (`postgresql:///app?host=/run/pg`), the schema is the connection's current one (the first of its
// search_path: `public` unless the URL sets `options=-csearch_path=…`), read from pg_catalog.

/// Whether the database argument names a PostgreSQL server rather than a SQLite file.
func isPostgresURL(_ path: String) -> Bool {
    path.hasPrefix("postgresql://") || path.hasPrefix("postgres://")
}

/// The URL as the tool prints it: a password in it (`postgresql://app:secret@host/db`) as `***`.
func redacted(_ url: String) -> String { PostgresConnection.redacted(url) }

/// A PostgreSQL schema as the inspecting tools read it, with its triggers (name and table).
struct PostgresSchemaRead {
    let schema: DatabaseSchema
    let triggers: [InspectDetails.Trigger]
    /// `PostgreSQL 15.18`.
    let engine: String

    /// Connects to `url`, reads its current schema in one catalog query (and each table's row count
    /// when `countingRows`), and disconnects. Nothing is written: the reads run in a READ ONLY transaction.
    init(url: String, countingRows: Bool) throws {
        let connection: PostgresConnection
        do {
            connection = try PostgresConnection(url: url)
        } catch {
            throw ToolError("cannot connect to \(redacted(url)): \(OneLineError(error))")
        }
        defer { try? connection.close() }
        do {
            try connection.execute("BEGIN READ ONLY")
            defer { try? connection.execute("ROLLBACK") }
            let version = try connection.prepare("SELECT current_setting('server_version')")
            engine = "PostgreSQL " + (try version.step() ? (version.cell(at: 0).string ?? "") : "")
            let introspector = try PostgresIntrospector(connection)
            schema = try DatabaseSchema(reading: introspector, engineTypes: .postgres, countRows: countingRows ? { table in
                let count = try connection.prepare("SELECT count(*) FROM " + connection.dialect.quote(table))
                return try count.step() ? count.int64(at: 0) : 0
            } : nil)
            var triggers: [InspectDetails.Trigger] = []
            for name in try introspector.tableNames() {
                guard let info = try introspector.table(name) else { continue }
                for sql in info.triggerSQL {
                    // `CREATE [CONSTRAINT] TRIGGER name …`: the word after TRIGGER.
                    let words = sql.split(separator: " ")
                    let trigger = words.firstIndex(of: "TRIGGER").map { words.index(after: $0) }.flatMap { $0 < words.endIndex ? String(words[$0]) : nil }
                    triggers.append(InspectDetails.Trigger(name: trigger ?? "?", table: info.name, sql: sql))
                }
            }
            self.triggers = triggers
        } catch let error as PostgresError {
            throw ToolError("\(redacted(url)): \(OneLineError(error))")
        }
    }
}

/// What `strata inspect --json` writes for a PostgreSQL database.
struct PostgresInspectJSON: Encodable {
    let url: String
    let engine: String
    let schema: DatabaseSchema
    let triggers: [InspectDetails.Trigger]
}
