import ArgumentParser
import Foundation
import Strata
import StrataTools

/// The `--migrations <folder>` option of `plan` and `migrate`: `.sql` files run in name order.
struct MigrationsSource: ParsableArguments {
    @Option(help: "A folder of .sql migrations, applied in name order (0001_create.sql, ...).")
    var migrations: String

    @Option(help: "The migrations' namespace in strata_migrations.")
    var namespace = Migrator.defaultNamespace

    @Flag(help: unknownMigrationsHelp)
    var allowUnknown = false

    func migrator() throws -> Migrator { try loadMigrator(folder: migrations, namespace: namespace, allowUnknown: allowUnknown) }
}

/// The help of `--allow-unknown`.
let unknownMigrationsHelp: ArgumentHelp = "Accept migrations the database records that are not files of the folder (an app's Swift migrations, recorded in the same namespace): plan or run the folder's files alone."

/// The `.sql` files of `folder` as a migrator.
func loadMigrator(folder: String, namespace: String, allowUnknown: Bool) throws -> Migrator {
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
        throw ToolError("no migrations folder at \(folder)")
    }
    var migrator = Migrator(namespace: namespace)
    try migrator.registerSQLFiles(in: URL(fileURLWithPath: folder))
    migrator.allowsUnknownMigrations = allowUnknown
    return migrator
}

/// Runs `body` (a plan or a run of `migrator`); a migration the database records that the folder lacks
/// throws a message that says which flag proceeds, instead of the API's property (which a command line
/// cannot set).
func explainingUnknownMigrations<T>(_ migrator: Migrator, folder: String, in db: Database, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as MigrationError where error.reason == .unknown {
        let record = try? migrator.appliedMigrations(in: db).first { $0.id == error.migration }
        let kind = record.map { $0.checksum == nil ? "a Swift migration (no checksum recorded)" : "an SQL migration (checksum \($0.checksum ?? ""))" } ?? "a migration"
        throw ToolError("the database records \(kind) \"\(error.migration)\" in namespace \"\(error.namespace)\"\(record.map { ", applied \($0.appliedAtText)," } ?? "") that is not a file of \(folder): the app registers it in Swift, or a newer version of the folder ran. To plan or run the folder's files alone, add --allow-unknown; to keep them apart from the app's, give them their own --namespace")
    }
}

/// A schema diff as SQL (statements, then notes as comments) or as JSON.
func printDiff(_ diff: SchemaDiff, json: Bool) throws {
    if json {
        struct Output: Encodable { let statements: [String]; let notes: [String] }
        try printJSON(Output(statements: diff.statements, notes: diff.notes))
    } else {
        print(diff.text, terminator: "")
    }
}

extension StrataCommand {
    /// `strata plan <db> --migrations <folder> [--json]`
    struct Plan: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the pending migrations (or the SQL to reach a schema file) without touching the file: a dry run.")

        @Argument(help: "The SQLite database file (opened read-only), or a postgresql:// URL (read in a READ ONLY transaction; --migrations only).")
        var path: String

        @Option(help: "A folder of .sql migrations, applied in name order (0001_create.sql, ...).")
        var migrations: String?

        @Option(help: "The migrations' namespace in strata_migrations.")
        var namespace = Migrator.defaultNamespace

        @Option(help: "A schema file (CREATE statements): print the additive SQL that brings the database to it instead.")
        var schema: String?

        @Flag(help: unknownMigrationsHelp)
        var allowUnknown = false

        @Flag(help: "Print JSON instead of SQL.")
        var json = false

        func validate() throws {
            guard (migrations == nil) != (schema == nil) else {
                throw ValidationError("give --migrations <folder> or --schema <file>")
            }
        }

