import ArgumentParser
import Strata
import StrataTools

extension StrataCommand {
    /// `strata inspect <db> [--table NAME ...] [--diagram] [--json]`
    struct Inspect: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print tables (columns, indices, foreign keys, CHECK constraints, row counts), views, triggers (with their tables), user_version and applied migrations.")

        @OptionGroup var source: DatabaseSource

        @Flag(help: "Print the tables and their foreign keys as a Mermaid ER diagram instead.")
        var diagram = false

        @Flag(help: "Print JSON instead of text.")
        var json = false

        func run() throws {
            if isPostgresURL(source.path) { return try runOnPostgres() }
            let db = try openReadOnly(source.path)
            defer { try? db.close() }
            let schema = try reading(source.path) { try DatabaseSchema(reading: db, countingRows: true, samplingValues: false) }.selecting(source.tables)
            if diagram {
                print(SchemaDiagram(schema: schema).mermaid, terminator: "")
                return
            }
            let details = try reading(source.path) { try InspectDetails(reading: db) }
            if json {
                try printJSON(InspectJSON(path: source.path, sqliteVersion: Database.sqliteVersion, schema: schema, details: details))
                return
            }
            print(SchemaReport(schema: schema, title: source.path).text, terminator: "")
            print("")
            print("user_version: \(details.userVersion)")
            print("triggers: " + (details.triggers.isEmpty ? "none" : details.triggers.map { "\($0.name) on \($0.table)" }.joined(separator: ", ")))
            if details.migrations.isEmpty {
                print("migrations: none recorded")
            } else {
                print("migrations (\(details.migrations.count)):")
                for migration in details.migrations {
                    print("  \(migration.namespace)/\(migration.id)  \(migration.appliedAt)" + (migration.checksum.map { "  checksum \($0)" } ?? ""))
                }
            }
        }
    }
}

extension StrataCommand.Inspect {
    /// `inspect` on a `postgresql://` URL: the current schema's tables, views and triggers (PostgreSQL has
    /// no user_version; applied migrations are in the strata_migrations table when there is one).
    func runOnPostgres() throws {
        let read = try PostgresSchemaRead(url: source.path, countingRows: !diagram)
        let schema = try read.schema.selecting(source.tables)
        if diagram {
            print(SchemaDiagram(schema: schema).mermaid, terminator: "")
            return
        }
        if json {
            try printJSON(PostgresInspectJSON(url: redacted(source.path), engine: read.engine, schema: schema, triggers: read.triggers))
            return
        }
        var report = SchemaReport(schema: schema, title: redacted(source.path))
        report.engine = read.engine
        print(report.text, terminator: "")
        print("")
        print("triggers: " + (read.triggers.isEmpty ? "none" : read.triggers.map { "\($0.name) on \($0.table)" }.joined(separator: ", ")))
    }
}

/// What `inspect` adds to the schema: triggers, user_version, the migrations Strata recorded.
struct InspectDetails: Encodable {
    struct Trigger: Encodable { let name: String; let table: String; let sql: String }
    struct AppliedMigration: Encodable { let namespace: String; let id: String; let checksum: String?; let appliedAt: String }
    var userVersion: Int
    var triggers: [Trigger]
    var migrations: [AppliedMigration]

    init(reading db: Database) throws {
        func text(_ value: SQLValue?) -> String? { if case .text(let text) = value { text } else { nil } }
        // (The catalog and user_version are read through the library's schema introspector.)
        userVersion = try db.userVersion()
        triggers = try db.introspector.triggers().map { Trigger(name: $0.name, table: $0.table, sql: $0.sql ?? "") }
        let hasMigrations = try db.containsTable(named: Migrator.tableName)
        migrations = hasMigrations ? try db.rows("SELECT namespace, id, checksum, applied_at FROM \(Migrator.tableName) ORDER BY rowid").map {
            AppliedMigration(namespace: text($0["namespace"]) ?? "", id: text($0["id"]) ?? "", checksum: text($0["checksum"]), appliedAt: text($0["applied_at"]) ?? "")
        } : []
    }
}

/// `inspect --json`.
struct InspectJSON: Encodable {
    let path: String
    let sqliteVersion: String
    let schema: DatabaseSchema
    let details: InspectDetails
}