        func run() throws {
            if isPostgresURL(path), schema != nil {
                throw ToolError("\(redacted(path)): plan --schema runs the schema file on SQLite and compares SQLite files only; for PostgreSQL, load the file into a scratch database and run `strata diff` on the two URLs, or plan --migrations")
            }
            let db = try isPostgresURL(path) ? openPostgres(path, readOnly: true) : openReadOnly(path)
            defer { try? db.close() }
            if let schema {
                guard let sql = try? String(contentsOfFile: schema, encoding: .utf8) else { throw ToolError("no schema file at \(schema)") }
                let target = try Database()
                do {
                    try target.execute(sql)
                } catch let error as DatabaseError {
                    throw ToolError("schema file \(schema): \(error)")
                }
                try printDiff(SchemaDiff(from: db, to: target), json: json)
                return
            }
            let folder = migrations ?? ""
            let migrator = try loadMigrator(folder: folder, namespace: namespace, allowUnknown: allowUnknown)
            let plan = try explainingUnknownMigrations(migrator, folder: folder, in: db) {
                try consistently(db, url: path) { try migrator.plan(for: db) }
            }
            if json {
                struct Pending: Encodable { let id: String; let sql: String?; let inTransaction: Bool }
                struct Output: Encodable { let applied: [String]; let pending: [Pending] }
                try printJSON(Output(applied: plan.applied.map(\.id),
                                     pending: plan.pending.map { Pending(id: $0.id, sql: $0.sql, inTransaction: $0.inTransaction) }))
            } else {
                print(plan.description)
            }
        }
    }

    /// `strata migrate <db> --migrations <folder>`
    struct Migrate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Apply the pending .sql migrations, each in its own transaction, printing each; stops at the first failure, which leaves nothing behind (a file marked `-- strata: no-transaction` keeps what it committed before failing).")

        @Argument(help: "The SQLite database file (it must exist), or a postgresql:// URL (the migrations run in its current schema).")
        var path: String

        @OptionGroup var source: MigrationsSource

        func run() throws {
            let migrator = try source.migrator()
            let db = try isPostgresURL(path) ? openPostgres(path, readOnly: false) : openForWriting(path)
            defer { try? db.close() }
            let terminal = isatty(STDOUT_FILENO) == 1
            let ran = try explainingUnknownMigrations(migrator, folder: source.migrations, in: db) {
                try migrator.migrate(db) { progress in
                    switch progress {
                    case .started: if terminal { print("\(progress)…") }
                    case .working: if terminal { print(progress) }
                    case .finished(let id, _, _): print("applied \(id)")
                    }
                }
            }
            if ran.isEmpty { print("no pending migrations") }
        }
    }

    /// `strata diff <a> <b>`
    struct Diff: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the SQL that turns the first database's schema into the second's where that is additive, and comments for the rest.")

        @Argument(help: "The first database: a SQLite file (opened read-only) or a postgresql:// URL (its current schema, read in a READ ONLY transaction). The SQL printed is in its dialect.")
        var first: String

        @Argument(help: "The second database: a SQLite file or a postgresql:// URL.")
        var second: String

        @Flag(help: "Print JSON instead of SQL.")
        var json = false

        func run() throws {
            guard isPostgresURL(first) || isPostgresURL(second) else {
                let a = try openReadOnly(first), b = try openReadOnly(second)
                defer { try? b.close(); try? a.close() }   // the first may be the one able to remove a WAL's side files: last
                return try printDiff(SchemaDiff(from: a, to: b), json: json)
            }
            try printDiff(SchemaDiff(from: diffSource(first), to: diffSource(second)), json: json)
        }
    }

    /// `strata generate <db-path> [--table NAME ...] [--namespace NAME] [--include-internal]`
    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print Swift model classes for the tables Strata can map (a comment for the others).")

        @OptionGroup var source: DatabaseSource

        @Option(help: "Nest the classes in an enum of this name, with a `models` list of them.")
        var namespace: String?

        @Flag(help: "Also write models for Strata's own tables (strata_migrations) and SQLite's (its sequence and statistics tables); a table named with --table is written anyway.")
        var includeInternal = false

        func run() throws {
            if isPostgresURL(source.path) {
                let schema = try PostgresSchemaRead(url: source.path, countingRows: false).schema.selecting(source.tables)
                print(ModelGenerator(namespace: namespace, includingInternal: includeInternal || !source.tables.isEmpty)
                    .source(for: schema, origin: redacted(source.path)), terminator: "")
                return
            }
            let db = try openReadOnly(source.path)
            defer { try? db.close() }
            // A table asked for by name is written whoever made it.
            let withInternal = includeInternal || !source.tables.isEmpty
            let schema = try reading(source.path) { try DatabaseSchema(reading: db, includingInternal: withInternal) }.selecting(source.tables)
            let name = source.path.split(separator: "/").last.map(String.init) ?? source.path
            print(ModelGenerator(namespace: namespace, includingInternal: withInternal).source(for: schema, origin: name), terminator: "")
        }
    }
}
